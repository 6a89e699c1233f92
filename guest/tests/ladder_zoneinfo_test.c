// SPDX-License-Identifier: GPL-2.0
/*
 * ladder_zoneinfo_test: the ladder lines of /proc/zoneinfo and the ladder
 * counters of /proc/vmstat.
 *
 * With L = vm.watermark_ladder_order, every populated zone prints, after
 * its "protection: (...)" line, one line per order o = 1..L:
 *     ladder_o<o> free <pages in free blocks of order >= o>
 *                 min <min >> o> low <low >> o> high <high >> o>
 * and none when L = 0.
 *
 * Measures, at the boot value of L, at L = 5, at L = MAX_PAGE_ORDER and
 * at L = 0:
 *  - each populated zone has exactly the lines o = 1..L, in order, and
 *    unpopulated zones have none;
 *  - min/low/high equal the zone's own min/low/high (same read) >> o,
 *    exactly;
 *  - free equals sum over k >= o of buddyinfo count[k] << k, within
 *    16 pages + 1% (pages move between the two reads; the reads are
 *    retried up to 5 times for a quiet moment), and is non-increasing in o;
 *  - kswapd_ladder_wake, kswapd_ladder_met, kswapd_ladder_giveup and
 *    alloc_nowait_highorder_fail exist in /proc/vmstat and none of them
 *    decreases between the start and the end of the test.
 * The sysctl is restored at exit.
 *
 * Pass rule: every line "ok". Skips (exit 4) on a kernel without the series.
 */
#include "lab.h"

#define TRIES 5

static long tol(long pages)
{
	return 16 + pages / 100;
}

/*
 * One zoneinfo read framed by two buddyinfo reads: for each zone and
 * rung, lo/hi bound the buddyinfo value of free_ge() over the two reads.
 */
struct snap {
	int n;
	struct lab_zone z[LAB_MAX_ZONES];
	long lo[LAB_MAX_ZONES][LAB_MAX_ORDERS], hi[LAB_MAX_ZONES][LAB_MAX_ORDERS];
};

static int take_snap(struct snap *s)
{
	struct lab_zone before[LAB_MAX_ZONES];
	int i, o;

	s->n = read_zoneinfo(before, LAB_MAX_ZONES);
	if (s->n <= 0 || read_buddyinfo(before, s->n))
		return -1;
	if (read_zoneinfo(s->z, LAB_MAX_ZONES) != s->n || read_buddyinfo(s->z, s->n))
		return -1;
	for (i = 0; i < s->n; i++)
		for (o = 0; o < LAB_MAX_ORDERS; o++) {
			long a = free_ge(&before[i], o), b = free_ge(&s->z[i], o);

			s->lo[i][o] = a < b ? a : b;
			s->hi[i][o] = a < b ? b : a;
		}
	return 0;
}

/* Lines o = 1..L present, in order, on populated zones only. */
static int lines_ok(const struct snap *s, int L, char *why, size_t len)
{
	int i, o;

	for (i = 0; i < s->n; i++) {
		const struct lab_zone *z = &s->z[i];
		int want = z->present ? L : 0;

		if (z->nrungs != want) {
			snprintf(why, len, "node %d zone %s has %d ladder lines, want %d",
				 z->node, z->name, z->nrungs, want);
			return 0;
		}
		for (o = 0; o < z->nrungs; o++)
			if (z->rung[o].order != o + 1) {
				snprintf(why, len, "node %d zone %s: line %d is ladder_o%d",
					 z->node, z->name, o + 1, z->rung[o].order);
				return 0;
			}
	}
	return 1;
}

static int targets_ok(const struct snap *s, char *why, size_t len)
{
	int i, k;

	for (i = 0; i < s->n; i++) {
		const struct lab_zone *z = &s->z[i];

		for (k = 0; k < z->nrungs; k++) {
			const struct ladder_rung *r = &z->rung[k];

			if (r->min != z->min >> r->order || r->low != z->low >> r->order ||
			    r->high != z->high >> r->order) {
				snprintf(why, len,
					 "zone %s o%d: min/low/high %ld/%ld/%ld, want %ld/%ld/%ld",
					 z->name, r->order, r->min, r->low, r->high,
					 z->min >> r->order, z->low >> r->order,
					 z->high >> r->order);
				return 0;
			}
		}
	}
	return 1;
}

static int free_ok(const struct snap *s, char *why, size_t len)
{
	int i, k;

	for (i = 0; i < s->n; i++) {
		const struct lab_zone *z = &s->z[i];

		for (k = 0; k < z->nrungs; k++) {
			const struct ladder_rung *r = &z->rung[k];
			long lo = s->lo[i][r->order], hi = s->hi[i][r->order];

			if (r->free < lo - tol(lo) || r->free > hi + tol(hi)) {
				snprintf(why, len, "zone %s o%d: free %ld, buddyinfo says %ld..%ld",
					 z->name, r->order, r->free, lo, hi);
				return 0;
			}
			if (k && r->free > z->rung[k - 1].free) {
				snprintf(why, len, "zone %s: free rises from o%d (%ld) to o%d (%ld)",
					 z->name, z->rung[k - 1].order, z->rung[k - 1].free,
					 r->order, r->free);
				return 0;
			}
		}
	}
	return 1;
}

static void print_rungs(const struct snap *s)
{
	int i, k;

	for (i = 0; i < s->n; i++)
		for (k = 0; k < s->z[i].nrungs; k++) {
			const struct ladder_rung *r = &s->z[i].rung[k];

			ksft_print_msg("node %d %-6s ladder_o%-2d free %ld (buddyinfo %ld) min %ld low %ld high %ld\n",
				       s->z[i].node, s->z[i].name, r->order, r->free,
				       s->hi[i][r->order], r->min, r->low, r->high);
		}
}

/* Set L, then check lines, targets and free; 3 results (1 when L = 0). */
static void check_at(int L)
{
	struct snap s;
	char why[256] = "";
	int t, ok, err = sysctl_set(LADDER_ORDER, L);

	if (err) {
		ksft_test_result_fail("L=%d: set vm.watermark_ladder_order: %s\n", L, strerror(-err));
		if (L)
			ksft_test_result_skip("L=%d: targets (could not set L)\n", L);
		if (L)
			ksft_test_result_skip("L=%d: free pages (could not set L)\n", L);
		return;
	}
	for (t = 0; t < TRIES; t++)
		if (!take_snap(&s) && lines_ok(&s, L, why, sizeof(why)))
			break;
	ok = t < TRIES;
	ksft_test_result(ok, "L=%d: ladder_o1..o%d on each populated zone%s%s\n",
			 L, L, ok ? "" : ": ", why);
	if (!L)
		return;
	if (!ok) {
		ksft_test_result_skip("L=%d: targets (no ladder lines)\n", L);
		ksft_test_result_skip("L=%d: free pages (no ladder lines)\n", L);
		return;
	}
	for (t = 0; t < TRIES; t++)
		if (!take_snap(&s) && targets_ok(&s, why, sizeof(why)))
			break;
	ok = t < TRIES;
	ksft_test_result(ok, "L=%d: targets are the zone's min/low/high >> o%s%s\n", L,
			 ok ? "" : ": ", why);
	for (t = 0; t < TRIES; t++)
		if (!take_snap(&s) && lines_ok(&s, L, why, sizeof(why)) &&
		    free_ok(&s, why, sizeof(why)))
			break;
	ok = t < TRIES;
	if (L == 3 || !ok)
		print_rungs(&s);
	ksft_test_result(ok, "L=%d: free = pages in blocks >= o (buddyinfo), non-increasing%s%s\n",
			 L, ok ? "" : ": ", why);
}

int main(void)
{
	long long c0[NR_LADDER_COUNTERS], c1[NR_LADDER_COUNTERS];
	int max_order, i, n, Ls[4], nL = 0, plan = 0;
	long L0;

	ksft_print_header();
	if (!have_ladder())
		lab_skip_all(LADDER_SKIP_HINT);
	max_order = max_page_order();
	if (sysctl_get(LADDER_ORDER, &L0) || lab_save_sysctl(LADDER_ORDER))
		ksft_exit_fail_msg("read vm.watermark_ladder_order: %s\n", strerror(errno));

	Ls[nL++] = L0;
	if (L0 != 5)
		Ls[nL++] = 5;
	if (L0 != max_order)
		Ls[nL++] = max_order;
	if (L0 != 0)
		Ls[nL++] = 0;
	for (i = 0; i < nL; i++)
		plan += Ls[i] ? 3 : 1;
	ksft_set_plan(1 + plan + 1);

	n = read_ladder_counters(c0);
	for (i = 0; i < NR_LADDER_COUNTERS; i++)
		ksft_print_msg("%s %lld\n", ladder_counters[i], c0[i]);
	ksft_test_result(n == NR_LADDER_COUNTERS,
			 "/proc/vmstat has the %d ladder counters (found %d)\n",
			 NR_LADDER_COUNTERS, n);

	for (i = 0; i < nL; i++)
		check_at(Ls[i]);

	lab_restore_sysctls();
	n = read_ladder_counters(c1);
	for (i = 0; i < NR_LADDER_COUNTERS; i++) {
		ksft_print_msg("%s %lld -> %lld\n", ladder_counters[i], c0[i], c1[i]);
		if (c1[i] < c0[i])
			n = -1;
	}
	ksft_test_result(n == NR_LADDER_COUNTERS, "ladder counters never decreased\n");
	ksft_finished();
}
