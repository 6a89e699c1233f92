// SPDX-License-Identifier: GPL-2.0
/*
 * rel_knobflip: the ladder knobs flipped many times a second under load
 * (issue 5, part 4).
 *
 * Load: the fragmenter (-D, holding a fragmented zone) and rxring
 * (GFP_ATOMIC order-3 refills from softirq, 2000/s, ring 256, drained
 * every second) run for the whole test. For lab.flip_secs (default 20) s,
 * as fast as the one vCPU allows (SCHED_FIFO 1, 1 ms pause per round;
 * the rate is printed): write a random vm.watermark_ladder_order in
 * 0..MAX_PAGE_ORDER and a random vm.watermark_ladder_reserve_kbytes (0,
 * INT_MAX, or 0..128 MiB) and, on a kernel with it, a random
 * vm.watermark_ladder_reserve_min_kbytes drawn the same way (each write of
 * it with the ladder on wakes kswapd: the floor's build path), read them
 * back, read the ladder counters and
 * the ladder_reserve lines of /proc/zoneinfo; every 10th round also write
 * "-1" to one knob, which must fail with EINVAL and change nothing. Every
 * change of the order also resets the zones' reserves while rxring's
 * failures grow them, so the flips race the failure path's updates.
 *
 * Pass rule: every write succeeds and reads back as written; every bad
 * write is refused; no ladder counter ever decreases between two samples;
 * in every round each populated zone prints ladder_reserve if and only if
 * the order is > 0, never above the cap just written (min of
 * reserve_kbytes and 1/16 of the zone); a second after the last write both
 * knobs still hold the last values written; rxring kept allocating
 * (attempts > 0); no kernel splat in the log since the test started (the
 * host scans the console as well). Sysctls restored. Skips without the
 * series, the disk or the module.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <sched.h>
#include <sys/resource.h>

#include "lab.h"

static unsigned long long rng = 0x9e3779b97f4a7c15ULL;

static unsigned int rnd(unsigned int n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned int)(rng % n);
}

/* A cap for the reserve: mostly 0..128 MiB, now and then 0 or INT_MAX. */
static long rnd_reserve(void)
{
	switch (rnd(8)) {
	case 0:
		return 0;
	case 1:
		return INT_MAX;
	default:
		return rnd(128 << 10);
	}
}

int main(void)
{
	const char marker[] = "rel_knobflip: start";
	long long last[NR_LADDER_COUNTERS], v[NR_LADDER_COUNTERS], att;
	long order = -1, reserve = -1, got_o = -1, got_r = -1, max_order, total, max_total = 0;
	long writes = 0, write_err = 0, mismatch = 0, bad = 0, bad_ok = 0, samples = 0, down = 0;
	long res_bad = 0, floor = 0, got_f = 0;
	int has_floor = !access(LADDER_FLOOR, F_OK);
	pid_t holder = -1;
	char params[128], splat[512], why[256] = "";
	double t_end;
	int secs, rc, err, i, round = 0;

	ksft_print_header();
	lab_require(LAB_NEED_DISK | LAB_NEED_RXRING | LAB_NEED_FRAGMENTER);
	if (read_ladder_counters(last) != NR_LADDER_COUNTERS)
		ksft_exit_fail_msg("/proc/vmstat lacks the ladder counters\n");
	secs = cmdline_long("flip_secs", 20);
	max_order = max_page_order();
	if (lab_save_sysctl(LADDER_ORDER) || lab_save_sysctl(LADDER_RESERVE) ||
	    (has_floor && lab_save_sysctl(LADDER_FLOOR)))
		ksft_exit_fail_msg("cannot save the ladder sysctls\n");
	kmsg_mark("rel_knobflip: start\n");
	ksft_set_plan(8);

	rc = run_fragmenter("/tmp/rel_knobflip.frag", &holder);
	snprintf(params, sizeof(params),
		 "order=3 rate=2000 ring=256 drain_ms=1000 duration_ms=%d autostart=1",
		 (secs + 30) * 1000);
	err = module_load(RXRING_KO, params);
	/* exit 1 = holding, but above its fragmentation target: load all the same */
	ksft_test_result(holder > 0 && (rc == 0 || rc == 1) && !err,
			 "load running: fragmenter holder %d (exit %d), rxring %s\n", holder, rc,
			 err ? strerror(-err) : "loaded");
	/*
	 * One vCPU shared with softirq refills and a busy kswapd: run the
	 * flipper as SCHED_FIFO 1 (it sleeps 1 ms every round, so the rest
	 * still runs), or at nice -10 if that is refused.
	 */
	if (sched_setscheduler(0, SCHED_FIFO, &(struct sched_param){ .sched_priority = 1 })) {
		ksft_print_msg("sched_setscheduler(SCHED_FIFO): %s; nice -10 instead\n",
			       strerror(errno));
		if (setpriority(PRIO_PROCESS, 0, -10))
			ksft_print_msg("setpriority(-10): %s\n", strerror(errno));
	}

	t_end = now_s() + secs;
	while (now_s() < t_end) {
		order = rnd(max_order + 1);
		reserve = rnd_reserve();
		floor = has_floor ? rnd_reserve() : 0;
		err = sysctl_set(LADDER_ORDER, order);
		if (!err)
			err = sysctl_set(LADDER_RESERVE, reserve);
		if (!err && has_floor)
			err = sysctl_set(LADDER_FLOOR, floor);
		writes += 2 + has_floor;
		if (err) {
			if (!write_err++)
				ksft_print_msg("write order=%ld reserve_kbytes=%ld min_kbytes=%ld: %s\n",
					       order, reserve, floor, strerror(-err));
			continue;
		}
		if (sysctl_get(LADDER_ORDER, &got_o) || sysctl_get(LADDER_RESERVE, &got_r) ||
		    (has_floor && sysctl_get(LADDER_FLOOR, &got_f)) ||
		    got_o != order || got_r != reserve || got_f != floor) {
			if (!mismatch++)
				ksft_print_msg("wrote %ld/%ld/%ld, read %ld/%ld/%ld\n", order, reserve,
					       floor, got_o, got_r, got_f);
		}
		/* the cap applies when the line is printed: no lag to allow for */
		if (!ladder_reserve_ok(order, reserve, &total, why, sizeof(why))) {
			if (!res_bad++)
				ksft_print_msg("order %ld reserve_kbytes %ld: %s\n", order, reserve, why);
		} else if (total > max_total) {
			max_total = total;
		}
		if (++round % 10 == 0) {
			const char *knob = rnd(2) ? LADDER_ORDER : LADDER_RESERVE;

			bad++;
			err = write_text(knob, "-1");
			if (err == -EINVAL && !sysctl_get(LADDER_ORDER, &got_o) &&
			    !sysctl_get(LADDER_RESERVE, &got_r) && got_o == order && got_r == reserve)
				bad_ok++;
		}
		read_ladder_counters(v);
		samples++;
		for (i = 0; i < NR_LADDER_COUNTERS; i++) {
			if (v[i] < last[i] && !down++)
				ksft_print_msg("%s went down: %lld -> %lld\n", ladder_counters[i],
					       last[i], v[i]);
			last[i] = v[i];
		}
		sleep_s(0.001);
	}
	att = rxring_stat("attempts");
	ksft_print_msg("%ld writes in %d s (%.0f/s), %ld bad writes, %ld counter samples; rxring attempts %lld failures %lld; largest ladder_reserve total %ld pages\n",
		       writes, secs, writes / (double)secs, bad, samples, att,
		       rxring_stat("failures"), max_total);
	for (i = 0; i < NR_LADDER_COUNTERS; i++)
		ksft_print_msg("%s %lld\n", ladder_counters[i], last[i]);

	ksft_test_result(!write_err && !mismatch && writes > 0 && att > 0,
			 "%ld writes succeeded and read back (%ld failed, %ld mismatched) with rxring running\n",
			 writes, write_err, mismatch);
	ksft_test_result(bad > 0 && bad_ok == bad, "%ld of %ld writes of \"-1\" refused, nothing changed\n",
			 bad_ok, bad);
	ksft_test_result(!down && samples > 0, "ladder counters monotonic over %ld samples\n", samples);
	ksft_test_result(!res_bad && samples > 0,
			 "ladder_reserve on populated zones iff order > 0, within the cap just written (%ld of %ld rounds wrong)\n",
			 res_bad, samples);
	sleep_s(1);
	err = sysctl_get(LADDER_ORDER, &got_o) || sysctl_get(LADDER_RESERVE, &got_r);
	ksft_test_result(!err && got_o == order && got_r == reserve,
			 "final state is the last write: order %ld reserve_kbytes %ld (read %ld %ld)\n",
			 order, reserve, got_o, got_r);

	write_text(RXRING_CONTROL, "stop");
	err = module_unload("rxring");
	if (err)
		ksft_print_msg("rmmod rxring: %s\n", strerror(-err));
	stop_holder(holder);
	lab_restore_sysctls();
	ksft_test_result(!module_loaded("rxring"), "rxring unloads after the run\n");
	err = kmsg_first_splat(marker, splat, sizeof(splat)) != NULL;
	ksft_test_result(!err, "no kernel splat logged%s%s\n", err ? ": " : "", err ? splat : "");
	ksft_finished();
}
