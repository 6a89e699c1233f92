// SPDX-License-Identifier: GPL-2.0
/*
 * rel_modparam_test: the test module refuses bad parameters (issue 5,
 * part 5). Loads /lab/modules/rxring.ko with finit_module(2), as insmod
 * does, once per bad parameter set:
 *   order=0, order=11 (MAX_PAGE_ORDER+1), rate=0, rate=100001, ring=0,
 *   ring=65537, duration_ms=0, duration_ms=3600001,
 *   drain_ms=2000 duration_ms=1000 (drain longer than the run),
 *   ring=65536 order=10 (would pin more than a quarter of memory),
 *   order=abc, order=-1 (not a number: the kernel's parameter parser),
 *   rate=4294967296 (does not fit an unsigned int: ERANGE from kstrtouint)
 * and once with good parameters (which must load and unload again).
 * Then allocbench.ko, whose only input is "ORDER ITERS" or "ORDER ITERS
 * atomic" written to /sys/kernel/debug/allocbench/run: "11 1"
 * (MAX_PAGE_ORDER+1), "3 0", "3 10000001", "-1 5", "abc", "3", "3 10 kernel",
 * "" and 4 KiB of '9' must fail with EINVAL, log its one-line usage, and
 * leave its last result unchanged; "0 100" and "3 100 atomic" (the
 * controls) must run 100 pairs, the second with GFP_ATOMIC.
 *
 * Pass rule, per bad set: the load fails with the expected errno (EINVAL,
 * ERANGE for the overflow), the module is not left loaded, and the kernel
 * log after a marker written to /dev/kmsg holds the module's (or the
 * parameter parser's) one-line explanation naming the parameter. The good
 * set loads (its "order=3 rate=..." line is logged) and unloads.
 * Works on any kernel the module is built for; skips without the module.
 */
#include "lab.h"

struct param_case {
	const char *params;
	int err;		/* expected errno */
	const char *msg;	/* expected in the kernel log */
};

static void try_case(int idx, const struct param_case *c)
{
	char marker[64], line[512], *log, *p;
	int err, left, found;

	snprintf(marker, sizeof(marker), "rel_modparam: case %d\n", idx);
	kmsg_mark(marker);
	marker[strlen(marker) - 1] = '\0';
	err = module_load(RXRING_KO, c->params);
	left = module_loaded("rxring");
	if (!err || left)
		module_unload("rxring");
	log = kmsg_since(marker);
	p = log ? strstr(log, c->msg) : NULL;
	found = p != NULL;
	if (p)
		snprintf(line, sizeof(line), "%.*s", (int)strcspn(p, "\n"), p);
	else
		snprintf(line, sizeof(line), "(no \"%s\" in the log)", c->msg);
	free(log);
	ksft_print_msg("insmod rxring.ko %s: %s; log: %s\n", c->params,
		       err ? strerror(-err) : "loaded", line);
	ksft_test_result(err == -c->err && !left && found,
			 "rxring %s refused with %s and \"%s\"\n", c->params,
			 strerror(c->err), c->msg);
}

#define ALLOCBENCH_KO	"/lab/modules/allocbench.ko"
#define ALLOCBENCH_RUN	"/sys/kernel/debug/allocbench/run"

/* allocbench's last result line KEY (e.g. "iters 100"), or "" */
static void allocbench_line(const char *key, char *out, size_t len)
{
	char buf[512], *p;

	out[0] = '\0';
	if (read_text(ALLOCBENCH_RUN, buf, sizeof(buf)) < 0)
		return;
	p = strstr(buf, key);
	if (p)
		snprintf(out, len, "%.*s", (int)strcspn(p, "\n"), p);
}

/* Bad "ORDER ITERS" inputs to allocbench: EINVAL, usage logged, no run. */
static void allocbench_cases(void)
{
	static const char *const bad[] = {
		"11 1", "3 0", "3 10000001", "-1 5", "abc", "3", "3 10 kernel", "", NULL,
	};
	char marker[64], before[64], after[64], gfp[64], big[4096], *log;
	int i, err, logged;
	ssize_t n;

	err = module_load(ALLOCBENCH_KO, "");
	if (err) {
		ksft_test_result_fail("allocbench loads: %s\n", strerror(-err));
		for (i = 0; i < 11; i++)
			ksft_test_result_skip("allocbench input case %d: module not loaded\n", i);
		return;
	}
	ksft_test_result_pass("allocbench loads\n");
	memset(big, '9', sizeof(big));
	for (i = 0; i < 9; i++) {
		const char *in = bad[i] ? bad[i] : big;
		size_t len = bad[i] ? strlen(bad[i]) : sizeof(big);

		snprintf(marker, sizeof(marker), "rel_modparam: allocbench %d\n", i);
		kmsg_mark(marker);
		marker[strlen(marker) - 1] = '\0';
		allocbench_line("iters ", before, sizeof(before));
		n = 0;
		err = write_bytes(ALLOCBENCH_RUN, in, len, &n);
		allocbench_line("iters ", after, sizeof(after));
		log = kmsg_since(marker);
		logged = log && strstr(log, "want \"ORDER ITERS\"");
		free(log);
		ksft_test_result(err == -EINVAL && logged && !strcmp(before, after),
				 "allocbench input \"%.16s\"%s refused with EINVAL, usage logged, result unchanged (%s; %s)\n",
				 in, bad[i] ? "" : "... (4 KiB)",
				 err ? strerror(-err) : "accepted", after);
	}
	err = write_text(ALLOCBENCH_RUN, "0 100");
	allocbench_line("iters ", after, sizeof(after));
	ksft_test_result(!err && !strcmp(after, "iters 100"),
			 "allocbench runs \"0 100\" (%s; %s)\n",
			 err ? strerror(-err) : "ok", after);
	err = write_text(ALLOCBENCH_RUN, "3 100 atomic");
	allocbench_line("iters ", after, sizeof(after));
	allocbench_line("gfp ", gfp, sizeof(gfp));
	ksft_test_result(!err && !strcmp(after, "iters 100") && !strcmp(gfp, "gfp atomic"),
			 "allocbench runs \"3 100 atomic\" (%s; %s, %s)\n",
			 err ? strerror(-err) : "ok", after, gfp);
	err = module_unload("allocbench");
	if (err)
		ksft_print_msg("rmmod allocbench: %s\n", strerror(-err));
}

int main(void)
{
	static const struct param_case bad[] = {
		{ "order=0", EINVAL, "order=0 out of range" },
		{ "order=11", EINVAL, "order=11 out of range" },
		{ "rate=0", EINVAL, "rate=0 out of range" },
		{ "rate=100001", EINVAL, "rate=100001 out of range" },
		{ "ring=0", EINVAL, "ring=0 out of range" },
		{ "ring=65537", EINVAL, "ring=65537 out of range" },
		{ "duration_ms=0", EINVAL, "duration_ms=0 out of range" },
		{ "duration_ms=3600001", EINVAL, "duration_ms=3600001 out of range" },
		{ "drain_ms=2000 duration_ms=1000", EINVAL, "drain_ms=2000 longer than duration_ms=1000" },
		{ "ring=65536 order=10", EINVAL, "more than a quarter of memory" },
		{ "order=abc", EINVAL, "`abc' invalid for parameter `order'" },
		{ "order=-1", EINVAL, "`-1' invalid for parameter `order'" },
		{ "rate=4294967296", ERANGE, "`4294967296' invalid for parameter `rate'" },
	};
	int n = sizeof(bad) / sizeof(bad[0]), i, err;
	char marker[] = "rel_modparam: good\n";
	char *log;

	ksft_print_header();
	if (access(RXRING_KO, R_OK))
		lab_skip_all("%s: %s (initramfs built without module/)\n", RXRING_KO,
			     strerror(errno));
	if (module_loaded("rxring"))
		ksft_exit_fail_msg("rxring is already loaded\n");
	ksft_set_plan(n + 2 + (access(ALLOCBENCH_KO, R_OK) ? 0 : 12));

	for (i = 0; i < n; i++)
		try_case(i, &bad[i]);

	/* The control: good parameters load, and the module goes away again. */
	kmsg_mark(marker);
	marker[strlen(marker) - 1] = '\0';
	err = module_load(RXRING_KO, "order=3 rate=1000 ring=64 duration_ms=1000 drain_ms=100");
	if (err)
		ksft_print_msg("insmod rxring.ko with good parameters: %s\n", strerror(-err));
	log = kmsg_since(marker);
	ksft_test_result(!err && log && strstr(log, "rxring: order=3 rate=1000 ring=64"),
			 "rxring loads with good parameters and says so\n");
	free(log);
	if (!err) {
		err = module_unload("rxring");
		if (err)
			ksft_print_msg("rmmod rxring: %s\n", strerror(-err));
	}
	ksft_test_result(!err && !module_loaded("rxring"), "rxring unloads\n");
	if (!access(ALLOCBENCH_KO, R_OK))
		allocbench_cases();
	else
		ksft_print_msg("%s: %s; its input cases not run\n", ALLOCBENCH_KO, strerror(errno));
	ksft_finished();
}
