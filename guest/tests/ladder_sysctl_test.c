// SPDX-License-Identifier: GPL-2.0
/*
 * ladder_sysctl_test: the two knobs of the watermark ladder series.
 *
 * vm.watermark_ladder_order takes 0..MAX_PAGE_ORDER (default 3) and
 * vm.watermark_ladder_strict takes 0..1 (default read, not assumed).
 * MAX_PAGE_ORDER is read from the kernel: /proc/buddyinfo prints one
 * column per order 0..MAX_PAGE_ORDER (10 on x86_64 if that fails).
 *
 * Measures:
 *  - the boot value of watermark_ladder_order is the documented default 3
 *    and watermark_ladder_strict is 0 or 1;
 *  - every valid value round-trips (write "v\n", read back v);
 *  - bad input, written with one write(2) at offset 0 while the knob holds
 *    a known value: "-1", MAX+1, "2" (strict), "2147483648",
 *    "18446744073709551616", "abc", "3abc", "\n", 4 KiB of 'x', 4 KiB of
 *    '9' must fail with EINVAL; the empty write "" is the one case where
 *    proc_dointvec_minmax() returns success with nothing consumed (write(2)
 *    returns 0), which is the kernel's usual answer for every int sysctl.
 *    After each, the knob still holds the value it had.
 *  - the original values are restored at exit (also on SIGTERM).
 *
 * Pass rule: every line above is "ok". Skips (exit 4) on a kernel without
 * the series.
 */
#include "lab.h"

#define LONG_LEN 4096

struct bad_input {
	const char *label;
	const char *text;	/* NULL: built at run time */
	size_t len;
	int want_err;		/* expected errno, 0 = success with 0 bytes */
};

static int check_value(const char *path, long want)
{
	long v;
	int err = sysctl_get(path, &v);

	if (err) {
		ksft_print_msg("read %s: %s\n", path, strerror(-err));
		return 0;
	}
	if (v != want)
		ksft_print_msg("%s holds %ld, want %ld\n", path, v, want);
	return v == want;
}

/* Round-trip every value lo..hi; one result line per value. */
static void round_trip(const char *knob, const char *path, long lo, long hi)
{
	long v;
	int err;

	for (v = lo; v <= hi; v++) {
		err = sysctl_set(path, v);
		if (err) {
			ksft_test_result_fail("%s: write %ld: %s\n", knob, v, strerror(-err));
			continue;
		}
		ksft_test_result(check_value(path, v), "%s: %ld round-trips\n", knob, v);
	}
}

/* Write @b while the knob holds @keep; it must fail as documented and keep it. */
static void bad_write(const char *knob, const char *path, long keep, const struct bad_input *b)
{
	ssize_t written = -2;
	int err;

	err = sysctl_set(path, keep);
	if (err) {
		ksft_test_result_fail("%s: set %ld before \"%s\": %s\n", knob, keep, b->label,
				      strerror(-err));
		return;
	}
	err = write_bytes(path, b->text, b->len, &written);
	if (b->want_err) {
		if (err != -b->want_err)
			ksft_print_msg("%s: write \"%s\" (%zu bytes): got %s (returned %zd), want %s\n",
				       knob, b->label, b->len, err ? strerror(-err) : "success",
				       written, strerror(b->want_err));
		ksft_test_result(err == -b->want_err && check_value(path, keep),
				 "%s: \"%s\" -> %s, value stays %ld\n", knob, b->label,
				 strerror(b->want_err), keep);
	} else {
		if (err || written != 0)
			ksft_print_msg("%s: write \"%s\": got %s (returned %zd), want 0 bytes\n",
				       knob, b->label, err ? strerror(-err) : "success", written);
		ksft_test_result(!err && written == 0 && check_value(path, keep),
				 "%s: \"%s\" -> 0 bytes written, value stays %ld\n", knob,
				 b->label, keep);
	}
}

int main(void)
{
	static char xs[LONG_LEN + 1], nines[LONG_LEN + 1];
	char max1[16], max1_label[32];
	long order0, strict0;
	int max_order, n_bad, i, err;

	ksft_print_header();
	if (!have_ladder())
		lab_skip_all(LADDER_SKIP_HINT);
	max_order = max_page_order();
	memset(xs, 'x', LONG_LEN);
	memset(nines, '9', LONG_LEN);
	snprintf(max1, sizeof(max1), "%d", max_order + 1);
	snprintf(max1_label, sizeof(max1_label), "%d (MAX_PAGE_ORDER+1)", max_order + 1);

	const struct bad_input bad[] = {
		{ "-1", "-1", 2, EINVAL },
		{ max1_label, max1, strlen(max1), EINVAL },
		{ "2", "2", 1, EINVAL },	/* strict only: valid for order */
		{ "2147483648", "2147483648", 10, EINVAL },
		{ "18446744073709551616", "18446744073709551616", 20, EINVAL },
		{ "abc", "abc", 3, EINVAL },
		{ "3abc", "3abc", 4, EINVAL },
		{ "\\n", "\n", 1, EINVAL },
		{ "4 KiB of 'x'", xs, LONG_LEN, EINVAL },
		{ "4 KiB of '9'", nines, LONG_LEN, EINVAL },
		{ "", "", 0, 0 },
	};
	n_bad = sizeof(bad) / sizeof(bad[0]);

	if (sysctl_get(LADDER_ORDER, &order0) || sysctl_get(LADDER_STRICT, &strict0))
		ksft_exit_fail_msg("read the ladder sysctls: %s\n", strerror(errno));
	ksft_print_msg("MAX_PAGE_ORDER %d; boot values: watermark_ladder_order %ld, watermark_ladder_strict %ld\n",
		       max_order, order0, strict0);
	if (lab_save_sysctl(LADDER_ORDER) || lab_save_sysctl(LADDER_STRICT))
		ksft_exit_fail_msg("cannot save the ladder sysctls\n");

	/* 2 defaults + round trips + bad inputs (order skips "2") + restore */
	ksft_set_plan(2 + (max_order + 1) + 2 + (n_bad - 1) + n_bad + 1);

	ksft_test_result(order0 == 3, "watermark_ladder_order boots at its default 3 (is %ld)\n",
			 order0);
	ksft_test_result(strict0 == 0 || strict0 == 1,
			 "watermark_ladder_strict boots at 0 or 1 (is %ld)\n", strict0);

	round_trip("watermark_ladder_order", LADDER_ORDER, 0, max_order);
	round_trip("watermark_ladder_strict", LADDER_STRICT, 0, 1);

	/* A value other than the default, so "unchanged" cannot be luck. */
	for (i = 0; i < n_bad; i++)
		if (strcmp(bad[i].text, "2"))
			bad_write("watermark_ladder_order", LADDER_ORDER, 5, &bad[i]);
	for (i = 0; i < n_bad; i++)
		bad_write("watermark_ladder_strict", LADDER_STRICT, !strict0, &bad[i]);

	lab_restore_sysctls();
	err = !check_value(LADDER_ORDER, order0) || !check_value(LADDER_STRICT, strict0);
	ksft_test_result(!err, "boot values restored (order %ld, strict %ld)\n", order0, strict0);
	ksft_finished();
}
