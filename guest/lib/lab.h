/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lab.h: helpers shared by the guest tests (guest/tests/), declared here,
 * defined in lab.c; guest/Makefile links lab.o into the programs that use
 * it (LAB_USERS).
 *
 *  - sysctls: read, write (raw bytes, to test bad input), save/restore at exit
 *  - /proc/vmstat counters, /proc/zoneinfo (with the ladder_o<N> and
 *    ladder_reserve lines), /proc/buddyinfo, MAX_PAGE_ORDER from the
 *    buddyinfo column count
 *  - kswapd0 CPU ticks, rxring module load/unload and its debugfs stats
 *  - kernel log: a marker written to /dev/kmsg, then a scan for splats after it
 *  - helper processes (the fragmenter, streamread) started and stopped
 * Every failed call is reported with strerror(errno) through ksft_print_msg.
 */
#ifndef LAB_H
#define LAB_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest.h"

#define LADDER_ORDER	"/proc/sys/vm/watermark_ladder_order"
#define LADDER_RESERVE	"/proc/sys/vm/watermark_ladder_reserve_kbytes"
#define LADDER_RECLAIM	"/proc/sys/vm/watermark_ladder_reclaim_kbytes"
#define LADDER_SERVE	"/proc/sys/vm/watermark_ladder_serve_ms"
#define LADDER_FLOOR	"/proc/sys/vm/watermark_ladder_reserve_min_kbytes"
#define RXRING_KO	"/lab/modules/rxring.ko"
#define RXRING_STATS	"/sys/kernel/debug/rxring/stats"
#define RXRING_CONTROL	"/sys/kernel/debug/rxring/control"
#define FRAGMENTER	"/lab/bin/fragmenter"
#define STREAMREAD	"/lab/bin/streamread"
#define LAB_DISK	"/dev/vda"
#define LAB_MAX_ZONES	8
#define LAB_MAX_ORDERS	16
#define SPLAT_PATTERNS	"/lab/lib/splat-patterns"
#define LAB_MAX_SPLATS	32

#define NR_LADDER_COUNTERS 6
extern const char *const ladder_counters[NR_LADDER_COUNTERS];

/* What a scenario needs; lab_require() skips the program without it. */
#define LAB_NEED_DISK		0x1	/* the virtio disk at LAB_DISK */
#define LAB_NEED_RXRING		0x2	/* module/rxring.ko in the initramfs */
#define LAB_NEED_FRAGMENTER	0x4	/* guest/tools/fragmenter.c, built */

#define LADDER_SKIP_HINT \
	"kernel without the watermark ladder series (stock/baseline): " \
	"no vm.watermark_ladder_order; build the patched variant (patches/series)\n"

struct ladder_rung {
	int order;
	long free, min, low, high;
};

struct lab_zone {
	int node;
	char name[32];
	long free, min, low, high, present, managed;
	int nrungs;
	struct ladder_rung rung[LAB_MAX_ORDERS];
	long reserve;			/* ladder_reserve pages, -1: no line */
	long kept;			/* ladder_reserve_kept pages, -1: no line */
	int norders;			/* columns in buddyinfo */
	long nr_free[LAB_MAX_ORDERS];	/* blocks per order, buddyinfo */
};

double now_s(void);
void sleep_s(double s);
int read_text(const char *path, char *buf, size_t len);
int write_bytes(const char *path, const char *buf, size_t len, ssize_t *written);
int sysctl_holds(const char *path, long want);
int sysctl_refuses(const char *path, const char *text, size_t len, long keep,
		   int want_err, char *why, size_t whylen);
int sysctl_bad_write(const char *path, const char *text, long keep,
		     char *msg, size_t len);
int write_text(const char *path, const char *s);
int sysctl_get(const char *path, long *val);
int sysctl_set(const char *path, long val);
void lab_restore_sysctls(void);
int lab_save_sysctl(const char *path);
int have_ladder(void);
__attribute__((noreturn, format(printf, 1, 2)))
void lab_skip_all(const char *fmt, ...);
void lab_require(unsigned int need);
long cmdline_param(const char *key, long def);
long cmdline_long(const char *name, long def);
int vmstat_get(const char *name, long long *val);
long long vmstat_or(const char *name, long long def);
void vmstat_read_list(const char *const *names, unsigned int n, long long *v);
int read_ladder_counters(long long v[NR_LADDER_COUNTERS]);
int read_zoneinfo(struct lab_zone *zones, int max);
int read_buddyinfo(struct lab_zone *zones, int n);
long free_ge(const struct lab_zone *z, int order);
long ladder_reserve_cap(const struct lab_zone *z, long cap_kb);
int ladder_reserve_ok(long order, long cap_kb, long *total, char *why, size_t len);
int max_page_order(void);
void zone_totals(long *free, long *min, long *low, long *high);
long meminfo_kb(const char *key);
pid_t pid_of(const char *comm);
long long task_cpu_ticks(pid_t pid);
int module_load(const char *path, const char *params);
int module_unload(const char *name);
int module_loaded(const char *name);
long long rxring_stat(const char *key);
void kmsg_mark(const char *marker);
char *kmsg_since(const char *marker);
char *kmsg_first_splat(const char *marker, char *out, size_t len);
pid_t spawn(char *const argv[], const char *out);
int run_wait(char *const argv[], const char *out);
void stop_child(pid_t pid);
int run_fragmenter(const char *log, pid_t *holder);
void stop_holder(pid_t holder);

#endif /* LAB_H */
