// SPDX-License-Identifier: GPL-2.0
/*
 * rel_unreachable: kswapd gives up on a ladder that cannot be met
 * (issue 5, part 2).
 *
 * Scenario, built four times in one boot: L=3, L=0 (stock), L=0, L=3
 * (vm.watermark_ladder_reserve_kbytes as booted: with L=3 the ring's
 * failures grow a reserve on the top rung, which cannot be met either),
 * each for half of the window, so that each
 * setting has one early and one late half (kswapd_failures, compaction
 * deferrals and boosts carry over); vm.watermark_boost_factor=0 so that
 * the fills meet the same watermarks:
 *  1. read 256 MiB of /dev/vda into the page cache;
 *  2. mlock a shared mapping of a memfd 1 MiB at a time until most of the
 *     page cache is reclaimed (file LRU < 32 MiB) and free memory is down
 *     to twice the high watermark. The fill reclaims page cache, so a
 *     kswapd left dormant by the previous setting (kswapd_failures) is
 *     revived and both settings start alike, with kswapd awake-able
 *     (node_unreclaimable 0) and a little page cache to reclaim;
 *  3. with vm.compact_unevictable_allowed=0 (compaction may not move
 *     mlocked pages) and no swap, free every locked page whose PFN is odd
 *     (/proc/self/pagemap, then a one-page FALLOC_FL_PUNCH_HOLE in the
 *     memfd; madvise(2) is not in the guest's tinyconfig): half the memory
 *     comes back as order-0 pages whose buddies stay pinned;
 *  4. rxring (order 3, 2000/s, ring 4096, never drained) takes every free
 *     block of order >= 3 that is left and holds it: free memory is far
 *     above the high watermark, no order-3 block can be made by reclaim
 *     or compaction, and GFP_ATOMIC order-3 demand keeps waking kswapd;
 *  5. for lab.rel_secs / 2 (default 30) s from the moment the demand starts:
 *     kswapd0 CPU time (utime+stime from /proc/<pid>/stat), the ladder
 *     counters, the zones' ladder_reserve total half way (a diagnostic),
 *     and half way through a shell command
 *     (/bin/sh -c 'cat /proc/loadavg') that must finish in 10 s.
 *
 * Every 0.5 s of the window, kswapd0's CPU time and node_unreclaimable
 * are sampled: an interval that starts and ends with node_unreclaimable
 * 0 counts as awake, any other as dormant. Whether kswapd goes dormant
 * (MAX_RECLAIM_RETRIES runs without progress) depends on how much page
 * cache the fill happened to leave, on either setting: in make check
 * runs stock's kswapd went dormant in one of its halves and the ladder's
 * in neither as often as the other way round, and a sum over the window
 * then compared a dormant half with an awake one. So the CPU rule
 * compares what kswapd costs while it is awake, and the dormant time of
 * each setting is reported beside it.
 *
 * Pass rule: every half reaches the scenario half way through (free >
 * high, free pages in blocks >= order 3 below low >> 3); each setting has
 * at least 1 s awake (the fill revives kswapd, so both start awake);
 * kswapd CPU per awake second with L=3 <= 2x that with L=0 plus 50 ticks
 * over the window (0.5 s: tick granularity); the shell command completes
 * in every half; kswapd_ladder_giveup rises with L=3; no ladder counter
 * decreases; no kernel splat is logged.
 * Sysctls are restored. Skips without the series, the disk or the module.
 */
#define _GNU_SOURCE
#include <linux/falloc.h>
#include <stdint.h>
#include <sys/mman.h>

#include "lab.h"

#define PAGE_SZ		4096UL
#define CHUNK		(1UL << 20)
#define PAGECACHE_MB	256
#define CMD_TIMEOUT	10.0

struct result {
	long long cpu;			/* kswapd0 ticks over the window */
	long long awake_cpu, dormant_cpu;	/* ticks, split as below */
	double awake_s, dormant_s;	/* node_unreclaimable 0 / not */
	long long d[NR_LADDER_COUNTERS];
	double cmd_secs;		/* -1: did not complete */
	int reached;
	long free, high, low, ge1, ge3;
	long reserve;			/* ladder_reserve pages, -1: no line */
	long locked_mb, freed_mb;
	long long rx_held, rx_fail;
};

static long long last[NR_LADDER_COUNTERS];
static int went_down;
static pid_t kswapd;

static void sample(long long v[NR_LADDER_COUNTERS])
{
	int i;

	read_ladder_counters(v);
	for (i = 0; i < NR_LADDER_COUNTERS; i++) {
		if (v[i] < last[i])
			went_down = 1;
		last[i] = v[i];
	}
}

/* Free pages and file LRU pages, from one read of /proc/vmstat. */
static void free_and_file(long long *free, long long *file)
{
	char line[256], key[128];
	long long v;
	FILE *f = fopen("/proc/vmstat", "r");

	*free = *file = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%127s %lld", key, &v) == 2) {
			if (!strcmp(key, "nr_free_pages"))
				*free = v;
			else if (!strcmp(key, "nr_inactive_file") || !strcmp(key, "nr_active_file"))
				*file += v;
		}
	fclose(f);
}

/*
 * Read 256 MiB of the disk into the page cache. The disk stays open for
 * the whole test: the last close of a block device truncates its page
 * cache (kill_bdev()), which would undo the read at once.
 */
static void read_pagecache(int phase)
{
	static char buf[1 << 20];
	static int fd = -1;
	int i;

	if (fd < 0)
		fd = open(LAB_DISK, O_RDONLY);
	if (fd < 0) {
		ksft_print_msg("open %s: %s\n", LAB_DISK, strerror(errno));
		return;
	}
	for (i = 0; i < PAGECACHE_MB; i++)
		if (pread(fd, buf, sizeof(buf), ((off_t)phase * PAGECACHE_MB + i) << 20) <= 0) {
			ksft_print_msg("read %s: %s\n", LAB_DISK, strerror(errno));
			break;
		}
}

/*
 * Step 2: mlock chunks until free <= 2 high and the page cache is nearly
 * gone. The watermarks are read at every step: a boost (after the
 * previous setting's fragmentation events) raises them for a while.
 */
static size_t fill(char *region, size_t len)
{
	const char *why = "region full";
	long long free = 0, file = 0;
	long zfree, min = 0, low, high = 0;
	size_t off;

	for (off = 0; off + CHUNK <= len; off += CHUNK) {
		free_and_file(&free, &file);
		zone_totals(&zfree, &min, &low, &high);
		/*
		 * Leave some page cache: kswapd then ends the fill with a
		 * successful run (kswapd_failures = 0) instead of failing
		 * on an empty LRU until the node is declared unreclaimable
		 * and no longer woken at all.
		 */
		if (free <= 2 * high && file < 8192) {
			why = "free <= 2 high, page cache < 32 MiB";
			break;
		}
		/* nothing much left to reclaim: stop short of the OOM killer */
		if (file < 2048 || (free <= min + 512 && file < 16384)) {
			why = "page cache < 8 MiB, or < 64 MiB with free <= min + 512";
			break;
		}
		if (mlock(region + off, CHUNK)) {
			ksft_print_msg("mlock at %zu MiB: %s\n", off >> 20, strerror(errno));
			why = "mlock failed";
			break;
		}
	}
	ksft_print_msg("fill: %zu MiB locked, stopped at free %lld file %lld (min %ld high %ld): %s\n",
		       off >> 20, free, file, min, high, why);
	return off;
}

/* Step 3: free the locked pages with an odd PFN; pages freed, or -1. */
static long punch(int memfd, char *region, size_t len)
{
	size_t npages = len / PAGE_SZ, i, done = 0;
	uint64_t *map = malloc(npages * sizeof(*map));
	int fd = open("/proc/self/pagemap", O_RDONLY);
	long freed = 0, nopfn = 0;

	if (!map || fd < 0) {
		ksft_print_msg("pagemap: %s\n", strerror(errno));
		free(map);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while (done < npages * sizeof(*map)) {
		ssize_t n = pread(fd, (char *)map + done, npages * sizeof(*map) - done,
				  ((uintptr_t)region / PAGE_SZ) * sizeof(*map) + done);

		if (n <= 0) {
			ksft_print_msg("read pagemap: %s\n", n ? strerror(errno) : "short");
			break;
		}
		done += n;
	}
	close(fd);
	for (i = 0; i < done / sizeof(*map); i++) {
		uint64_t pfn = map[i] & ((1ULL << 55) - 1);

		if (!(map[i] >> 63) || !pfn) {
			nopfn++;
			continue;
		}
		if (!(pfn & 1))
			continue;
		if (fallocate(memfd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			      (off_t)i * PAGE_SZ, PAGE_SZ)) {
			ksft_print_msg("fallocate(PUNCH_HOLE): %s\n", strerror(errno));
			free(map);
			return -1;
		}
		freed++;
	}
	free(map);
	if (nopfn > (long)npages / 2) {
		ksft_print_msg("pagemap shows no PFN for %ld of %zu pages\n", nopfn, npages);
		return -1;
	}
	return freed;
}

/* Run the shell command; seconds it took, -1 if it did not finish. */
static double shell_command(void)
{
	char *argv[] = { "/bin/sh", "-c", "cat /proc/loadavg", NULL };
	double t0 = now_s();
	pid_t pid = spawn(argv, "/tmp/rel_unreachable.cmd");
	int status;

	if (pid < 0)
		return -1;
	while (now_s() - t0 < CMD_TIMEOUT) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return WIFEXITED(status) && !WEXITSTATUS(status) ? now_s() - t0 : -1;
		sleep_s(0.05);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return -1;
}

static int node_unreclaimable(void)
{
	static char buf[1 << 16];
	char *p;

	if (read_text("/proc/zoneinfo", buf, sizeof(buf)) <= 0)
		return -1;
	p = strstr(buf, "node_unreclaimable:");
	return p ? atoi(p + strlen("node_unreclaimable:")) : -1;
}

/* The last sample of kswapd0's CPU time and node_unreclaimable. */
static struct {
	double t;
	long long cpu;
	int unreclaimable;
} seen;

static void watch_start(void)
{
	seen.t = now_s();
	seen.cpu = task_cpu_ticks(kswapd);
	seen.unreclaimable = node_unreclaimable();
}

/* Charge the interval since the last sample to awake or dormant. */
static void watch_sample(struct result *r)
{
	double t = now_s();
	long long cpu = task_cpu_ticks(kswapd);
	int unreclaimable = node_unreclaimable();

	if (!seen.unreclaimable && !unreclaimable) {
		r->awake_cpu += cpu - seen.cpu;
		r->awake_s += t - seen.t;
	} else {
		r->dormant_cpu += cpu - seen.cpu;
		r->dormant_s += t - seen.t;
	}
	seen.t = t;
	seen.cpu = cpu;
	seen.unreclaimable = unreclaimable;
}

static void watch_until(struct result *r, double until)
{
	double left;

	while ((left = until - now_s()) > 0) {
		sleep_s(left < 0.5 ? left : 0.5);
		watch_sample(r);
	}
}

static void scenario_state(struct result *r)
{
	struct lab_zone z[LAB_MAX_ZONES];
	int n = read_zoneinfo(z, LAB_MAX_ZONES), i;

	r->free = r->high = r->low = r->ge1 = r->ge3 = 0;
	r->reserve = -1;
	if (n <= 0 || read_buddyinfo(z, n))
		return;
	for (i = 0; i < n; i++) {
		if (!z[i].present)
			continue;
		if (z[i].reserve >= 0)
			r->reserve = (r->reserve < 0 ? 0 : r->reserve) + z[i].reserve;
		r->free += z[i].free;
		r->high += z[i].high;
		r->low += z[i].low;
		r->ge1 += free_ge(&z[i], 1);
		r->ge3 += free_ge(&z[i], 3);
	}
	r->reached = r->free > r->high && r->ge3 < (r->low >> 3);
}

static int run_setting(int phase, long order, int secs, struct result *r)
{
	long long a[NR_LADDER_COUNTERS], b[NR_LADDER_COUNTERS];
	long freed;
	size_t len = (size_t)meminfo_kb("MemTotal") * 1024, locked;
	char params[160], *region;
	double t0;
	int err, i, memfd;

	memset(r, 0, sizeof(*r));
	r->cmd_secs = -1;
	err = sysctl_set(LADDER_ORDER, order);
	if (err) {
		ksft_print_msg("set ladder order=%ld: %s\n", order, strerror(-err));
		return -1;
	}
	read_pagecache(phase);
	{
		long long free, file;

		free_and_file(&free, &file);
		ksft_print_msg("L=%ld: after reading %d MiB of %s: free %lld, file LRU %lld pages\n",
			       order, PAGECACHE_MB, LAB_DISK, free, file);
	}
	memfd = memfd_create("rel_unreachable", MFD_CLOEXEC);
	if (memfd < 0 || ftruncate(memfd, len)) {
		ksft_print_msg("memfd of %zu MiB: %s\n", len >> 20, strerror(errno));
		if (memfd >= 0)
			close(memfd);
		return -1;
	}
	region = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
	if (region == MAP_FAILED) {
		ksft_print_msg("mmap %zu MiB: %s\n", len >> 20, strerror(errno));
		close(memfd);
		return -1;
	}
	locked = fill(region, len);
	freed = punch(memfd, region, locked);
	r->locked_mb = locked >> 20;
	r->freed_mb = freed > 0 ? freed * PAGE_SZ >> 20 : 0;

	snprintf(params, sizeof(params),
		 "order=3 rate=2000 ring=4096 drain_ms=0 duration_ms=%d autostart=1",
		 (secs + 60) * 1000);
	/* the window starts before the demand: kswapd's first efforts count */
	sample(a);
	r->cpu = task_cpu_ticks(kswapd);
	watch_start();
	ksft_print_msg("L=%ld: node_unreclaimable %d before the demand starts\n", order,
		       node_unreclaimable());
	t0 = now_s();
	err = freed < 0 ? -EIO : module_load(RXRING_KO, params);
	if (err) {
		ksft_print_msg("L=%ld: %s\n", order, freed < 0 ? "punch failed" : strerror(-err));
		munmap(region, len);
		close(memfd);
		return -1;
	}
	/*
	 * Half way, the ring has taken the blocks of order >= 3 that were
	 * left and those made from the last page cache reclaimed.
	 */
	watch_until(r, t0 + secs / 2.0);
	scenario_state(r);
	ksft_print_msg("L=%ld: locked %ld MiB, freed %ld MiB; half way: free %ld (high %ld), in blocks >=1: %ld, >=3: %ld (low>>3 = %ld); ladder_reserve %ld; ring holds %lld; node_unreclaimable %d\n",
		       order, r->locked_mb, r->freed_mb, r->free, r->high, r->ge1, r->ge3,
		       r->low >> 3, r->reserve, rxring_stat("held"), node_unreclaimable());
	r->cmd_secs = shell_command();
	watch_until(r, t0 + secs);
	watch_sample(r);
	r->cpu = seen.cpu - r->cpu;
	sample(b);
	for (i = 0; i < NR_LADDER_COUNTERS; i++)
		r->d[i] = b[i] - a[i];
	r->rx_held = rxring_stat("held");
	r->rx_fail = rxring_stat("failures");
	ksft_print_msg("L=%ld: kswapd0 cpu %.2f s over %d s (awake %.1f s: %.2f s, dormant %.1f s: %.2f s); shell command %s%.2f s; node_unreclaimable %d\n",
		       order, r->cpu / (double)sysconf(_SC_CLK_TCK), secs,
		       r->awake_s, r->awake_cpu / (double)sysconf(_SC_CLK_TCK),
		       r->dormant_s, r->dormant_cpu / (double)sysconf(_SC_CLK_TCK),
		       r->cmd_secs < 0 ? "FAILED after " : "", r->cmd_secs < 0 ? CMD_TIMEOUT : r->cmd_secs,
		       node_unreclaimable());
	for (i = 0; i < NR_LADDER_COUNTERS; i++)
		ksft_print_msg("L=%ld:   %-28s +%lld\n", order, ladder_counters[i], r->d[i]);
	ksft_print_msg("L=%ld: rxring held %lld failures %lld; pageoutrun %lld compact_stall %lld\n",
		       order, r->rx_held, r->rx_fail, vmstat_or("pageoutrun", -1),
		       vmstat_or("compact_stall", -1));

	write_text(RXRING_CONTROL, "stop");
	err = module_unload("rxring");
	if (err)
		ksft_print_msg("rmmod rxring: %s\n", strerror(-err));
	munmap(region, len);
	close(memfd);	/* the last reference: the memfd's pages are freed */
	sleep_s(1);
	return 0;
}

int main(void)
{
	const char marker[] = "rel_unreachable: start";
	struct result on, off;
	long tck = sysconf(_SC_CLK_TCK);
	double rate_on, rate_off;
	char splat[512];
	int secs, ok_on, ok_off, bad, i, k;

	ksft_print_header();
	lab_require(LAB_NEED_DISK | LAB_NEED_RXRING);
	if (read_ladder_counters(last) != NR_LADDER_COUNTERS)
		ksft_exit_fail_msg("/proc/vmstat lacks the kswapd_ladder_* counters\n");
	secs = cmdline_long("rel_secs", 60);
	kswapd = pid_of("kswapd0");
	if (kswapd < 0)
		ksft_exit_fail_msg("no kswapd0 thread\n");
	if (lab_save_sysctl(LADDER_ORDER) ||
	    lab_save_sysctl("/proc/sys/vm/compact_unevictable_allowed") ||
	    lab_save_sysctl("/proc/sys/vm/watermark_boost_factor"))
		ksft_exit_fail_msg("cannot save the sysctls\n");
	if (sysctl_set("/proc/sys/vm/compact_unevictable_allowed", 0))
		ksft_exit_fail_msg("set vm.compact_unevictable_allowed=0: %s\n", strerror(errno));
	/* no boost: both settings fill against the same watermarks */
	if (sysctl_set("/proc/sys/vm/watermark_boost_factor", 0))
		ksft_exit_fail_msg("set vm.watermark_boost_factor=0: %s\n", strerror(errno));
	kmsg_mark("rel_unreachable: start\n");
	ksft_set_plan(7);

	/*
	 * A-B-B-A: the setting that goes first meets a fresh kswapd and
	 * leaves state behind (deferrals, kswapd_failures), so each setting
	 * gets one early and one late half of its window.
	 */
	memset(&on, 0, sizeof(on));
	memset(&off, 0, sizeof(off));
	on.reached = off.reached = 1;
	ok_on = ok_off = 1;
	for (i = 0; i < 4; i++) {
		int ladder = i == 0 || i == 3;
		struct result *sum = ladder ? &on : &off, r;

		if (run_setting(i, ladder ? 3 : 0, secs / 2, &r)) {
			*(ladder ? &ok_on : &ok_off) = 0;
			continue;
		}
		sum->cpu += r.cpu;
		sum->awake_cpu += r.awake_cpu;
		sum->awake_s += r.awake_s;
		sum->dormant_cpu += r.dormant_cpu;
		sum->dormant_s += r.dormant_s;
		for (k = 0; k < NR_LADDER_COUNTERS; k++)
			sum->d[k] += r.d[k];
		if (!r.reached || r.ge3 >= sum->ge3) {
			sum->free = r.free;
			sum->high = r.high;
			sum->ge3 = r.ge3;
		}
		sum->reached &= r.reached;
		if (r.cmd_secs < 0 || sum->cmd_secs < 0)
			sum->cmd_secs = -1;
		else if (r.cmd_secs > sum->cmd_secs)
			sum->cmd_secs = r.cmd_secs;
	}
	lab_restore_sysctls();

	ksft_test_result(ok_on && on.reached,
			 "L=3: ladder unreachable in both halves: free %ld > high %ld, %ld pages in blocks >= 3\n",
			 on.free, on.high, on.ge3);
	ksft_test_result(ok_off && off.reached,
			 "L=0: same scenario in both halves: free %ld > high %ld, %ld pages in blocks >= 3\n",
			 off.free, off.high, off.ge3);
	/* ticks per awake second; the 0.5 s of slack spread over the window */
	rate_on = on.awake_s > 0 ? on.awake_cpu / on.awake_s : 0;
	rate_off = off.awake_s > 0 ? off.awake_cpu / off.awake_s : 0;
	ksft_test_result(ok_on && ok_off && on.awake_s >= 1 && off.awake_s >= 1 &&
			 rate_on <= 2 * rate_off + tck / 2.0 / secs,
			 "kswapd0 CPU per awake second: L=3 %.3f <= 2 x L=0 %.3f (+%.3f); awake L=3 %.1f s, L=0 %.1f s (need 1 s each); all %d s: L=3 %.2f s (dormant %.1f s: %.2f s), L=0 %.2f s (dormant %.1f s: %.2f s)\n",
			 rate_on / tck, rate_off / tck, 0.5 / secs, on.awake_s, off.awake_s, secs,
			 on.cpu / (double)tck, on.dormant_s, on.dormant_cpu / (double)tck,
			 off.cpu / (double)tck, off.dormant_s, off.dormant_cpu / (double)tck);
	ksft_test_result(on.cmd_secs >= 0 && off.cmd_secs >= 0,
			 "a shell command completes (L=3 %.2f s, L=0 %.2f s; limit %.0f s)\n",
			 on.cmd_secs, off.cmd_secs, CMD_TIMEOUT);
	ksft_test_result(ok_on && on.d[2] > 0, "L=3: kswapd_ladder_giveup rose (+%lld)\n", on.d[2]);
	ksft_test_result(!went_down, "ladder counters never decreased\n");
	bad = kmsg_first_splat(marker, splat, sizeof(splat)) != NULL;
	ksft_test_result(!bad, "no kernel splat logged%s%s\n", bad ? ": " : "", bad ? splat : "");
	ksft_finished();
}
