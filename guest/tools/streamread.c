// SPDX-License-Identifier: GPL-2.0
/*
 * streamread: the disk-I/O half of the benchmark scenario.
 *
 * Reads a raw block device (-d, /dev/vda) sequentially through the page
 * cache in 1 MiB chunks, wrapping round at its end, from offset -o MiB,
 * for -t seconds or until SIGTERM/SIGINT.  The device is bigger than
 * memory, so every pass misses in the page cache and keeps kswapd busy
 * reclaiming the clean pages of the pass before: a streaming reader,
 * the load Linus named when asking what a high-order aware kswapd
 * would throw out.
 *
 * Prints "streamread: bytes N secs S mib_per_s R" when it stops; the
 * throughput is the metric (a kswapd that reclaims too much, or stalls
 * the reader, shows here).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CHUNK	(1 << 20)

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	const char *disk = "/dev/vda";
	struct sigaction sa = { .sa_handler = on_signal };
	static char buf[CHUNK];
	long long bytes = 0;
	double secs = 0, t0, t;
	off_t size, pos = 0;
	int c, fd;

	while ((c = getopt(argc, argv, "d:t:o:")) != -1) {
		switch (c) {
		case 'd':
			disk = optarg;
			break;
		case 't':
			secs = atof(optarg);
			break;
		case 'o':
			pos = (off_t)atoll(optarg) << 20;
			break;
		default:
			fprintf(stderr, "usage: %s [-d disk] [-t secs] [-o start_mib]\n", argv[0]);
			return 2;
		}
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	fd = open(disk, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "streamread: %s: %s\n", disk, strerror(errno));
		return 1;
	}
	size = lseek(fd, 0, SEEK_END);
	if (size <= 0) {
		fprintf(stderr, "streamread: %s: no size\n", disk);
		return 1;
	}
	pos %= size;

	t0 = now();
	t = t0;
	while (!stop && (secs <= 0 || t - t0 < secs)) {
		ssize_t r = pread(fd, buf, CHUNK, pos);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "streamread: read: %s\n", strerror(errno));
			return 1;
		}
		pos += r;
		if (r == 0 || pos >= size)
			pos = 0;
		bytes += r;
		t = now();
	}
	t = now() - t0;
	printf("streamread: bytes %lld secs %.3f mib_per_s %.2f\n",
	       bytes, t, t > 0 ? bytes / t / (1 << 20) : 0.0);
	return 0;
}
