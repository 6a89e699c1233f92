// SPDX-License-Identifier: GPL-2.0
/*
 * ladder_floor_test: vm.watermark_ladder_reserve_min_kbytes, the floor of
 * the ladder's reserve that is held before any demand has sized it.
 *
 * The knob:
 *  - it boots at the documented default 0 (or the command line's value);
 *  - 0, 1, 65536 and 2147483647 round-trip; "-1", "2147483648", "abc" and
 *    "\n" fail with EINVAL and leave the value it had.
 *
 * The floor, on memory that streamread has filled with page cache down to
 * the watermarks (the test holds the disk open, as the last close of a
 * block device drops its cache), the reader stopped and nothing else
 * allocating, so that nothing but the write of the floor can wake kswapd:
 *  1. ladder off: once the counters have stood still for QUIET_S s after
 *     the fill, a floor of FLOOR_KB wakes nothing: pgscan_kswapd,
 *     kswapd_ladder_wake and compact_daemon_wake stay flat for WAIT_S s
 *     after the write;
 *  2. ladder on (order 3, cap FLOOR_KB), floor 0: the zone atomic requests
 *     try first on node 0 (the highest populated one up to ZONE_NORMAL)
 *     shows a reserve of 0 (no floor before it is written, nothing here
 *     sizes one) and lacks what the floor would hold (else the build
 *     cannot be told, and the rest is a skip that says so);
 *  3. the write of the floor: that zone's ladder_reserve line is at least
 *     the floor, FLOOR_KB in pages within the cap (the sysctl and 1/16 of
 *     the zone; a request served there may add demand), and every other
 *     zone's is 0;
 *  4. and builds it within BUILD_S s: that zone's free pages reach its
 *     high watermark plus the floor, those in blocks of order 3 or more
 *     reach the floor, and the daemons ran (pgscan_kswapd,
 *     kswapd_ladder_wake or compact_daemon_wake rose).
 *
 * Skips (exit 4) on a kernel without the knob, without the disk or
 * streamread. Sysctls are restored.
 */
#include "lab.h"

#define FLOOR_KB	65536L
#define FILL_S		8
#define WAIT_S		4
#define QUIET_S		2
#define BUILD_S		20

static const char *const counters[] = {
	"pgscan_kswapd",
	"kswapd_ladder_wake",
	"compact_daemon_wake",
};

#define NR_COUNTERS	(sizeof(counters) / sizeof(counters[0]))

static void read_counters(long long *v)
{
	vmstat_read_list(counters, NR_COUNTERS, v);
}

/* "@text" must be refused with EINVAL while the knob holds 512, which stays */
static void bad_write(const char *text)
{
	char msg[160];
	int ok = sysctl_bad_write(LADDER_FLOOR, text, 512, msg, sizeof(msg));

	ksft_test_result(ok, "%s\n", msg);
}

/* Node 0's highest populated zone up to Normal: atomic requests go first */
static int atomic_zone(const struct lab_zone *z, int n)
{
	static const char *const names[] = { "Normal", "DMA32", "DMA" };
	unsigned int k;
	int i;

	for (k = 0; k < sizeof(names) / sizeof(names[0]); k++)
		for (i = 0; i < n; i++)
			if (!z[i].node && !strcmp(z[i].name, names[k]) &&
			    z[i].managed > 0)
				return i;
	return -1;
}

/* Wait (up to 30 s) until the counters stand still for QUIET_S s */
static void quiesce(void)
{
	long long a[NR_COUNTERS], b[NR_COUNTERS];
	double start = now_s();

	read_counters(a);
	while (now_s() - start < 30) {
		sleep_s(QUIET_S);
		read_counters(b);
		if (!memcmp(a, b, sizeof(a)))
			return;
		memcpy(a, b, sizeof(a));
	}
	ksft_print_msg("the counters did not settle in 30 s\n");
}

/* The floor @z holds: @floor_kb in pages, within the cap */
static long floor_pages(const struct lab_zone *z, long floor_kb)
{
	long pages = floor_kb / (getpagesize() / 1024);
	long cap = ladder_reserve_cap(z, FLOOR_KB);

	return pages < cap ? pages : cap;
}

/* Fill memory with page cache, then let kswapd and the reader settle */
static int fill_cache(void)
{
	char secs[16];
	char *argv[] = { STREAMREAD, "-t", secs, NULL };

	snprintf(secs, sizeof(secs), "%d", FILL_S);
	if (run_wait(argv, "/tmp/ladder_floor.stream")) {
		ksft_print_msg("streamread failed\n");
		return -1;
	}
	sleep_s(3);
	return 0;
}

static int zones_now(struct lab_zone *z)
{
	int n = read_zoneinfo(z, LAB_MAX_ZONES);

	if (n > 0 && read_buddyinfo(z, n) < 0)
		return -1;
	return n;
}

int main(void)
{
	static const long good[] = { 0, 1, FLOOR_KB, 2147483647L };
	static const char *const bad[] = { "-1", "2147483648", "abc", "\n" };
	struct lab_zone z[LAB_MAX_ZONES];
	long long a[NR_COUNTERS], b[NR_COUNTERS];
	long boot = -1, want, share = 0, ge3 = 0;
	int n, i, t, shares_ok, built = 0, disk;
	double start;
	unsigned int k;

	ksft_print_header();
	if (access(LADDER_FLOOR, F_OK))
		lab_skip_all("no %s: kernel without the ladder's reserve floor",
			     LADDER_FLOOR);
	lab_require(LAB_NEED_DISK);
	if (access(STREAMREAD, X_OK))
		lab_skip_all("no %s", STREAMREAD);
	if (lab_save_sysctl(LADDER_FLOOR) || lab_save_sysctl(LADDER_ORDER) ||
	    lab_save_sysctl(LADDER_RESERVE) || sysctl_get(LADDER_FLOOR, &boot))
		ksft_exit_fail_msg("read the sysctls: %s\n", strerror(errno));
	disk = open(LAB_DISK, O_RDONLY);
	if (disk < 0)
		ksft_exit_fail_msg("open %s: %s\n", LAB_DISK, strerror(errno));
	ksft_set_plan(1 + 4 + 4 + 4);

	want = cmdline_param("sysctl.vm.watermark_ladder_reserve_min_kbytes", 0);
	ksft_test_result(boot == want, "boots at %ld (is %ld)\n", want, boot);
	for (k = 0; k < sizeof(good) / sizeof(good[0]); k++)
		ksft_test_result(!sysctl_set(LADDER_FLOOR, good[k]) &&
				 sysctl_holds(LADDER_FLOOR, good[k]),
				 "%ld round-trips\n", good[k]);
	for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++)
		bad_write(bad[k]);

	/* 1: ladder off */
	if (sysctl_set(LADDER_FLOOR, 0) || sysctl_set(LADDER_ORDER, 0) ||
	    sysctl_set(LADDER_RESERVE, FLOOR_KB) || fill_cache())
		ksft_exit_fail_msg("cannot set up the ladder-off case\n");
	quiesce();
	read_counters(a);
	if (sysctl_set(LADDER_FLOOR, FLOOR_KB))
		ksft_exit_fail_msg("cannot set the floor\n");
	sleep_s(WAIT_S);
	read_counters(b);
	ksft_print_msg("ladder off, floor %ld kB: pgscan_kswapd +%lld, kswapd_ladder_wake +%lld, compact_daemon_wake +%lld\n",
		       FLOOR_KB, b[0] - a[0], b[1] - a[1], b[2] - a[2]);
	ksft_test_result(a[0] == b[0] && a[1] == b[1] && a[2] == b[2],
			 "ladder off: a floor wakes neither kswapd nor kcompactd\n");

	/* 2: ladder on, no floor: the zone lacks what the floor would hold */
	if (sysctl_set(LADDER_FLOOR, 0) || sysctl_set(LADDER_ORDER, 3) ||
	    fill_cache())
		ksft_exit_fail_msg("cannot set up the ladder-on case\n");
	n = zones_now(z);
	t = n > 0 ? atomic_zone(z, n) : -1;
	if (t < 0)
		ksft_exit_fail_msg("no zone for atomic requests in /proc/zoneinfo\n");
	share = floor_pages(&z[t], FLOOR_KB);
	ge3 = free_ge(&z[t], 3);
	ksft_print_msg("zone %s before the floor: free %ld, high %ld, free in blocks >= order 3 %ld, floor %ld\n",
		       z[t].name, z[t].free, z[t].high, ge3, share);
	if (z[t].free >= z[t].high + share && ge3 >= share) {
		ksft_test_result_skip("zone %s holds the floor (%ld pages) already: the build cannot be told\n",
				      z[t].name, share);
		ksft_test_result_skip("where the floor is held (nothing to build)\n");
		ksft_test_result_skip("the build (nothing to build)\n");
		close(disk);
		ksft_finished();
	}
	ksft_test_result(share > 0 && z[t].reserve == 0,
			 "zone %s shows a reserve of %ld before the write (want 0), and lacks the floor's %ld pages\n",
			 z[t].name, z[t].reserve, share);

	/* 3: where the floor is held */
	read_counters(a);
	if (sysctl_set(LADDER_FLOOR, FLOOR_KB))
		ksft_exit_fail_msg("cannot set the floor\n");
	n = zones_now(z);
	shares_ok = n > 0;
	for (i = 0; i < n; i++) {
		if (z[i].managed <= 0)
			continue;
		want = i == t ? share : 0;
		ksft_print_msg("zone %s: managed %ld, ladder_reserve %ld, want %s%ld\n",
			       z[i].name, z[i].managed, z[i].reserve,
			       i == t ? ">= " : "", want);
		/* demand served there may add to the floor; elsewhere none */
		if (i == t ? z[i].reserve < want : z[i].reserve != want)
			shares_ok = 0;
	}
	ksft_test_result(shares_ok, "zone %s holds the floor of %ld kB (%ld pages), no other zone a reserve\n",
			 z[t].name, FLOOR_KB, share);

	/* 4: the build */
	start = now_s();
	while (now_s() - start < BUILD_S) {
		n = zones_now(z);
		if (n <= 0)
			break;
		ge3 = free_ge(&z[t], 3);
		if (z[t].free >= z[t].high + share && ge3 >= share) {
			built = 1;
			break;
		}
		sleep_s(0.5);
	}
	read_counters(b);
	ksft_print_msg("zone %s after %.1f s: free %ld (high %ld + floor %ld), in blocks >= order 3 %ld; pgscan_kswapd +%lld, kswapd_ladder_wake +%lld, compact_daemon_wake +%lld\n",
		       z[t].name, now_s() - start, z[t].free, z[t].high, share, ge3,
		       b[0] - a[0], b[1] - a[1], b[2] - a[2]);
	ksft_test_result(built && (b[0] > a[0] || b[1] > a[1] || b[2] > a[2]),
			 "the write builds the floor in zone %s within %d s (the daemons ran)\n",
			 z[t].name, BUILD_S);
	close(disk);
	ksft_finished();
}
