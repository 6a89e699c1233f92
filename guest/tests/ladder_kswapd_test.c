// SPDX-License-Identifier: GPL-2.0
/*
 * ladder_kswapd_test: high-order atomic demand on a fragmented zone wakes
 * kswapd through the ladder, and does not when the ladder is off.
 *
 * Scenario: the benchmark's fragmenter (guest/tools/fragmenter.c, -D) puts
 * the biggest zone above its high watermark with (almost) no free block of
 * order >= 3 and holds it there; the rxring module (module/rxring.c) then
 * makes GFP_ATOMIC order-3 refills from softirq at a modest 100/s with a
 * ring of one buffer (each refill lets the previous buffer go): the few
 * order-3 blocks the fragmenter leaves are enough for every request, so
 * the one-block rule is met and stock sees no reason to wake kswapd,
 * while the ladder's order-3 step (low >> 3 pages in blocks >= 3) is not:
 * the ladder alone is short, which is when the series wakes kswapd and
 * counts kswapd_ladder_wake, "before atomic requests fail, not after".
 * vm.watermark_boost_factor is 0 for the test: the fragmenter's fallbacks
 * would boost the watermarks, and a wake while boosted is the boost's, not
 * counted as the ladder's. (lab.kswapd_rate= and lab.kswapd_ring= change
 * rate and ring.) Three
 * phases of lab.kswapd_secs (default 10) s each, each on a freshly
 * fragmented zone (kswapd and kcompactd heal the zone in a phase, so the
 * fragmenter runs again, with the ladder off, before each):
 *   1. vm.watermark_ladder_order=0 (stock): kswapd_ladder_wake,
 *      ladder_reserve_grow and _serve stay flat (the reserve is the
 *      ladder's: with it off, failed and served requests add nothing);
 *   2. L=3 with vm.watermark_ladder_reserve_kbytes as booted (16384): the
 *      rungs plus any reserve that failed refills grow;
 *   3. L=3 with reserve_kbytes=0: the rungs alone, no reserve. The ladder
 *      short of its rungs wakes kswapd with or without a reserve, so
 *      kswapd_ladder_wake rises over 2 and 3; each phase's delta is
 *      printed (they can differ: a reserve makes the top rung harder to
 *      meet, while a zone short of free pages for its reserve wakes
 *      kswapd as a plain wake, not the ladder's).
 * Every second of every phase, /proc/zoneinfo is read: with the ladder on
 * each populated zone prints ladder_reserve, never above min(reserve_kbytes,
 * 1/16 of the zone), so always 0 in phase 3; with it off there is none.
 * Each phase's deltas of the ladder counters, the module's attempts and
 * failures, the largest ladder_reserve total and kswapd0's CPU ticks are
 * printed as TAP diagnostics.
 *
 * Pass rule: the module loads, the fragmenter holds a fragmented zone
 * before every phase (exit 0, or 1 = holding but above its own 2% target),
 * rxring made attempts in every phase, phase 1 wake and reserve-grow deltas
 * == 0, phases 2 + 3 wake delta > 0, every zoneinfo read as above, and no
 * ladder counter ever decreases. Sysctls are restored. Skips (exit 4)
 * without the series, the virtio disk (the fragmenter reads it: boot with
 * scripts/boot.sh --disk) or the module.
 */
#include "lab.h"

/* Indices in ladder_counters[] */
#define C_WAKE		0
#define C_SHORTFALL	4
#define C_SERVE		5

struct phase_result {
	long long d[NR_LADDER_COUNTERS];	/* counter deltas; d[C_WAKE] -1: failed */
	long max_reserve;			/* largest ladder_reserve total */
	int reserve_bad;			/* zoneinfo reads that broke the rule */
};

static int secs;
static pid_t kswapd;
static pid_t holder = -1;	/* the fragmenter's, of the current phase */
static char frag_exits[32];
static long long last[NR_LADDER_COUNTERS];
static int went_down;

static void sample(long long v[NR_LADDER_COUNTERS])
{
	int i;

	read_ladder_counters(v);
	for (i = 0; i < NR_LADDER_COUNTERS; i++) {
		if (v[i] < last[i]) {
			ksft_print_msg("%s went down: %lld -> %lld\n", ladder_counters[i],
				       last[i], v[i]);
			went_down = 1;
		}
		last[i] = v[i];
	}
}

/* One read of the ladder_reserve lines against the knobs (see the top). */
static void check_reserve(const char *label, long order, long cap_kb, struct phase_result *p)
{
	char why[256];
	long total;

	if (!ladder_reserve_ok(order, cap_kb, &total, why, sizeof(why))) {
		if (!p->reserve_bad++)
			ksft_print_msg("%s: %s\n", label, why);
	} else if (total > p->max_reserve) {
		p->max_reserve = total;
	}
}

/*
 * One phase: fragment afresh (ladder off), set the knobs, run rxring for
 * secs; the results in *p (p->d[C_WAKE] = -1 if the phase did not run).
 * *frag_ok is cleared if the fragmenter did not reach its state.
 */
static void phase(const char *label, long order, long reserve, int *frag_ok,
		  struct phase_result *p)
{
	long long a[NR_LADDER_COUNTERS], b[NR_LADDER_COUNTERS];
	long long att, fail, cpu0, cpu, runs0;
	double t0;
	int err, i, s, rc;

	memset(p, 0, sizeof(*p));
	p->d[C_WAKE] = -1;

	stop_holder(holder);
	sysctl_set(LADDER_ORDER, 0);
	t0 = now_s();
	rc = run_fragmenter("/tmp/ladder_kswapd.frag", &holder);
	ksft_print_msg("%s: fragmenter exit %d in %.1f s\n", label, rc, now_s() - t0);
	/* 1 = holding, but above its own target of <= 2% free in order >= 3 */
	if (holder <= 0 || (rc != 0 && rc != 1))
		*frag_ok = 0;
	snprintf(frag_exits + strlen(frag_exits), sizeof(frag_exits) - strlen(frag_exits),
		 "%s%d", *frag_exits ? "," : "", rc);
	/* the cap first: the reserve is 0 from the moment the ladder is on */
	err = sysctl_set(LADDER_RESERVE, reserve);
	if (!err)
		err = sysctl_set(LADDER_ORDER, order);
	if (err) {
		ksft_print_msg("%s: set order=%ld reserve_kbytes=%ld: %s\n", label, order,
			       reserve, strerror(-err));
		return;
	}
	sleep_s(1);	/* let wakes caused by the last phase settle */
	check_reserve(label, order, reserve, p);
	sample(a);
	cpu0 = task_cpu_ticks(kswapd);
	runs0 = vmstat_or("pageoutrun", 0);
	err = write_text(RXRING_CONTROL, "start");
	if (err) {
		ksft_print_msg("%s: rxring start: %s\n", label, strerror(-err));
		return;
	}
	for (s = 0; s < secs; s++) {
		sleep_s(1);
		sample(b);
		check_reserve(label, order, reserve, p);
	}
	/* start zeroes the module's stats: these are this phase's */
	att = rxring_stat("attempts");
	fail = rxring_stat("failures");
	err = write_text(RXRING_CONTROL, "stop");
	if (err)
		ksft_print_msg("%s: rxring stop: %s\n", label, strerror(-err));
	sample(b);
	cpu = task_cpu_ticks(kswapd);
	ksft_print_msg("%s (order %ld reserve_kbytes %ld, %d s): rxring attempts %lld failures %lld, kswapd0 cpu %lld ticks, pageoutrun +%lld, largest ladder_reserve total %ld pages\n",
		       label, order, reserve, secs, att, fail, cpu - cpu0,
		       vmstat_or("pageoutrun", 0) - runs0, p->max_reserve);
	for (i = 0; i < NR_LADDER_COUNTERS; i++) {
		p->d[i] = b[i] - a[i];
		ksft_print_msg("%s:   %-28s +%lld\n", label, ladder_counters[i], p->d[i]);
	}
	if (att <= 0) {
		ksft_print_msg("%s: rxring made no attempt\n", label);
		p->d[C_WAKE] = -1;
	}
}

int main(void)
{
	struct phase_result off, on, bare;
	long long v[NR_LADDER_COUNTERS];
	long reserve0;
	char params[128];
	int err, frag_ok = 1;

	ksft_print_header();
	lab_require(LAB_NEED_DISK | LAB_NEED_RXRING | LAB_NEED_FRAGMENTER);
	secs = cmdline_long("kswapd_secs", 10);
	kswapd = pid_of("kswapd0");
	if (sysctl_get(LADDER_RESERVE, &reserve0) ||
	    lab_save_sysctl(LADDER_ORDER) || lab_save_sysctl(LADDER_RESERVE) ||
	    lab_save_sysctl("/proc/sys/vm/watermark_boost_factor"))
		ksft_exit_fail_msg("read the ladder sysctls: %s\n", strerror(errno));
	if (sysctl_set("/proc/sys/vm/watermark_boost_factor", 0))
		ksft_exit_fail_msg("set vm.watermark_boost_factor=0: %s\n", strerror(errno));
	if (read_ladder_counters(last) != NR_LADDER_COUNTERS)
		ksft_exit_fail_msg("/proc/vmstat lacks the kswapd_ladder_* counters\n");
	ksft_set_plan(7);

	snprintf(params, sizeof(params),
		 "order=3 rate=%ld ring=%ld drain_ms=0 duration_ms=3600000",
		 cmdline_long("kswapd_rate", 100), cmdline_long("kswapd_ring", 1));
	err = module_load(RXRING_KO, params);
	ksft_test_result(!err, "rxring loads (%s)%s%s\n", params, err ? ": " : "",
			 err ? strerror(-err) : "");
	if (err)
		ksft_exit_fail_msg("cannot go on without rxring\n");

	phase("ladder off", 0, reserve0, &frag_ok, &off);
	phase("ladder on", 3, reserve0, &frag_ok, &on);
	phase("no reserve", 3, 0, &frag_ok, &bare);
	ksft_test_result(frag_ok, "zone fragmented before each phase (fragmenter exits %s)\n",
			 frag_exits);
	ksft_test_result(off.d[C_WAKE] == 0, "L=0: kswapd_ladder_wake stays flat (+%lld)\n",
			 off.d[C_WAKE]);
	ksft_test_result(off.d[C_WAKE] >= 0 && off.d[C_SHORTFALL] == 0 &&
			 off.d[C_SERVE] == 0,
			 "L=0: ladder_reserve_grow and _serve stay flat (+%lld, +%lld)\n",
			 off.d[C_SHORTFALL], off.d[C_SERVE]);
	ksft_test_result(on.d[C_WAKE] >= 0 && bare.d[C_WAKE] >= 0 &&
			 on.d[C_WAKE] + bare.d[C_WAKE] > 0,
			 "L=3: kswapd_ladder_wake rises (reserve_kbytes=%ld +%lld, reserve_kbytes=0 +%lld)\n",
			 reserve0, on.d[C_WAKE], bare.d[C_WAKE]);
	ksft_test_result(off.d[C_WAKE] >= 0 && on.d[C_WAKE] >= 0 && bare.d[C_WAKE] >= 0 &&
			 !off.reserve_bad && !on.reserve_bad && !bare.reserve_bad,
			 "ladder_reserve: none at L=0, within its cap at L=3 (largest %ld pages), 0 with reserve_kbytes=0 (largest %ld)\n",
			 on.max_reserve, bare.max_reserve);

	stop_holder(holder);
	err = module_unload("rxring");
	if (err)
		ksft_print_msg("rmmod rxring: %s\n", strerror(-err));
	sample(v);
	ksft_test_result(!went_down, "ladder counters never decreased\n");
	ksft_finished();
}
