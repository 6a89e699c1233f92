// SPDX-License-Identifier: GPL-2.0
/*
 * ladder_reclaim_test: vm.watermark_ladder_reclaim_kbytes, kcompactd's
 * reclaim of the page cache that completes the ladder's blocks where
 * compaction cannot build them.
 *
 * The knob:
 *  - it boots at the documented default 0 (or the command line's value);
 *  - 0, 1, 1024 and 1048576 round-trip; "-1", "1048577", "2147483648",
 *    "abc" and "\n" fail with EINVAL and leave the value it had.
 *
 * The reclaim, on the zone the fragmenter holds (its page cache read from
 * the raw disk: unmovable, so compaction cannot clear it) while rxring
 * makes GFP_ATOMIC order-3 refills at 2000/s with a ring of 512 and
 * streamread streams the disk through the page cache (the benchmark's
 * reader: its cache fills the holes the ring leaves), phases of
 * lab.reclaim_secs (default 8) s on a freshly fragmented zone, the third
 * twice as long (at 8 s it found no block to take in one make check of
 * three):
 *   1. ladder on, reclaim_kbytes=0: compact_daemon_ladder_reclaimed and
 *      compact_daemon_ladder_blocks stay flat (off means v3's kcompactd);
 *   2. ladder off, reclaim_kbytes=1024: both stay flat (nothing runs
 *      without the ladder);
 *   3. ladder on, reclaim_kbytes=1024: if kcompactd gave up on the ladder
 *      at least once (kswapd_ladder_giveup rose) and took a block, both
 *      counters rise (reclaim dropping none of the clean cache it was
 *      given fails), each block taken gave at most half its 8 pages (it was
 *      at least half free: reclaimed <= 4 x blocks), and no more was
 *      reclaimed than the bound allows: 256 pages per zone and pass, and a
 *      pass is counted by kswapd_ladder_giveup or _met. Without a give-up,
 *      or with give-ups that found no half-free block of clean cache (both
 *      counters flat), the phase is a skip with the counts, not a pass.
 *
 * Skips (exit 4) on a kernel without the knob, without the disk, rxring,
 * the fragmenter or streamread.
 * Sysctls are restored.
 */
#include "lab.h"

#define RECLAIM_MAX	1048576L
#define BOUND_KB	1024L

static const char *const counters[] = {
	"compact_daemon_ladder_reclaimed",
	"compact_daemon_ladder_blocks",
	"kswapd_ladder_giveup",
	"kswapd_ladder_met",
};

#define NR_COUNTERS	(sizeof(counters) / sizeof(counters[0]))
#define C_RECLAIMED	0
#define C_BLOCKS	1
#define C_GIVEUP	2
#define C_MET		3

static pid_t holder = -1;
static int secs;

static void read_counters(long long *v)
{
	vmstat_read_list(counters, NR_COUNTERS, v);
}

/* "@text" must be refused with EINVAL while the knob holds 512, which stays */
static void bad_write(const char *text)
{
	char msg[160];
	int ok = sysctl_bad_write(LADDER_RECLAIM, text, 512, msg, sizeof(msg));

	ksft_test_result(ok, "%s\n", msg);
}

/*
 * Fragment afresh with the ladder off, set the phase's knobs, run the ring
 * for secs s; the counters' rises go to @d. Returns the ring's failures, or
 * -1 if the phase could not run.
 */
static long long phase(const char *label, long order, long reclaim_kb, int s,
			long long *d)
{
	char *reader_argv[] = { STREAMREAD, "-o", "512", NULL };
	long long a[NR_COUNTERS], b[NR_COUNTERS], fail;
	unsigned int i;
	pid_t reader;
	int rc;

	stop_holder(holder);
	sysctl_set(LADDER_ORDER, 0);
	rc = run_fragmenter("/tmp/ladder_reclaim.frag", &holder);
	if (holder <= 0 || (rc != 0 && rc != 1)) {
		ksft_print_msg("%s: fragmenter exit %d, no holder\n", label, rc);
		return -1;
	}
	if (sysctl_set(LADDER_RECLAIM, reclaim_kb) || sysctl_set(LADDER_ORDER, order)) {
		ksft_print_msg("%s: cannot set the knobs\n", label);
		return -1;
	}
	read_counters(a);
	if (write_text(RXRING_CONTROL, "start"))
		return -1;
	reader = spawn(reader_argv, "/tmp/ladder_reclaim.stream");
	sleep_s(s);
	fail = rxring_stat("failures");
	write_text(RXRING_CONTROL, "stop");
	stop_child(reader);
	read_counters(b);
	for (i = 0; i < NR_COUNTERS; i++)
		d[i] = b[i] - a[i];
	ksft_print_msg("%s: %lld failures; reclaimed +%lld pages, blocks +%lld, giveup +%lld, met +%lld\n",
		       label, fail, d[C_RECLAIMED], d[C_BLOCKS], d[C_GIVEUP], d[C_MET]);
	return fail;
}

int main(void)
{
	static const long good[] = { 0, 1, BOUND_KB, RECLAIM_MAX };
	static const char *const bad[] = { "-1", "1048577", "2147483648", "abc", "\n" };
	struct lab_zone z[LAB_MAX_ZONES];
	long long d[NR_COUNTERS];
	long boot = -1, want, bound;
	char params[128];
	unsigned int i;
	int nzones;

	ksft_print_header();
	if (access(LADDER_RECLAIM, F_OK))
		lab_skip_all("no %s: kernel without kcompactd's ladder reclaim", LADDER_RECLAIM);
	lab_require(LAB_NEED_DISK | LAB_NEED_RXRING | LAB_NEED_FRAGMENTER);
	if (access(STREAMREAD, X_OK))
		lab_skip_all("no %s", STREAMREAD);
	secs = cmdline_long("reclaim_secs", 8);
	if (lab_save_sysctl(LADDER_RECLAIM) || lab_save_sysctl(LADDER_ORDER) ||
	    sysctl_get(LADDER_RECLAIM, &boot))
		ksft_exit_fail_msg("read the sysctls: %s\n", strerror(errno));
	ksft_set_plan(1 + 4 + 5 + 1 + 2 + 1);

	want = cmdline_param("sysctl.vm.watermark_ladder_reclaim_kbytes", 0);
	ksft_test_result(boot == want, "boots at %ld (is %ld)\n", want, boot);
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		ksft_test_result(!sysctl_set(LADDER_RECLAIM, good[i]) &&
				 sysctl_holds(LADDER_RECLAIM, good[i]),
				 "%ld round-trips\n", good[i]);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		bad_write(bad[i]);

	snprintf(params, sizeof(params),
		 "order=3 rate=2000 ring=512 drain_ms=1000 duration_ms=3600000");
	if (module_load(RXRING_KO, params))
		ksft_exit_fail_msg("cannot load rxring (%s)\n", params);
	ksft_test_result(1, "rxring loads (%s)\n", params);

	/* 1: ladder on, reclaim off */
	if (phase("L=3 reclaim 0", 3, 0, secs, d) < 0)
		ksft_test_result_fail("L=3 reclaim 0: the phase did not run\n");
	else
		ksft_test_result(!d[C_RECLAIMED] && !d[C_BLOCKS],
				 "L=3, reclaim_kbytes=0: no page reclaimed for a block (%lld, %lld blocks)\n",
				 d[C_RECLAIMED], d[C_BLOCKS]);

	/* 2: ladder off, reclaim on */
	if (phase("L=0 reclaim 1024", 0, BOUND_KB, secs, d) < 0)
		ksft_test_result_fail("L=0 reclaim 1024: the phase did not run\n");
	else
		ksft_test_result(!d[C_RECLAIMED] && !d[C_BLOCKS],
				 "L=0, reclaim_kbytes=1024: no page reclaimed for a block (%lld, %lld blocks)\n",
				 d[C_RECLAIMED], d[C_BLOCKS]);

	/* 3: both on */
	nzones = read_zoneinfo(z, LAB_MAX_ZONES);
	if (phase("L=3 reclaim 1024", 3, BOUND_KB, 2 * secs, d) < 0) {
		ksft_test_result_fail("L=3 reclaim 1024: the phase did not run\n");
	} else if (!d[C_GIVEUP] || (!d[C_RECLAIMED] && !d[C_BLOCKS])) {
		ksft_test_result_skip("L=3 reclaim 1024: kcompactd gave up on the ladder %lld times and found no half-free block of clean cache: reclaim not exercised\n",
				      d[C_GIVEUP]);
	} else {
		bound = (d[C_GIVEUP] + d[C_MET]) * nzones * (BOUND_KB / 4);
		ksft_test_result(d[C_RECLAIMED] > 0 && d[C_BLOCKS] > 0 &&
				 d[C_RECLAIMED] <= 4 * d[C_BLOCKS] &&
				 d[C_RECLAIMED] <= bound,
				 "L=3, reclaim_kbytes=1024: %lld pages from %lld half-free blocks (at most 4 each), within the bound of %ld\n",
				 d[C_RECLAIMED], d[C_BLOCKS], bound);
	}

	stop_holder(holder);
	if (module_unload("rxring"))
		ksft_print_msg("rmmod rxring failed\n");
	ksft_finished();
}
