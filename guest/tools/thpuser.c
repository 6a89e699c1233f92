// SPDX-License-Identifier: GPL-2.0
/*
 * thpuser: a program that asks for transparent huge pages over and over,
 * as a JVM growing its heap or a VM's memory being faulted in does, and
 * says what it got and what it waited for (issue 18, item 6).
 *
 * Each cycle maps -m MiB of anonymous memory aligned to 2 MiB, asks for
 * huge pages with madvise(MADV_HUGEPAGE), touches it, and unmaps it, then
 * sleeps -p ms. With THP's defrag=madvise (the kernel's default) the first
 * touch of each 2 MiB chunk is a huge-page fault that may enter direct
 * reclaim and direct compaction before it succeeds or falls back to a
 * 4 KiB page; that first touch is timed (CLOCK_MONOTONIC: guest time,
 * which under -icount does not follow the host). The rest of the chunk is
 * touched too, so a chunk that fell back pays its 511 small faults as a
 * real user would.
 *
 * Huge pages got and fallbacks are counted from /proc/vmstat
 * (thp_fault_alloc, thp_fault_fallback) around each cycle's touches: the
 * scenario has no other THP user, so the counts are this program's.
 *
 * Runs -t seconds or until SIGTERM/SIGINT (the cycle under way is
 * finished), then prints "thpuser: key value" lines:
 *   cycles, chunks, huge, fallback, lat_sum_ns, lat_max_ns,
 *   slow_1ms (first touches over 1 ms), lat_log2_K (first touches of
 *   2^K..2^(K+1) ns).
 * Exits 2 on a kernel without THP (no MADV_HUGEPAGE, no thp_fault_*
 * counters): that is not the scenario. With THP set to "never" it runs
 * and reports huge 0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define HPAGE		(2UL << 20)
#define PAGE		4096UL
#define LAT_BUCKETS	40

static volatile sig_atomic_t stop;

static struct {
	unsigned long cycles, chunks, huge, fallback, slow;
	uint64_t lat_sum, lat_max;
	unsigned long lat_log2[LAT_BUCKETS];
} st;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "thpuser: error: %s: %s\n", what, strerror(errno));
	exit(2);
}

/* thp_fault_alloc and thp_fault_fallback from /proc/vmstat. */
static void thp_counts(unsigned long *alloc, unsigned long *fallback)
{
	char line[128];
	unsigned long v;
	FILE *f = fopen("/proc/vmstat", "r");

	if (!f)
		die("/proc/vmstat");
	*alloc = *fallback = ~0UL;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "thp_fault_alloc %lu", &v) == 1)
			*alloc = v;
		else if (sscanf(line, "thp_fault_fallback %lu", &v) == 1)
			*fallback = v;
	}
	fclose(f);
	if (*alloc == ~0UL || *fallback == ~0UL) {
		fprintf(stderr,
			"thpuser: error: no thp_fault_* in /proc/vmstat (kernel without THP)\n");
		exit(2);
	}
}

static void record(uint64_t ns)
{
	int b = 0;

	st.chunks++;
	st.lat_sum += ns;
	if (ns > st.lat_max)
		st.lat_max = ns;
	if (ns > 1000000)
		st.slow++;
	while (b + 1 < LAT_BUCKETS && (ns >> (b + 1)))
		b++;
	st.lat_log2[b]++;
}

/* One cycle: map, advise, touch (timing each chunk's first touch), unmap. */
static void cycle(size_t bytes)
{
	unsigned long a0, f0, a1, f1;
	size_t off, pg;
	char *raw, *p;

	raw = mmap(NULL, bytes + HPAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (raw == MAP_FAILED)
		die("mmap");
	p = (char *)(((uintptr_t)raw + HPAGE - 1) & ~(HPAGE - 1));
	if (madvise(p, bytes, MADV_HUGEPAGE))
		die("madvise(MADV_HUGEPAGE)");
	thp_counts(&a0, &f0);
	for (off = 0; off < bytes; off += HPAGE) {
		uint64_t t0 = now_ns();

		p[off] = 1;
		record(now_ns() - t0);
		for (pg = PAGE; pg < HPAGE; pg += PAGE)
			p[off + pg] = 1;
	}
	thp_counts(&a1, &f1);
	st.huge += a1 - a0;
	st.fallback += f1 - f0;
	st.cycles++;
	if (munmap(raw, bytes + HPAGE))
		die("munmap");
}

static void report(void)
{
	int b;

	printf("thpuser: cycles %lu\n", st.cycles);
	printf("thpuser: chunks %lu\n", st.chunks);
	printf("thpuser: huge %lu\n", st.huge);
	printf("thpuser: fallback %lu\n", st.fallback);
	printf("thpuser: lat_sum_ns %llu\n", (unsigned long long)st.lat_sum);
	printf("thpuser: lat_max_ns %llu\n", (unsigned long long)st.lat_max);
	printf("thpuser: slow_1ms %lu\n", st.slow);
	for (b = 0; b < LAT_BUCKETS; b++)
		if (st.lat_log2[b])
			printf("thpuser: lat_log2_%d %lu\n", b, st.lat_log2[b]);
	fflush(stdout);
}

static void usage(const char *argv0)
{
	fprintf(stderr, "usage: %s [-m MiB per cycle] [-t secs] [-p pause_ms]\n", argv0);
	exit(2);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	long mib = 32, secs = 3600, pause_ms = 100;
	struct timespec pause_ts;
	uint64_t end;
	int c;

	while ((c = getopt(argc, argv, "m:t:p:")) != -1) {
		switch (c) {
		case 'm':
			mib = atol(optarg);
			break;
		case 't':
			secs = atol(optarg);
			break;
		case 'p':
			pause_ms = atol(optarg);
			break;
		default:
			usage(argv[0]);
		}
	}
	if (mib < 2 || mib > 4096 || mib % 2 || secs < 1 || pause_ms < 0 || pause_ms > 60000)
		usage(argv[0]);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	pause_ts.tv_sec = pause_ms / 1000;
	pause_ts.tv_nsec = (pause_ms % 1000) * 1000000L;
	end = now_ns() + (uint64_t)secs * 1000000000ULL;
	while (!stop && now_ns() < end) {
		cycle((size_t)mib << 20);
		if (!stop)
			nanosleep(&pause_ts, NULL);
	}
	report();
	return 0;
}
