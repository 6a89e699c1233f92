// SPDX-License-Identifier: GPL-2.0
/*
 * ladder_reserve_test: with the ladder off nothing of the series moves; with
 * it on, failed atomic requests grow a reserve that is capped, decays and
 * is forgotten when the ladder is switched, and served ones size it to the
 * pages they took in a window.
 *
 * Scenario: the benchmark's fragmenter (guest/tools/fragmenter.c) holds the
 * biggest zone fragmented, and the rxring module makes GFP_ATOMIC order-3
 * refills from softirq at the benchmark's 2000/s with a ring of 512 buffers,
 * more than the few order-3 blocks left, so requests fail. Each demand
 * phase lasts lab.reserve_secs (default 8) s on a freshly fragmented zone.
 *
 *   1. vm.watermark_ladder_order=0: the series' counters (kswapd_ladder_wake,
 *      _met, _giveup, ladder_reserve_grow, _serve) stay flat, and /proc/zoneinfo shows no
 *      ladder and no reserve. alloc_nowait_highorder_fail counts with the
 *      ladder off too: printed, not asserted.
 *   2. vm.watermark_ladder_order=3, reserve cap at its default: requests
 *      fail, ladder_reserve_grow and _serve rise (served requests may take
 *      the reserve to its cap before one fails), a zone's reserve grows
 *      above 0,
 *      and no zone's reserve exceeds the cap (the sysctl, and 1/16 of the
 *      zone's managed pages).
 *      With ten failures or more while the ring first fills (a quarter of
 *      a second, before any decay), the reserve, doubled by each, has
 *      reached half its zone's cap at least once.
 *   3. vm.watermark_ladder_reserve_kbytes=0 with a reserve standing: every
 *      reserve reads 0 at once (the cap applies when read).
 *   4. A change of vm.watermark_ladder_order (3 to 4) forgets every reserve.
 *      Then 3 s of the ring at L=4, on the zone still fragmented: its
 *      order-3 requests are below the top rung, so failed ones grow the
 *      reserve (ladder_reserve_grow rises) and served ones do not
 *      (ladder_reserve_serve stays flat). No failure is a skip.
 *   5. Decay: after 3 s of demand, the largest reserve R0; after
 *      two half-lives (2 s each) and a margin, at most R0 / 2 is left.
 *   6. Hold: grow a reserve R0 on a fragmented zone, then end the
 *      fragmenter so the ring's requests are served, and keep the ring
 *      going for two half-lives and a margin: served demand holds the
 *      reserve, so more than R0 / 2 is left. A request that fails in
 *      that time grows the reserve itself: then the hold is not tested
 *      (a skip with the count, not a pass).
 *   7. Served demand alone: on the zone left healthy by 6, the reserve
 *      forgotten (order 3 to 4 to 3), the ring at SERVE_RATE refills a
 *      second with a ring of 16, none failing: ladder_reserve_serve rises,
 *      ladder_reserve_grow does not, and the largest reserve is about one
 *      window's (a second's) pages, between half and twice SERVE_RATE * 8:
 *      a window that never ended would take it to 4 s worth.
 *
 * Skips (exit 4) without the series, the virtio disk (the fragmenter reads
 * it: boot with scripts/boot.sh --disk) or the module. A phase 2 without a
 * single failed request cannot test growth: that result is a skip with the
 * reason, not a pass. Sysctls are restored.
 */
#include "lab.h"

#define COUNTER_GROW	4	/* ladder_reserve_grow, index in ladder_counters */
#define COUNTER_SERVE	5	/* ladder_reserve_serve */
/* Phase 7's ring: order-3 refills per second, so 8 times as many pages */
#define SERVE_RATE	50

static int secs;
static pid_t holder = -1;
static int frag_ok = 1;

/* The series' own counters: every ladder counter but the failure count. */
static int series_counters_flat(const long long *a, const long long *b)
{
	int i, flat = 1;

	for (i = 0; i < NR_LADDER_COUNTERS; i++) {
		if (!strcmp(ladder_counters[i], "alloc_nowait_highorder_fail"))
			continue;
		if (a[i] != b[i]) {
			ksft_print_msg("%s moved with the ladder off: %lld -> %lld\n",
				       ladder_counters[i], a[i], b[i]);
			flat = 0;
		}
	}
	return flat;
}

struct reserves {
	int nzones;
	int nladder;		/* zones that print ladder lines or a reserve */
	long max;		/* largest reserve in pages, -1 if none shown */
	int over_cap;		/* zones whose reserve exceeds its cap */
	int half_cap;		/* zones whose reserve is at half its cap or more */
};

static void read_reserves(struct reserves *r, long cap_kb)
{
	struct lab_zone z[LAB_MAX_ZONES];
	long cap;
	int i;

	memset(r, 0, sizeof(*r));
	r->max = -1;
	r->nzones = read_zoneinfo(z, LAB_MAX_ZONES);
	for (i = 0; i < r->nzones; i++) {
		if (z[i].nrungs || z[i].reserve >= 0)
			r->nladder++;
		if (z[i].reserve > r->max)
			r->max = z[i].reserve;
		cap = ladder_reserve_cap(&z[i], cap_kb);
		if (cap > 0 && z[i].reserve >= cap / 2)
			r->half_cap++;
		if (cap_kb >= 0 && z[i].reserve > cap) {
			ksft_print_msg("zone %s: reserve %ld pages over its cap %ld\n",
				       z[i].name, z[i].reserve, cap);
			r->over_cap++;
		}
	}
}

/* Fragment afresh with the ladder off, then set the ladder's order. */
static int fragment(const char *label, long order)
{
	double t0 = now_s();
	int rc, err;

	stop_holder(holder);
	sysctl_set(LADDER_ORDER, 0);
	rc = run_fragmenter("/tmp/ladder_reserve.frag", &holder);
	ksft_print_msg("%s: fragmenter exit %d in %.1f s\n", label, rc, now_s() - t0);
	/* 1 = holding, but above its own target of <= 2% free in order >= 3 */
	if (holder <= 0 || (rc != 0 && rc != 1))
		frag_ok = 0;
	err = sysctl_set(LADDER_ORDER, order);
	if (err)
		ksft_print_msg("%s: set order %ld: %s\n", label, order, strerror(-err));
	return err;
}

/*
 * Run the ring for @s seconds; the largest reserve seen, sampled each
 * second, goes to *peak (may be NULL). Returns the ring's failures, or -1.
 */
static long long demand(const char *label, int s, long cap_kb, struct reserves *peak)
{
	struct reserves r;
	long long att, fail;
	int err, i;

	err = write_text(RXRING_CONTROL, "start");
	if (err) {
		ksft_print_msg("%s: rxring start: %s\n", label, strerror(-err));
		return -1;
	}
	for (i = 0; i < s; i++) {
		sleep_s(1);
		if (!peak)
			continue;
		read_reserves(&r, cap_kb);
		if (r.max > peak->max)
			peak->max = r.max;
		peak->over_cap += r.over_cap;
		peak->nladder = r.nladder;
		if (r.half_cap > peak->half_cap)
			peak->half_cap = r.half_cap;
	}
	att = rxring_stat("attempts");
	fail = rxring_stat("failures");
	err = write_text(RXRING_CONTROL, "stop");
	if (err)
		ksft_print_msg("%s: rxring stop: %s\n", label, strerror(-err));
	ksft_print_msg("%s (%d s): rxring attempts %lld failures %lld\n", label, s, att,
		       fail);
	return att > 0 ? fail : -1;
}

int main(void)
{
	long long a[NR_LADDER_COUNTERS], b[NR_LADDER_COUNTERS];
	long long fails, nowait0, burst;
	struct reserves off, peak, r;
	long cap_kb, r0;
	char params[128];
	int err;

	ksft_print_header();
	lab_require(LAB_NEED_DISK | LAB_NEED_RXRING | LAB_NEED_FRAGMENTER);
	secs = cmdline_long("reserve_secs", 8);
	if (lab_save_sysctl(LADDER_ORDER) || lab_save_sysctl(LADDER_RESERVE) ||
	    sysctl_get(LADDER_RESERVE, &cap_kb))
		ksft_exit_fail_msg("read the ladder sysctls: %s\n", strerror(errno));
	if (read_ladder_counters(a) != NR_LADDER_COUNTERS)
		ksft_exit_fail_msg("/proc/vmstat lacks the ladder counters\n");
	ksft_set_plan(13);

	snprintf(params, sizeof(params),
		 "order=3 rate=%ld ring=%ld drain_ms=1000 duration_ms=3600000",
		 cmdline_long("reserve_rate", 2000), cmdline_long("reserve_ring", 512));
	err = module_load(RXRING_KO, params);
	ksft_test_result(!err, "rxring loads (%s)%s%s\n", params, err ? ": " : "",
			 err ? strerror(-err) : "");
	if (err)
		ksft_exit_fail_msg("cannot go on without rxring\n");

	/* 1: off */
	fragment("ladder off", 0);
	read_ladder_counters(a);
	nowait0 = vmstat_or("alloc_nowait_highorder_fail", 0);
	memset(&off, 0, sizeof(off));
	off.max = -1;
	fails = demand("ladder off", secs, -1, &off);
	read_ladder_counters(b);
	ksft_print_msg("ladder off: alloc_nowait_highorder_fail +%lld\n",
		       vmstat_or("alloc_nowait_highorder_fail", 0) - nowait0);
	ksft_test_result(fails >= 0 && series_counters_flat(a, b),
			 "L=0: the series' counters stay flat under demand (%lld failures)\n",
			 fails);
	ksft_test_result(off.nladder == 0 && off.max < 0,
			 "L=0: /proc/zoneinfo shows no ladder and no reserve (%d zones do)\n",
			 off.nladder);

	/* 2: on, growth and cap */
	fragment("ladder on", 3);
	read_ladder_counters(a);
	memset(&peak, 0, sizeof(peak));
	peak.max = -1;
	fails = demand("ladder on", secs, cap_kb, &peak);
	read_ladder_counters(b);
	ksft_print_msg("ladder on: ladder_reserve_grow +%lld, _serve +%lld pages, largest reserve %ld pages, cap %ld kB\n",
		       b[COUNTER_GROW] - a[COUNTER_GROW],
		       b[COUNTER_SERVE] - a[COUNTER_SERVE], peak.max, cap_kb);
	if (fails > 0) {
		/* served requests may have taken it to the cap before any failed */
		ksft_test_result(b[COUNTER_GROW] + b[COUNTER_SERVE] >
				 a[COUNTER_GROW] + a[COUNTER_SERVE] && peak.max > 0,
				 "L=3: %lld failed requests and the served ones grow a reserve\n",
				 fails);
	} else {
		ksft_test_result_skip("L=3: no request failed (%lld), growth not tested\n",
				      fails);
	}
	burst = rxring_stat("first_fill_failures");
	if (burst >= 10)
		ksft_test_result(peak.half_cap > 0,
				 "L=3: %lld failures in the first fill double a reserve to half its cap (largest %ld pages)\n",
				 burst, peak.max);
	else
		ksft_test_result_skip("L=3: %lld failures in the first fill, too few to test doubling\n",
				      burst);
	ksft_test_result(peak.nladder > 0 && !peak.over_cap,
			 "L=3: every reserve within its cap (%d zones over it)\n",
			 peak.over_cap);

	/* 3: a cap of 0 applies at once */
	read_reserves(&r, cap_kb);
	r0 = r.max;
	err = sysctl_set(LADDER_RESERVE, 0);
	read_reserves(&r, 0);
	ksft_test_result(!err && r.max == 0,
			 "reserve_kbytes=0 empties every reserve at once (%ld -> %ld pages)\n",
			 r0, r.max);
	sysctl_set(LADDER_RESERVE, cap_kb);

	/* 4: a change of the order forgets the reserve */
	read_reserves(&r, cap_kb);
	r0 = r.max;
	err = sysctl_set(LADDER_ORDER, 4);
	read_reserves(&r, cap_kb);
	ksft_test_result(!err && r.max == 0,
			 "a change of watermark_ladder_order forgets the reserve (%ld -> %ld pages)\n",
			 r0, r.max);

	/*
	 * 4b: failures alone grow it. At order 4 the ring's order-3 requests
	 * are below the top rung: served ones neither size nor hold the
	 * reserve, failed ones still grow it.
	 */
	read_ladder_counters(a);
	fails = err ? -1 : demand("order 4", 3, cap_kb, NULL);
	read_ladder_counters(b);
	ksft_print_msg("order 4: ladder_reserve_grow +%lld, _serve +%lld pages\n",
		       b[COUNTER_GROW] - a[COUNTER_GROW],
		       b[COUNTER_SERVE] - a[COUNTER_SERVE]);
	if (fails > 0)
		ksft_test_result(b[COUNTER_GROW] > a[COUNTER_GROW] &&
				 b[COUNTER_SERVE] == a[COUNTER_SERVE],
				 "L=4: %lld failed order-3 requests grow the reserve, served ones do not\n",
				 fails);
	else
		ksft_test_result_skip("L=4: no order-3 request failed (%lld), growth by failures not told apart\n",
				      fails);

	/* 5: decay, on a zone fragmented again */
	fragment("decay", 3);
	demand("decay", 3, cap_kb, NULL);
	sleep_s(1);	/* let the daemons settle after the ring stops */
	read_reserves(&r, cap_kb);
	r0 = r.max;
	sleep_s(4.5);
	read_reserves(&r, cap_kb);
	if (r0 > 0)
		ksft_test_result(r.max <= r0 / 2,
				 "the reserve decays: %ld pages, %ld 4.5 s later\n", r0, r.max);
	else
		ksft_test_result_skip("no reserve to watch decay (%ld)\n", r0);

	/* 6: served demand holds the reserve */
	fragment("hold", 3);
	err = write_text(RXRING_CONTROL, "start");
	if (err)
		ksft_print_msg("hold: rxring start: %s\n", strerror(-err));
	sleep_s(3);
	stop_holder(holder);
	holder = -1;
	sleep_s(0.5);
	read_reserves(&r, cap_kb);
	r0 = r.max;
	fails = rxring_stat("failures");
	sleep_s(4.5);
	read_reserves(&r, cap_kb);
	fails = rxring_stat("failures") - fails;
	ksft_print_msg("hold: reserve %ld pages, %ld after 4.5 s of served demand; attempts %lld, %lld failed meanwhile\n",
		       r0, r.max, rxring_stat("attempts"), fails);
	write_text(RXRING_CONTROL, "stop");
	if (r0 <= 0 || err)
		ksft_test_result_skip("no reserve to hold (%ld)\n", r0);
	else if (fails)
		ksft_test_result_skip("%lld requests failed after the fragmenter ended: hold not tested\n",
				      fails);
	else
		ksft_test_result(r.max > r0 / 2,
				 "served demand holds the reserve: %ld pages, %ld 4.5 s later\n",
				 r0, r.max);

	/* 7: served demand sizes the reserve, to one window's pages */
	err = module_unload("rxring");
	snprintf(params, sizeof(params),
		 "order=3 rate=%d ring=16 drain_ms=1000 duration_ms=3600000",
		 SERVE_RATE);
	if (!err)
		err = module_load(RXRING_KO, params);
	if (!err)
		err = sysctl_set(LADDER_ORDER, 4) ?: sysctl_set(LADDER_ORDER, 3);
	read_ladder_counters(a);
	memset(&peak, 0, sizeof(peak));
	peak.max = -1;
	fails = err ? -1 : demand("served", 4, cap_kb, &peak);
	read_ladder_counters(b);
	ksft_print_msg("served (%s): ladder_reserve_serve +%lld, ladder_reserve_grow +%lld pages, largest reserve %ld pages, one window %d pages\n",
		       params, b[COUNTER_SERVE] - a[COUNTER_SERVE],
		       b[COUNTER_GROW] - a[COUNTER_GROW], peak.max, SERVE_RATE * 8);
	if (fails < 0)
		ksft_test_result_fail("served: the ring did not run (%s)\n",
				      err ? strerror(-err) : "no attempts");
	else if (fails > 0)
		ksft_test_result_skip("served: %lld requests failed on the healthy zone, growth by service not told apart\n",
				      fails);
	else
		ksft_test_result(b[COUNTER_SERVE] > a[COUNTER_SERVE] &&
				 b[COUNTER_GROW] == a[COUNTER_GROW] &&
				 peak.max >= SERVE_RATE * 8 / 2 &&
				 peak.max <= SERVE_RATE * 8 * 2,
				 "L=3: served demand alone sizes the reserve to about one window's pages (%ld, window %d)\n",
				 peak.max, SERVE_RATE * 8);

	ksft_test_result(frag_ok, "zone fragmented before each phase\n");
	stop_holder(holder);
	err = module_unload("rxring");
	if (err)
		ksft_print_msg("rmmod rxring: %s\n", strerror(-err));
	ksft_finished();
}
