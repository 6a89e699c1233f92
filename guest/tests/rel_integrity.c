// SPDX-License-Identifier: GPL-2.0
/*
 * rel_integrity: data reads back bit-identical while the ladder-on stress
 * scenario reclaims and compacts memory (issue 5, part 6).
 *
 * File set, written first: 32 files of 1 MiB in a tmpfs (/tmp: pages that
 * compaction migrates) and 16 extents of 4 MiB in the last 64 MiB of the
 * virtio disk (/dev/vda, written through the page cache and fsync'ed: pages
 * that reclaim drops and that are read again from the disk). Every 8-byte
 * word comes from a xorshift stream seeded by (file, block); a manifest
 * keeps an FNV-1a 64 checksum per file.
 *
 * Stress, for lab.integrity_secs (default 60) s, with vm.watermark_ladder_order=3
 * (when the kernel has it; the reserve's cap, vm.watermark_ladder_reserve_kbytes,
 * as booted, so rxring's failures grow a reserve that kswapd and kcompactd
 * then build; and vm.watermark_ladder_reclaim_kbytes=1024 where the kernel
 * has it, so kcompactd also reclaims the page cache that completes the
 * ladder's blocks, the disk's cache included): the fragmenter (-D) holding
 * a fragmented zone, rxring GFP_ATOMIC order-3 refills (2000/s), streamread streaming the
 * whole disk through the page cache, and a loop writing 1 to
 * /proc/sys/vm/compact_memory every second. Meanwhile the file set is
 * verified over and over (the disk extents dropped from the page cache
 * with POSIX_FADV_DONTNEED before each pass), then once more after the
 * stress has stopped, with the disk extents also read with O_DIRECT (what
 * writeback put on the disk).
 *
 * Pass rule: every file of every pass has its manifest checksum and equals
 * the regenerated data byte for byte; at least 2 passes ran under stress;
 * the stress did reclaim (pgsteal_*) and migrate (pgmigrate_success or
 * compact_migrate_scanned) pages; no kernel splat was logged. On a kernel
 * without the series it runs with the stock allocator (said in a TAP
 * diagnostic). Skips without the disk.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/mman.h>

#include "lab.h"


#define TMP_DIR		"/tmp/rel_integrity"
#define TMP_FILES	32
#define TMP_SIZE	(1 << 20)
#define DISK_FILES	16
#define DISK_SIZE	(4 << 20)
#define NFILES		(TMP_FILES + DISK_FILES)
#define BLOCK		4096

static uint64_t manifest[NFILES];
static off_t disk_base;
static int disk_fd = -1;
static unsigned char *buf, *want;
static int can_fadvise = 1;

static size_t file_size(int f)
{
	return f < TMP_FILES ? TMP_SIZE : DISK_SIZE;
}

static void generate(int f, unsigned char *p, size_t len)
{
	size_t b, w;

	for (b = 0; b < len / BLOCK; b++) {
		uint64_t x = ((uint64_t)(f + 1) << 32 | (b + 1)) * 0x9e3779b97f4a7c15ULL;
		uint64_t *words = (uint64_t *)(p + b * BLOCK);

		for (w = 0; w < BLOCK / 8; w++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			words[w] = x;
		}
	}
}

static uint64_t fnv1a(const unsigned char *p, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

static int xfer(int f, int write_it, unsigned char *p)
{
	size_t len = file_size(f), done = 0;
	char path[64];
	ssize_t n;
	int fd;
	off_t base;

	if (f < TMP_FILES) {
		snprintf(path, sizeof(path), TMP_DIR "/f%02d", f);
		fd = open(path, write_it ? O_WRONLY | O_CREAT | O_TRUNC : O_RDONLY, 0644);
		if (fd < 0) {
			ksft_print_msg("open %s: %s\n", path, strerror(errno));
			return -1;
		}
		base = 0;
	} else {
		fd = disk_fd;
		base = disk_base + (off_t)(f - TMP_FILES) * DISK_SIZE;
	}
	while (done < len) {
		n = write_it ? pwrite(fd, p + done, len - done, base + done)
			     : pread(fd, p + done, len - done, base + done);
		if (n <= 0) {
			ksft_print_msg("%s file %d: %s\n", write_it ? "write" : "read", f,
				       n ? strerror(errno) : "short");
			break;
		}
		done += n;
	}
	if (f < TMP_FILES)
		close(fd);
	return done == len ? 0 : -1;
}

/* The disk extents as the disk has them (O_DIRECT); bad extents. */
static int verify_direct(void)
{
	int fd = open(LAB_DISK, O_RDONLY | O_DIRECT), f, bad = 0;
	void *dbuf = NULL;

	if (fd < 0 || posix_memalign(&dbuf, 4096, DISK_SIZE)) {
		ksft_print_msg("O_DIRECT read of %s: %s\n", LAB_DISK, strerror(errno));
		if (fd >= 0)
			close(fd);
		return DISK_FILES;
	}
	for (f = TMP_FILES; f < NFILES; f++) {
		off_t base = disk_base + (off_t)(f - TMP_FILES) * DISK_SIZE;

		generate(f, want, DISK_SIZE);
		if (pread(fd, dbuf, DISK_SIZE, base) != DISK_SIZE) {
			ksft_print_msg("O_DIRECT pread extent %d: %s\n", f, strerror(errno));
			bad++;
		} else if (memcmp(dbuf, want, DISK_SIZE) || fnv1a(dbuf, DISK_SIZE) != manifest[f]) {
			bad++;
		}
	}
	free(dbuf);
	close(fd);
	return bad;
}

/* One verification pass; the number of bad files (first one described). */
static int verify(const char *when)
{
	int f, bad = 0;
	size_t i;

	if (can_fadvise) {
		int err = posix_fadvise(disk_fd, disk_base, DISK_FILES * (off_t)DISK_SIZE,
					POSIX_FADV_DONTNEED);

		if (err) {	/* ENOSYS without CONFIG_ADVISE_SYSCALLS */
			ksft_print_msg("posix_fadvise(DONTNEED): %s; relying on reclaim alone\n",
				       strerror(err));
			can_fadvise = 0;
		}
	}
	for (f = 0; f < NFILES; f++) {
		size_t len = file_size(f);

		if (xfer(f, 0, buf)) {
			bad++;
			continue;
		}
		generate(f, want, len);
		if (fnv1a(buf, len) == manifest[f] && !memcmp(buf, want, len))
			continue;
		for (i = 0; i < len && buf[i] == want[i]; i++)
			;
		if (!bad)
			ksft_print_msg("%s: file %d (%s) differs at byte %zu: 0x%02x, want 0x%02x\n",
				       when, f, f < TMP_FILES ? "tmpfs" : "disk", i,
				       i < len ? buf[i] : 0, i < len ? want[i] : 0);
		bad++;
	}
	return bad;
}

static long long migrated(void)
{
	return vmstat_or("pgmigrate_success", 0) + vmstat_or("compact_migrate_scanned", 0);
}

static long long reclaimed(void)
{
	return vmstat_or("pgsteal_kswapd", 0) + vmstat_or("pgsteal_direct", 0);
}

/* The compaction loop, in a child: compact_memory once a second. */
static pid_t start_compactor(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		signal(SIGTERM, SIG_DFL);
		for (;;) {
			int err = write_text("/proc/sys/vm/compact_memory", "1");

			if (err) {
				fprintf(stderr, "compact_memory: %s\n", strerror(-err));
				_exit(1);
			}
			sleep(1);
		}
	}
	return pid;
}

int main(void)
{
	const char marker[] = "rel_integrity: start";
	long long mig0, rec0, mig, rec;
	char secs_arg[16], splat[512], params[128];
	char *sr_argv[] = { STREAMREAD, "-t", secs_arg, "-o", "512", NULL };
	pid_t holder = -1, reader = -1, compactor = -1;
	int secs, f, passes = 0, bad_passes = 0, bad, rc = -1, err, ladder = have_ladder();
	double t_end;
	off_t size;

	ksft_print_header();
	disk_fd = open(LAB_DISK, O_RDWR);
	if (disk_fd < 0)
		lab_skip_all("no %s (%s): the file set and the streaming reader need the virtio disk; boot with scripts/boot.sh --disk IMG\n",
			     LAB_DISK, strerror(errno));
	size = lseek(disk_fd, 0, SEEK_END);
	if (size < 256 << 20)
		lab_skip_all("%s is only %lld MiB; need 256\n", LAB_DISK, (long long)size >> 20);
	disk_base = size - (off_t)DISK_FILES * DISK_SIZE;
	secs = cmdline_long("integrity_secs", 60);
	snprintf(secs_arg, sizeof(secs_arg), "%d", secs + 60);
	buf = malloc(DISK_SIZE);
	want = malloc(DISK_SIZE);
	if (!buf || !want)
		ksft_exit_fail_msg("malloc: %s\n", strerror(errno));
	kmsg_mark("rel_integrity: start\n");
	ksft_set_plan(6);

	/* The file set and its manifest. */
	mkdir(TMP_DIR, 0755);
	err = 0;
	for (f = 0; f < NFILES; f++) {
		generate(f, buf, file_size(f));
		manifest[f] = fnv1a(buf, file_size(f));
		err |= xfer(f, 1, buf);
	}
	if (fsync(disk_fd))
		err = -1, ksft_print_msg("fsync %s: %s\n", LAB_DISK, strerror(errno));
	ksft_test_result(!err, "file set written: %d x 1 MiB tmpfs, %d x 4 MiB on %s at %lld MiB\n",
			 TMP_FILES, DISK_FILES, LAB_DISK, (long long)disk_base >> 20);

	/* The stress. */
	if (ladder) {
		long reserve = -1, reclaim = -1;

		if (lab_save_sysctl(LADDER_ORDER) || sysctl_set(LADDER_ORDER, 3))
			ksft_print_msg("set vm.watermark_ladder_order=3: %s\n", strerror(errno));
		sysctl_get(LADDER_RESERVE, &reserve);
		/* and kcompactd's reclaim for the ladder, where the kernel has it */
		if (!access(LADDER_RECLAIM, F_OK) &&
		    (lab_save_sysctl(LADDER_RECLAIM) || sysctl_set(LADDER_RECLAIM, 1024)))
			ksft_print_msg("set vm.watermark_ladder_reclaim_kbytes=1024: %s\n",
				       strerror(errno));
		sysctl_get(LADDER_RECLAIM, &reclaim);
		ksft_print_msg("ladder on: vm.watermark_ladder_order 3, reserve_kbytes %ld, reclaim_kbytes %ld\n",
			       reserve, reclaim);
	} else {
		ksft_print_msg("kernel without the ladder series: stock allocator under the same stress\n");
	}
	mig0 = migrated();
	rec0 = reclaimed();
	if (!access(FRAGMENTER, X_OK))
		rc = run_fragmenter("/tmp/rel_integrity.frag", &holder);
	snprintf(params, sizeof(params),
		 "order=3 rate=2000 ring=256 drain_ms=1000 duration_ms=%d autostart=1",
		 (secs + 60) * 1000);
	err = access(RXRING_KO, R_OK) ? -ENOENT : module_load(RXRING_KO, params);
	reader = access(STREAMREAD, X_OK) ? -1 : spawn(sr_argv, "/tmp/rel_integrity.stream");
	compactor = start_compactor();
	ksft_test_result(holder > 0 && !err && reader > 0 && compactor > 0,
			 "stress running: fragmenter exit %d, rxring %s, streamread pid %d, compact loop pid %d\n",
			 rc, err ? strerror(-err) : "loaded", reader, compactor);

	t_end = now_s() + secs;
	while (now_s() < t_end) {
		char when[32];

		snprintf(when, sizeof(when), "pass %d", passes + 1);
		bad = verify(when);
		passes++;
		if (bad) {
			bad_passes++;
			ksft_print_msg("%s: %d of %d files differ\n", when, bad, NFILES);
		}
	}
	mig = migrated() - mig0;
	rec = reclaimed() - rec0;
	ksft_print_msg("%d passes in %d s; pages reclaimed +%lld, migrated/scanned +%lld; rxring attempts %lld failures %lld\n",
		       passes, secs, rec, mig, rxring_stat("attempts"), rxring_stat("failures"));
	ksft_test_result(passes >= 2 && !bad_passes,
			 "%d of %d passes under stress read back bit-identical (%d files each)\n",
			 passes - bad_passes, passes, NFILES);
	ksft_test_result(rec > 0 && mig > 0,
			 "the stress reclaimed (+%lld pages) and compacted (+%lld) memory\n", rec, mig);

	stop_child(compactor);
	stop_child(reader);
	write_text(RXRING_CONTROL, "stop");
	if (module_loaded("rxring") && (err = module_unload("rxring")))
		ksft_print_msg("rmmod rxring: %s\n", strerror(-err));
	stop_holder(holder);
	lab_restore_sysctls();

	bad = verify("after the stress");
	err = verify_direct();
	ksft_test_result(!bad && !err,
			 "after the stress: %d of %d files bit-identical, %d of %d disk extents on the disk itself (O_DIRECT)\n",
			 NFILES - bad, NFILES, DISK_FILES - err, DISK_FILES);
	for (f = 0; f < TMP_FILES; f++) {
		char path[64];

		snprintf(path, sizeof(path), TMP_DIR "/f%02d", f);
		unlink(path);
	}
	rmdir(TMP_DIR);
	err = kmsg_first_splat(marker, splat, sizeof(splat)) != NULL;
	ksft_test_result(!err, "no kernel splat logged%s%s\n", err ? ": " : "", err ? splat : "");
	ksft_finished();
}
