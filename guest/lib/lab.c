// SPDX-License-Identifier: GPL-2.0
/*
 * lab.c: the helpers of lab.h (what each does is said above it).
 */
#include "lab.h"

const char *const ladder_counters[NR_LADDER_COUNTERS] = {
	"kswapd_ladder_wake",
	"kswapd_ladder_met",
	"kswapd_ladder_giveup",
	"alloc_nowait_highorder_fail",
	"ladder_reserve_grow",
	"ladder_reserve_serve",
};

/* ---- time --------------------------------------------------------------- */

double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* ---- files and sysctls -------------------------------------------------- */

/* Read a small file into buf (NUL-terminated); bytes read or -errno. */
int read_text(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY), n, err;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	err = errno;
	close(fd);
	if (n < 0)
		return -err;
	buf[n] = '\0';
	return n;
}

/* Write exactly these bytes in one write(2) at offset 0; 0 or -errno. */
int write_bytes(const char *path, const char *buf, size_t len, ssize_t *written)
{
	int fd = open(path, O_WRONLY), err = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, buf, len);
	if (n < 0)
		err = -errno;
	if (written)
		*written = n;
	if (close(fd) && !err)
		err = -errno;
	return err;
}

/* Does the sysctl at @path hold @want? If not, a diagnostic says what it holds. */
int sysctl_holds(const char *path, long want)
{
	long v = -1;
	int err = sysctl_get(path, &v);

	if (err) {
		ksft_print_msg("read %s: %s\n", path, strerror(-err));
		return 0;
	}
	if (v != want)
		ksft_print_msg("%s holds %ld, want %ld\n", path, v, want);
	return v == want;
}

/*
 * Set the sysctl at @path to @keep, then write @len bytes of @text to it:
 * 1 if that write fails with @want_err (0: it succeeds writing 0 bytes)
 * and @keep stays; 0 otherwise. What the write did goes to @why.
 */
int sysctl_refuses(const char *path, const char *text, size_t len, long keep,
		   int want_err, char *why, size_t whylen)
{
	ssize_t written = -2;
	int err = sysctl_set(path, keep);

	if (err) {
		snprintf(why, whylen, "set %ld first: %s", keep, strerror(-err));
		return 0;
	}
	err = write_bytes(path, text, len, &written);
	snprintf(why, whylen, "%s, %zd bytes", err ? strerror(-err) : "success",
		 written);
	if (want_err)
		return err == -want_err && sysctl_holds(path, keep);
	return !err && written == 0 && sysctl_holds(path, keep);
}

/*
 * Does "@text", written to the sysctl at @path while it holds @keep, fail
 * with EINVAL and leave @keep? 1 or 0; @msg says what happened, for the
 * caller's TAP line (kselftest's counters are the caller's own).
 */
int sysctl_bad_write(const char *path, const char *text, long keep,
		     char *msg, size_t len)
{
	char why[96];
	int ok = sysctl_refuses(path, text, strlen(text), keep, EINVAL, why,
				sizeof(why));

	snprintf(msg, len, "\"%s\" -> %s (want EINVAL), value stays %ld",
		 strcmp(text, "\n") ? text : "\\n", why, keep);
	return ok;
}

int write_text(const char *path, const char *s)
{
	return write_bytes(path, s, strlen(s), NULL);
}

int sysctl_get(const char *path, long *val)
{
	char buf[64], *end;
	int n = read_text(path, buf, sizeof(buf));

	if (n < 0)
		return n;
	errno = 0;
	*val = strtol(buf, &end, 10);
	if (end == buf || errno)
		return -EINVAL;
	return 0;
}

int sysctl_set(const char *path, long val)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld\n", val);
	return write_text(path, buf);
}

/* Sysctls changed by a test, put back at exit (normal or by signal). */
static struct {
	const char *path;
	long val;
} lab_saved[8];
static int lab_nsaved;

void lab_restore_sysctls(void)
{
	int i, err;

	for (i = lab_nsaved - 1; i >= 0; i--) {
		err = sysctl_set(lab_saved[i].path, lab_saved[i].val);
		if (err)
			ksft_print_msg("restore %s=%ld: %s\n", lab_saved[i].path,
				       lab_saved[i].val, strerror(-err));
	}
	lab_nsaved = 0;
}

static void lab_on_signal(int sig)
{
	lab_restore_sysctls();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Remember the current value of @path so that it is restored at exit. */
int lab_save_sysctl(const char *path)
{
	static int hooked;
	long v;
	int err = sysctl_get(path, &v);

	if (err) {
		ksft_print_msg("read %s: %s\n", path, strerror(-err));
		return err;
	}
	if (!hooked) {
		atexit(lab_restore_sysctls);
		signal(SIGTERM, lab_on_signal);
		signal(SIGINT, lab_on_signal);
		hooked = 1;
	}
	if (lab_nsaved < (int)(sizeof(lab_saved) / sizeof(lab_saved[0]))) {
		lab_saved[lab_nsaved].path = path;
		lab_saved[lab_nsaved].val = v;
		lab_nsaved++;
	}
	return 0;
}

/* Both knobs of the series (v2: the order and the reserve's cap). */
int have_ladder(void)
{
	return access(LADDER_ORDER, F_OK) == 0 && access(LADDER_RESERVE, F_OK) == 0;
}

/*
 * Skip the whole program with a reason, as one counted "ok 1 # SKIP" line
 * (a bare "1..0 # SKIP" would leave nothing for the host to count).
 */
__attribute__((noreturn, format(printf, 1, 2)))
void lab_skip_all(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ksft_set_plan(1);
	ksft_test_result_skip("%s", msg);
	ksft_print_cnts();
	exit(KSFT_SKIP);
}

/*
 * Skip the whole program, saying what is missing, unless the series' knobs
 * and everything in @need are there.
 */
void lab_require(unsigned int need)
{
	if (!have_ladder())
		lab_skip_all(LADDER_SKIP_HINT);
	if ((need & LAB_NEED_DISK) && access(LAB_DISK, R_OK))
		lab_skip_all("no %s (%s): the scenario needs the virtio disk; boot with scripts/boot.sh --disk IMG\n",
			     LAB_DISK, strerror(errno));
	if ((need & LAB_NEED_RXRING) && access(RXRING_KO, R_OK))
		lab_skip_all("%s: %s (initramfs built without module/)\n", RXRING_KO, strerror(errno));
	if ((need & LAB_NEED_FRAGMENTER) && access(FRAGMENTER, X_OK))
		lab_skip_all("%s: %s (initramfs built without the fragmenter)\n", FRAGMENTER, strerror(errno));
}

/*
 * The value of the last KEY=VALUE on the kernel command line (as
 * "sysctl.vm.NAME" sets a sysctl at boot), or @def.
 */
long cmdline_param(const char *key, long def)
{
	char buf[4096], *p;
	size_t klen = strlen(key);
	int n = read_text("/proc/cmdline", buf, sizeof(buf));

	if (n < 0)
		return def;
	p = buf;
	while ((p = strstr(p, key))) {
		if ((p == buf || p[-1] == ' ') && p[klen] == '=')
			def = strtol(p + klen + 1, NULL, 10);
		p++;
	}
	return def;
}

/* lab.NAME=VALUE from the kernel command line, or @def. */
long cmdline_long(const char *name, long def)
{
	char key[64];

	snprintf(key, sizeof(key), "lab.%s", name);
	return cmdline_param(key, def);
}

/* ---- /proc/vmstat ------------------------------------------------------- */

/* Value of counter @name; 0 or -ENOENT if the kernel has no such counter. */
int vmstat_get(const char *name, long long *val)
{
	char line[256], key[128];
	long long v;
	FILE *f = fopen("/proc/vmstat", "r");
	int found = -ENOENT;

	if (!f) {
		ksft_print_msg("open /proc/vmstat: %s\n", strerror(errno));
		return -errno;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%127s %lld", key, &v) == 2 && !strcmp(key, name)) {
			*val = v;
			found = 0;
			break;
		}
	}
	fclose(f);
	return found;
}

long long vmstat_or(const char *name, long long def)
{
	long long v = def;

	return vmstat_get(name, &v) ? def : v;
}

/* The /proc/vmstat counters @names[0..@n) into @v, -1 for one missing */
void vmstat_read_list(const char *const *names, unsigned int n, long long *v)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		v[i] = vmstat_or(names[i], -1);
}

/* The ladder counters, from one read of /proc/vmstat; how many exist. */
int read_ladder_counters(long long v[NR_LADDER_COUNTERS])
{
	char line[256], key[128];
	long long val;
	FILE *f = fopen("/proc/vmstat", "r");
	int i, n = 0;

	for (i = 0; i < NR_LADDER_COUNTERS; i++)
		v[i] = -1;
	if (!f) {
		ksft_print_msg("open /proc/vmstat: %s\n", strerror(errno));
		return 0;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%127s %lld", key, &val) != 2)
			continue;
		for (i = 0; i < NR_LADDER_COUNTERS; i++)
			if (!strcmp(key, ladder_counters[i]) && v[i] < 0) {
				v[i] = val;
				n++;
			}
	}
	fclose(f);
	return n;
}

/* ---- /proc/zoneinfo and /proc/buddyinfo --------------------------------- */

/* Every zone of /proc/zoneinfo (populated or not); returns the count. */
int read_zoneinfo(struct lab_zone *zones, int max)
{
	char line[512], word[64], name[32];
	struct lab_zone *z = NULL;
	struct ladder_rung r;
	FILE *f = fopen("/proc/zoneinfo", "r");
	int n = 0, node;
	long v;

	if (!f) {
		ksft_print_msg("open /proc/zoneinfo: %s\n", strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Node %d, zone %31s", &node, name) == 2) {
			z = n < max ? &zones[n++] : NULL;
			if (z) {
				memset(z, 0, sizeof(*z));
				z->reserve = -1;
				z->kept = -1;
				z->node = node;
				snprintf(z->name, sizeof(z->name), "%s", name);
			}
			continue;
		}
		if (!z)
			continue;
		if (sscanf(line, " ladder_o%d free %ld min %ld low %ld high %ld",
			   &r.order, &r.free, &r.min, &r.low, &r.high) == 5) {
			if (z->nrungs < LAB_MAX_ORDERS)
				z->rung[z->nrungs++] = r;
			continue;
		}
		if (sscanf(line, " ladder_reserve_kept %ld", &v) == 1) {
			z->kept = v;
			continue;
		}
		if (sscanf(line, " ladder_reserve %ld", &v) == 1) {
			z->reserve = v;
			continue;
		}
		if (sscanf(line, " pages free %ld", &v) == 1) {
			z->free = v;
			continue;
		}
		/* "min N", "low N", ...: exactly two words on the line */
		if (sscanf(line, " %63s %ld %*s", word, &v) == 2) {
			char extra[8];

			if (sscanf(line, " %*s %*d %7s", extra) == 1)
				continue;
			if (!strcmp(word, "min"))
				z->min = v;
			else if (!strcmp(word, "low"))
				z->low = v;
			else if (!strcmp(word, "high"))
				z->high = v;
			else if (!strcmp(word, "present"))
				z->present = v;
			else if (!strcmp(word, "managed"))
				z->managed = v;
		}
	}
	fclose(f);
	return n;
}

/* Fill nr_free[] of the matching zones from /proc/buddyinfo. */
int read_buddyinfo(struct lab_zone *zones, int n)
{
	char line[512], name[32];
	FILE *f = fopen("/proc/buddyinfo", "r");
	int node, used, i, o;

	if (!f) {
		ksft_print_msg("open /proc/buddyinfo: %s\n", strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++)
		zones[i].norders = 0;
	while (fgets(line, sizeof(line), f)) {
		char *p;

		if (sscanf(line, "Node %d, zone %31s%n", &node, name, &used) != 2)
			continue;
		for (i = 0; i < n; i++)
			if (zones[i].node == node && !strcmp(zones[i].name, name))
				break;
		if (i == n)
			continue;
		p = line + used;
		for (o = 0; o < LAB_MAX_ORDERS; o++) {
			char *end;
			long c = strtol(p, &end, 10);

			if (end == p)
				break;
			zones[i].nr_free[o] = c;
			p = end;
		}
		zones[i].norders = o;
	}
	fclose(f);
	return 0;
}

/* Pages in free blocks of order >= @order, from buddyinfo counts. */
long free_ge(const struct lab_zone *z, int order)
{
	long pages = 0;
	int o;

	for (o = order; o < z->norders; o++)
		pages += z->nr_free[o] << o;
	return pages;
}

/*
 * The most reserve, in pages, that the ladder may keep in @z with
 * vm.watermark_ladder_reserve_kbytes = @cap_kb: the sysctl, and 1/16 of
 * the zone's managed pages (ladder_reserve_cap() of the series).
 */
long ladder_reserve_cap(const struct lab_zone *z, long cap_kb)
{
	long kb_per_page = sysconf(_SC_PAGESIZE) / 1024, cap;

	cap = cap_kb / (kb_per_page > 0 ? kb_per_page : 4);
	return cap < z->managed / 16 ? cap : z->managed / 16;
}

/*
 * One read of /proc/zoneinfo against what the knobs allow the reserve:
 * with the ladder on (@order > 0) every populated zone prints a
 * ladder_reserve line, at most ladder_reserve_cap(@cap_kb) pages (the
 * kernel applies the cap when the line is printed, so this holds at once
 * after a write of the cap), followed by a ladder_reserve_kept line of at
 * most that many pages (what kswapd and kcompactd keep of it, computed
 * from the same value); with the ladder off, and on unpopulated zones,
 * there is neither line. 1 if so, else 0 with the first offence in @why;
 * the sum of the reserves in *@total (if not NULL).
 */
int ladder_reserve_ok(long order, long cap_kb, long *total, char *why, size_t len)
{
	struct lab_zone z[LAB_MAX_ZONES];
	int n = read_zoneinfo(z, LAB_MAX_ZONES), i;

	if (total)
		*total = 0;
	if (n <= 0) {
		snprintf(why, len, "cannot read /proc/zoneinfo");
		return 0;
	}
	for (i = 0; i < n; i++) {
		int want = order > 0 && z[i].present > 0;

		if (want && z[i].reserve < 0) {
			snprintf(why, len, "node %d zone %s: no ladder_reserve line at order %ld",
				 z[i].node, z[i].name, order);
			return 0;
		}
		if (!want && z[i].reserve >= 0) {
			snprintf(why, len, "node %d zone %s: ladder_reserve %ld with %s",
				 z[i].node, z[i].name, z[i].reserve,
				 order > 0 ? "the zone unpopulated" : "the ladder off");
			return 0;
		}
		if (want && z[i].reserve > ladder_reserve_cap(&z[i], cap_kb)) {
			snprintf(why, len, "node %d zone %s: ladder_reserve %ld above its cap %ld (%ld KiB, managed %ld / 16)",
				 z[i].node, z[i].name, z[i].reserve,
				 ladder_reserve_cap(&z[i], cap_kb), cap_kb, z[i].managed);
			return 0;
		}
		if ((z[i].kept >= 0) != (z[i].reserve >= 0)) {
			snprintf(why, len, "node %d zone %s: ladder_reserve %ld but ladder_reserve_kept %ld (-1: no line)",
				 z[i].node, z[i].name, z[i].reserve, z[i].kept);
			return 0;
		}
		if (z[i].kept > z[i].reserve) {
			snprintf(why, len, "node %d zone %s: ladder_reserve_kept %ld above ladder_reserve %ld",
				 z[i].node, z[i].name, z[i].kept, z[i].reserve);
			return 0;
		}
		if (want && total)
			*total += z[i].reserve;
	}
	return 1;
}

/* MAX_PAGE_ORDER of the running kernel: buddyinfo has one column per order. */
int max_page_order(void)
{
	struct lab_zone z[LAB_MAX_ZONES];
	int n = read_zoneinfo(z, LAB_MAX_ZONES), i;

	if (n > 0 && !read_buddyinfo(z, n))
		for (i = 0; i < n; i++)
			if (z[i].norders > 1)
				return z[i].norders - 1;
	return 10;	/* x86_64 */
}

/* Sum over populated zones (what kswapd of node 0 balances). */
void zone_totals(long *free, long *min, long *low, long *high)
{
	struct lab_zone z[LAB_MAX_ZONES];
	int n = read_zoneinfo(z, LAB_MAX_ZONES), i;

	*free = *min = *low = *high = 0;
	for (i = 0; i < n; i++) {
		if (!z[i].present)
			continue;
		*free += z[i].free;
		*min += z[i].min;
		*low += z[i].low;
		*high += z[i].high;
	}
}

long meminfo_kb(const char *key)
{
	char line[256];
	size_t klen = strlen(key);
	long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, klen) && line[klen] == ':') {
			v = atol(line + klen + 1);
			break;
		}
	fclose(f);
	return v;
}

/* ---- kswapd ------------------------------------------------------------- */

pid_t pid_of(const char *comm)
{
	char path[64], buf[64];
	pid_t pid;

	/* kernel threads have low pids; scan a generous range */
	for (pid = 1; pid < 4096; pid++) {
		snprintf(path, sizeof(path), "/proc/%d/comm", pid);
		if (read_text(path, buf, sizeof(buf)) <= 0)
			continue;
		buf[strcspn(buf, "\n")] = '\0';
		if (!strcmp(buf, comm))
			return pid;
	}
	return -1;
}

/* utime + stime of @pid in clock ticks (/proc/PID/stat fields 14, 15). */
long long task_cpu_ticks(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long ut, st;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (read_text(path, buf, sizeof(buf)) <= 0)
		return -1;
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
			 &ut, &st) != 2)
		return -1;
	return ut + st;
}

/* ---- modules ------------------------------------------------------------ */

/* finit_module(@path, @params): 0 or -errno. */
int module_load(const char *path, const char *params)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret, err;

	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, params, 0);
	err = errno;
	close(fd);
	return ret ? -err : 0;
}

int module_unload(const char *name)
{
	return syscall(SYS_delete_module, name, O_NONBLOCK) ? -errno : 0;
}

int module_loaded(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/module/%s", name);
	return access(path, F_OK) == 0;
}

/* A "key value" line of the rxring debugfs stats; -1 if absent. */
long long rxring_stat(const char *key)
{
	char buf[8192], *p;
	size_t klen = strlen(key);

	if (read_text(RXRING_STATS, buf, sizeof(buf)) <= 0)
		return -1;
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, klen) && p[klen] == ' ')
			return atoll(p + klen + 1);
	return -1;
}

/* ---- kernel log --------------------------------------------------------- */

/* Put a line into the kernel log, to scan from later. */
void kmsg_mark(const char *marker)
{
	int err = write_text("/dev/kmsg", marker);

	if (err)
		ksft_print_msg("write /dev/kmsg: %s\n", strerror(-err));
}

/*
 * The kernel log after the last occurrence of @marker, into a malloc'ed
 * string (the whole log if the marker is gone); NULL on error.
 */
char *kmsg_since(const char *marker)
{
	int size = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0), n;
	char *buf, *p, *last = NULL;

	if (size <= 0)
		size = 1 << 20;
	buf = malloc(size + 1);
	if (!buf)
		return NULL;
	n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, size);
	if (n < 0) {
		ksft_print_msg("klogctl(READ_ALL): %s\n", strerror(errno));
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	for (p = buf; (p = strstr(p, marker)); p++)
		last = p;
	if (last)
		memmove(buf, last, strlen(last) + 1);
	return buf;
}

/*
 * The first kernel-log line after @marker that reports a splat (a line with
 * one of the SPLAT_PATTERNS), or NULL; without the list, a line saying so.
 */
char *kmsg_first_splat(const char *marker, char *out, size_t len)
{
	char pats[LAB_MAX_SPLATS][64], *log, *line, *save = NULL, *found = NULL;
	int i, n = 0;
	FILE *f;

	/* The host's scripts/scan-log.sh reads the same list. */
	f = fopen(SPLAT_PATTERNS, "r");
	if (!f) {
		/* Fail closed: no list, no proof that the log is clean. */
		snprintf(out, len, "cannot read %s: %s", SPLAT_PATTERNS, strerror(errno));
		return out;
	}
	while (n < LAB_MAX_SPLATS && fgets(pats[n], sizeof(pats[n]), f)) {
		pats[n][strcspn(pats[n], "\n")] = '\0';
		if (pats[n][0])
			n++;
	}
	fclose(f);
	log = kmsg_since(marker);
	if (!log)
		return NULL;
	for (line = strtok_r(log, "\n", &save); line && !found;
	     line = strtok_r(NULL, "\n", &save))
		for (i = 0; i < n; i++)
			if (strstr(line, pats[i])) {
				snprintf(out, len, "%s", line);
				found = out;
				break;
			}
	free(log);
	return found;
}

/* ---- helper processes --------------------------------------------------- */

/* Start @argv with stdout/stderr to @out (appended); pid or -1. */
pid_t spawn(char *const argv[], const char *out)
{
	pid_t pid = fork();

	if (pid < 0) {
		ksft_print_msg("fork: %s\n", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		int fd = open(out, O_WRONLY | O_CREAT | O_APPEND, 0644);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
			close(fd);
		}
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		execv(argv[0], argv);
		fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	return pid;
}

/* Run @argv to completion; its exit status (128+sig if killed), -1 on error. */
int run_wait(char *const argv[], const char *out)
{
	pid_t pid = spawn(argv, out);
	int status;

	if (pid < 0)
		return -1;
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void stop_child(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
}

/*
 * Run the benchmark's fragmenter (-D: it fragments, reports and leaves a
 * holder process that keeps its allocations until SIGTERM). Returns the
 * fragmenter's exit status (0 = state reached, 1 = not reached, other =
 * error) and the holder's pid in *holder (-1 if none).
 */
int run_fragmenter(const char *log, pid_t *holder)
{
	char *argv[] = { FRAGMENTER, "-D", NULL };
	char buf[65536], *p;
	int rc;

	/* the holder outlives its parent: make it ours to reap */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1))
		ksft_print_msg("prctl(PR_SET_CHILD_SUBREAPER): %s\n", strerror(errno));
	unlink(log);
	rc = run_wait(argv, log);
	*holder = -1;
	if (read_text(log, buf, sizeof(buf)) > 0) {
		p = strstr(buf, "fragmenter: holder pid ");
		if (p)
			*holder = atoi(p + strlen("fragmenter: holder pid "));
		p = strstr(buf, "fragmenter: after ");
		if (p)
			ksft_print_msg("%.*s\n", (int)strcspn(p, "\n"), p);
	}
	return rc;
}

/* The holder was reparented to us (subreaper): signal and reap it. */
void stop_holder(pid_t holder)
{
	if (holder <= 0)
		return;
	if (kill(holder, SIGTERM))
		ksft_print_msg("kill fragmenter holder %d: %s\n", holder, strerror(errno));
	else if (waitpid(holder, NULL, 0) < 0)
		ksft_print_msg("waitpid fragmenter holder %d: %s\n", holder, strerror(errno));
}

