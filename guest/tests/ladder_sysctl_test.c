// SPDX-License-Identifier: GPL-2.0
/*
 * ladder_sysctl_test: the two knobs of the watermark ladder series.
 *
 * vm.watermark_ladder_order takes 0..MAX_PAGE_ORDER (default 0: the ladder
 * is off) and vm.watermark_ladder_reserve_kbytes takes 0..INT_MAX (default
 * 16384), the cap of the per-zone reserve that the ladder sizes by demand.
 * MAX_PAGE_ORDER is read from the kernel: /proc/buddyinfo prints one
 * column per order 0..MAX_PAGE_ORDER (10 on x86_64 if that fails).
 *
 * Measures:
 *  - the boot value of watermark_ladder_order is the documented default 0
 *    and that of watermark_ladder_reserve_kbytes the documented 16384
 *    (the check job boots without sysctl.vm.* on the command line; if one
 *    is there, its value is expected instead, and said in a diagnostic);
 *  - every valid order, and reserve_kbytes 0, 1, 4096, 16384, 1048576 and
 *    INT_MAX, round-trips (write "v\n", read back v);
 *  - bad input, written with one write(2) at offset 0 while the knob holds
 *    a known value other than its default: "-1", MAX+1 (order only: a
 *    valid reserve), "2147483648", "18446744073709551616", "abc", "3abc",
 *    "\n", 4 KiB of 'x', 4 KiB of '9' must fail with EINVAL; the empty
 *    write "" is the one case where proc_dointvec_minmax() returns success
 *    with nothing consumed (write(2) returns 0), which is the kernel's usual
 *    answer for every int sysctl. After each, the knob still holds the
 *    value it had.
 *  - the ladder_reserve line of /proc/zoneinfo follows the order: right
 *    after a write of order 3 every populated zone prints it, at 0 (a
 *    change of the order resets every reserve; on an idle guest there is no demand to
 *    grow one either, so this cannot tell the reset from no demand: the
 *    reset under demand is left to the rxring scenarios), and after a
 *    write of 0 no zone prints it;
 *  - the original values are restored at exit (also on SIGTERM).
 *
 * Pass rule: every line above is "ok". Skips (exit 4) on a kernel without
 * the series.
 */
#define _GNU_SOURCE
#include <limits.h>

#include "lab.h"

#define LONG_LEN 4096
#define ORDER_DEFAULT	0
#define RESERVE_DEFAULT	16384
#define SERVE_DEFAULT	1000
#define SERVE_MAX	10000

struct bad_input {
	const char *label;
	const char *text;	/* NULL: built at run time */
	size_t len;
	int want_err;		/* expected errno, 0 = success with 0 bytes */
	int order_only;		/* a valid value of reserve_kbytes and serve_ms */
};

/* Round-trip one value; one result line. */
static void round_trip(const char *knob, const char *path, long v)
{
	int err = sysctl_set(path, v);

	if (err) {
		ksft_test_result_fail("%s: write %ld: %s\n", knob, v, strerror(-err));
		return;
	}
	ksft_test_result(sysctl_holds(path, v), "%s: %ld round-trips\n", knob, v);
}

/* Write @b while the knob holds @keep; it must fail as documented and keep it. */
static void bad_write(const char *knob, const char *path, long keep, const struct bad_input *b)
{
	char why[96];
	int ok = sysctl_refuses(path, b->text, b->len, keep, b->want_err, why,
				sizeof(why));

	if (!ok)
		ksft_print_msg("%s: write \"%s\" (%zu bytes): %s\n", knob, b->label,
			       b->len, why);
	if (b->want_err)
		ksft_test_result(ok, "%s: \"%s\" -> %s, value stays %ld\n", knob,
				 b->label, strerror(b->want_err), keep);
	else
		ksft_test_result(ok, "%s: \"%s\" -> 0 bytes written, value stays %ld\n",
				 knob, b->label, keep);
}

/*
 * Write order @order and look at the ladder_reserve lines at once: on
 * every populated zone and 0 with the ladder on, nowhere with it off.
 */
static void reserve_lines(long order, long cap_kb)
{
	char why[256] = "";
	long total = -1;
	int err = sysctl_set(LADDER_ORDER, order), ok;

	if (err) {
		ksft_test_result_fail("order %ld: write: %s\n", order, strerror(-err));
		return;
	}
	ok = ladder_reserve_ok(order, cap_kb, &total, why, sizeof(why));
	if (ok && order && total) {
		snprintf(why, sizeof(why), "the reserves sum to %ld pages, want 0", total);
		ok = 0;
	}
	if (order)
		ksft_test_result(ok, "order %ld: every populated zone prints ladder_reserve 0 and ladder_reserve_kept 0 after the write%s%s\n",
				 order, ok ? "" : ": ", why);
	else
		ksft_test_result(ok, "order 0: no zone prints ladder_reserve or ladder_reserve_kept%s%s\n",
				 ok ? "" : ": ", why);
}

int main(void)
{
	static char xs[LONG_LEN + 1], nines[LONG_LEN + 1];
	static const long reserves[] = { 0, 1, 4096, RESERVE_DEFAULT, 1048576, INT_MAX };
	static const long serves[] = { 0, 1, SERVE_DEFAULT, SERVE_MAX };
	const int n_res = sizeof(reserves) / sizeof(reserves[0]);
	const int n_serve = sizeof(serves) / sizeof(serves[0]);
	char max1[16], max1_label[32];
	long order0, reserve0, serve0, want_order, want_reserve, want_serve;
	int max_order, n_bad, n_order_only = 0, i, err;

	ksft_print_header();
	if (!have_ladder())
		lab_skip_all(LADDER_SKIP_HINT);
	max_order = max_page_order();
	memset(xs, 'x', LONG_LEN);
	memset(nines, '9', LONG_LEN);
	snprintf(max1, sizeof(max1), "%d", max_order + 1);
	snprintf(max1_label, sizeof(max1_label), "%d (MAX_PAGE_ORDER+1)", max_order + 1);

	const struct bad_input bad[] = {
		{ "-1", "-1", 2, EINVAL, 0 },
		{ max1_label, max1, strlen(max1), EINVAL, 1 },
		{ "2147483648", "2147483648", 10, EINVAL, 0 },
		{ "18446744073709551616", "18446744073709551616", 20, EINVAL, 0 },
		{ "abc", "abc", 3, EINVAL, 0 },
		{ "3abc", "3abc", 4, EINVAL, 0 },
		{ "\\n", "\n", 1, EINVAL, 0 },
		{ "4 KiB of 'x'", xs, LONG_LEN, EINVAL, 0 },
		{ "4 KiB of '9'", nines, LONG_LEN, EINVAL, 0 },
		{ "", "", 0, 0, 0 },
	};
	n_bad = sizeof(bad) / sizeof(bad[0]);
	for (i = 0; i < n_bad; i++)
		n_order_only += bad[i].order_only;

	if (sysctl_get(LADDER_ORDER, &order0) || sysctl_get(LADDER_RESERVE, &reserve0) ||
	    sysctl_get(LADDER_SERVE, &serve0))
		ksft_exit_fail_msg("read the ladder sysctls: %s\n", strerror(errno));
	ksft_print_msg("MAX_PAGE_ORDER %d; boot values: watermark_ladder_order %ld, watermark_ladder_reserve_kbytes %ld, watermark_ladder_serve_ms %ld\n",
		       max_order, order0, reserve0, serve0);
	if (lab_save_sysctl(LADDER_ORDER) || lab_save_sysctl(LADDER_RESERVE) ||
	    lab_save_sysctl(LADDER_SERVE))
		ksft_exit_fail_msg("cannot save the ladder sysctls\n");

	/* The boot values: the defaults, unless the command line set them. */
	want_order = cmdline_param("sysctl.vm.watermark_ladder_order", ORDER_DEFAULT);
	want_reserve = cmdline_param("sysctl.vm.watermark_ladder_reserve_kbytes",
				     RESERVE_DEFAULT);
	want_serve = cmdline_param("sysctl.vm.watermark_ladder_serve_ms", SERVE_DEFAULT);
	if (want_order != ORDER_DEFAULT || want_reserve != RESERVE_DEFAULT ||
	    want_serve != SERVE_DEFAULT)
		ksft_print_msg("the command line sets the boot values: order %ld, reserve_kbytes %ld, serve_ms %ld\n",
			       want_order, want_reserve, want_serve);

	/*
	 * 3 boot values + round trips + bad inputs (order: all; reserve_kbytes:
	 * all but order_only; serve_ms: all but order_only, and its max + 1)
	 * + 2 zoneinfo + restore
	 */
	ksft_set_plan(3 + (max_order + 1) + n_res + n_serve + n_bad +
		      2 * (n_bad - n_order_only) + 1 + 2 + 1);

	ksft_test_result(order0 == want_order,
			 "watermark_ladder_order boots at %ld (is %ld)\n", want_order, order0);
	ksft_test_result(reserve0 == want_reserve,
			 "watermark_ladder_reserve_kbytes boots at %ld (is %ld)\n",
			 want_reserve, reserve0);

	ksft_test_result(serve0 == want_serve,
			 "watermark_ladder_serve_ms boots at %ld (is %ld)\n",
			 want_serve, serve0);

	for (i = 0; i <= max_order; i++)
		round_trip("watermark_ladder_order", LADDER_ORDER, i);
	for (i = 0; i < n_res; i++)
		round_trip("watermark_ladder_reserve_kbytes", LADDER_RESERVE, reserves[i]);
	for (i = 0; i < n_serve; i++)
		round_trip("watermark_ladder_serve_ms", LADDER_SERVE, serves[i]);

	/* Values other than the defaults, so "unchanged" cannot be luck. */
	for (i = 0; i < n_bad; i++)
		bad_write("watermark_ladder_order", LADDER_ORDER, 5, &bad[i]);
	for (i = 0; i < n_bad; i++)
		if (!bad[i].order_only)
			bad_write("watermark_ladder_reserve_kbytes", LADDER_RESERVE, 12345,
				  &bad[i]);
	for (i = 0; i < n_bad; i++)
		if (!bad[i].order_only)
			bad_write("watermark_ladder_serve_ms", LADDER_SERVE, 777, &bad[i]);
	{
		const struct bad_input over = { "10001 (max + 1)", "10001", 5, EINVAL, 0 };

		bad_write("watermark_ladder_serve_ms", LADDER_SERVE, 777, &over);
	}

	/* The reserve line, under the default cap. */
	err = sysctl_set(LADDER_RESERVE, RESERVE_DEFAULT);
	if (err)
		ksft_print_msg("set watermark_ladder_reserve_kbytes %d: %s\n", RESERVE_DEFAULT,
			       strerror(-err));
	reserve_lines(3, RESERVE_DEFAULT);
	reserve_lines(0, RESERVE_DEFAULT);

	lab_restore_sysctls();
	err = !sysctl_holds(LADDER_ORDER, order0) || !sysctl_holds(LADDER_RESERVE, reserve0) ||
	      !sysctl_holds(LADDER_SERVE, serve0);
	ksft_test_result(!err, "boot values restored (order %ld, reserve_kbytes %ld, serve_ms %ld)\n",
			 order0, reserve0, serve0);
	ksft_finished();
}
