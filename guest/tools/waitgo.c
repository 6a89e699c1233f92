// SPDX-License-Identifier: GPL-2.0
/*
 * waitgo: wait, spinning, until the host writes a line that starts with
 * "go " into the shared memory of the ivshmem-plain PCI device, then
 * print that line.
 *
 * The benchmark saves the guest while it waits here and restores it once
 * per configuration (bench/run.sh, bench/state.py): the host writes the
 * configuration's "go" line into the device's memory while the restored
 * guest is still paused, then lets it run.  Reading that memory is a plain
 * load: no interrupt, no I/O completion whose timing the host decides, so
 * under a fixed -icount the guest sees "go" after the same number of
 * instructions in every restore, and a restore repeats itself.  (A disk
 * read did not: under -icount sleep=off the guest jumps over ticks while
 * it waits for the host, and each restore started a different number of
 * ticks later.)
 *
 * It spins instead of sleeping for the same reason: an idle guest races
 * through guest time, a spinning one moves with the instructions it runs.
 *
 * usage: waitgo            exit 0 and print the line; exit 1 with a message
 *                          if there is no ivshmem device
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define IVSHMEM_VENDOR	0x1af4
#define IVSHMEM_DEVICE	0x1110
#define LINE_MAX_LEN	4096

static unsigned int read_hex(const char *dir, const char *name)
{
	char path[512];
	unsigned int v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%x", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

/* The sysfs folder of the first ivshmem device, in @dir. */
static int find_device(char *dir, size_t len)
{
	const char *base = "/sys/bus/pci/devices";
	struct dirent *de;
	DIR *d = opendir(base);

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(dir, len, "%s/%s", base, de->d_name);
		if (read_hex(dir, "vendor") == IVSHMEM_VENDOR &&
		    read_hex(dir, "device") == IVSHMEM_DEVICE) {
			closedir(d);
			return 0;
		}
	}
	closedir(d);
	return -1;
}

/* One load from the device's memory, never cached in a register. */
static char peek(const char *mem, size_t i)
{
	return __atomic_load_n(&mem[i], __ATOMIC_RELAXED);
}

int main(void)
{
	char dir[512], path[600], line[LINE_MAX_LEN];
	const char *mem;
	size_t i;
	int fd;

	if (find_device(dir, sizeof(dir))) {
		fprintf(stderr, "waitgo: no ivshmem-plain PCI device (vendor %04x device %04x)\n",
			IVSHMEM_VENDOR, IVSHMEM_DEVICE);
		return 1;
	}
	/* Memory decoding on, in case the firmware left it off. */
	snprintf(path, sizeof(path), "%s/enable", dir);
	fd = open(path, O_WRONLY);
	if (fd >= 0) {
		if (write(fd, "1", 1) != 1)
			perror("waitgo: enable");
		close(fd);
	}
	snprintf(path, sizeof(path), "%s/resource2", dir);
	fd = open(path, O_RDONLY | O_SYNC);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	mem = mmap(NULL, LINE_MAX_LEN, PROT_READ, MAP_SHARED, fd, 0);
	if (mem == MAP_FAILED) {
		perror("waitgo: mmap resource2");
		return 1;
	}
	while (!(peek(mem, 0) == 'g' && peek(mem, 1) == 'o' && peek(mem, 2) == ' '))
		;
	for (i = 0; i < sizeof(line) - 1 && peek(mem, i) && peek(mem, i) != '\n'; i++)
		line[i] = peek(mem, i);
	line[i] = '\0';
	printf("%s\n", line);
	return 0;
}
