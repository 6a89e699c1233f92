// SPDX-License-Identifier: GPL-2.0
/*
 * fragmenter: put memory into the state the 2004 "beat kswapd" series
 * was written for, and check that it got there.
 *
 * The state: the biggest zone has more free pages than its high
 * watermark, so kswapd sleeps, yet (almost) none of them sit in free
 * blocks of order >= 3, so a GFP_ATOMIC order-3 allocation fails.
 *
 * It gets there the way a long-running machine does, with a mix:
 *  1. clean page cache: read the raw block device (-d, /dev/vda);
 *  2. under the memory pressure that follows, in small interleaved
 *     steps: anonymous memory, pipes holding data, unix sockets with
 *     queued datagrams, files in a tmpfs (dentries and inodes), page
 *     tables (one touch per 2 MiB of a sparse mapping) and threads
 *     (kernel stacks); more page cache is read all along;
 *  3. squeeze: more anonymous memory until the zone is at its low
 *     watermark, which uses up the large free blocks;
 *  4. churn: close every other pipe and socket, unlink every other
 *     file, drop every other page-cache page and every other
 *     anonymous page, until the zone has -F times its high watermark
 *     free.  Each freed page has a buddy that is still in use.
 * Steps 3-4 repeat (up to -R rounds) until the check passes: zone free
 * above high and at most -P percent of the free pages in blocks of
 * order >= 3.  /proc/buddyinfo is printed before and after.
 *
 * Everything stays allocated while the scenario runs: with -D the work
 * is done in a child that holds it until SIGTERM/SIGINT (or -t seconds)
 * and the parent exits 0 on success, 1 if the state was not reached;
 * without -D the program itself holds until signalled.
 * Output: "fragmenter: key value" lines and buddyinfo copies.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PAGE		4096UL
#define MAX_ORDERS	11
#define FRAG_ORDER	3
#define STEP_ANON_PAGES	64
#define PIPE_BYTES	(64 * 1024)
#define PIPE_PER_STEP	(16 * 1024)
#define SOCK_MSGS	64
#define FILES_PER_STEP	4
#define THREAD_EVERY	32
#define PT_STRIDE	(2UL << 20)

struct zone_info {
	char name[32];
	long managed, free, min, low, high;
	long nr_free[MAX_ORDERS];	/* from buddyinfo, summed over nodes */
};

static struct {
	const char *disk;
	const char *tmpdir;
	double pc_frac;		/* page cache to read first, share of MemTotal */
	double anon_frac;	/* anonymous memory in step 2, share of MemTotal */
	double free_mult;	/* target free after churn, in high watermarks */
	double max_ge3_pct;	/* pass: pages in order>=3 blocks / free, % */
	int rounds;
	int daemon;
	int hold_secs;
	const char *ready_file;
} opt = {
	.disk = "/dev/vda",
	.tmpdir = "/tmp/fragmenter",
	.pc_frac = 0.35,
	.anon_frac = 0.35,
	.free_mult = 4.0,
	.max_ge3_pct = 2.0,
	.rounds = 4,
	.hold_secs = 0,
};

/* What we hold; freed in part by churn(). */
static struct {
	char *anon;
	size_t anon_pages, anon_cap;
	size_t anon_punched;	/* anon pages [0, anon_punched) already punched */
	int *pipes;		/* read ends and write ends, pairs */
	size_t npipes, pipes_cap;
	int *socks;
	size_t nsocks, socks_cap;
	size_t nfiles;
	char *sparse;
	size_t sparse_len, sparse_touched;
	size_t nthreads;
	int disk_fd;
	off_t disk_size, disk_pos;
	off_t disk_punched;
} hold;

static volatile sig_atomic_t stop;

static void die(const char *what)
{
	fprintf(stderr, "fragmenter: error: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p)
		die("realloc");
	return p;
}

static long meminfo(const char *key)
{
	char line[256];
	size_t klen = strlen(key);
	long val = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		die("/proc/meminfo");
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, key, klen) && line[klen] == ':') {
			val = atol(line + klen + 1);
			break;
		}
	}
	fclose(f);
	return val;
}

/* Biggest zone by managed pages, with its watermarks and free lists. */
static void read_zone(struct zone_info *z)
{
	char line[512], name[32];
	long v, best = -1;
	struct zone_info tmp = { 0 };
	FILE *f = fopen("/proc/zoneinfo", "r");

	if (!f)
		die("/proc/zoneinfo");
	memset(z, 0, sizeof(*z));
	while (fgets(line, sizeof(line), f)) {
		int node;

		if (sscanf(line, "Node %d, zone %31s", &node, name) == 2) {
			if (tmp.managed > best) {
				best = tmp.managed;
				*z = tmp;
			}
			memset(&tmp, 0, sizeof(tmp));
			snprintf(tmp.name, sizeof(tmp.name), "%s", name);
			continue;
		}
		if (sscanf(line, " pages free %ld", &v) == 1)
			tmp.free = v;
		else if (sscanf(line, " min %ld", &v) == 1)
			tmp.min = v;
		else if (sscanf(line, " low %ld", &v) == 1)
			tmp.low = v;
		else if (sscanf(line, " high %ld", &v) == 1)
			tmp.high = v;
		else if (sscanf(line, " managed %ld", &v) == 1)
			tmp.managed = v;
	}
	if (tmp.managed > best)
		*z = tmp;
	fclose(f);

	f = fopen("/proc/buddyinfo", "r");
	if (!f)
		die("/proc/buddyinfo");
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "zone");
		int o, n;

		if (!p || sscanf(p, "zone %31s%n", name, &n) != 1 || strcmp(name, z->name))
			continue;
		p += n;
		for (o = 0; o < MAX_ORDERS; o++) {
			long cnt = strtol(p, &p, 10);

			z->nr_free[o] += cnt;
		}
	}
	fclose(f);
}

static long pages_in_order_ge(const struct zone_info *z, int order)
{
	long pages = 0;
	int o;

	for (o = order; o < MAX_ORDERS; o++)
		pages += z->nr_free[o] << o;
	return pages;
}

static void print_buddyinfo(const char *when)
{
	char line[512];
	FILE *f = fopen("/proc/buddyinfo", "r");

	if (!f)
		die("/proc/buddyinfo");
	printf("fragmenter: buddyinfo %s\n", when);
	while (fgets(line, sizeof(line), f))
		printf("  %s", line);
	fclose(f);
}

static void print_state(const char *when)
{
	struct zone_info z;

	read_zone(&z);
	printf("fragmenter: %s zone %s free %ld min %ld low %ld high %ld",
	       when, z.name, z.free, z.min, z.low, z.high);
	printf(" free_ge%d %ld blocks_ge%d %ld\n",
	       FRAG_ORDER, pages_in_order_ge(&z, FRAG_ORDER), FRAG_ORDER,
	       z.nr_free[3] + z.nr_free[4] + z.nr_free[5] + z.nr_free[6] +
	       z.nr_free[7] + z.nr_free[8] + z.nr_free[9] + z.nr_free[10]);
	fflush(stdout);
}

/* Read up to @bytes more of the disk into the page cache, wrapping round. */
static void read_disk(size_t bytes)
{
	static char buf[1 << 20];

	while (bytes) {
		size_t n = bytes < sizeof(buf) ? bytes : sizeof(buf);
		ssize_t r;

		if (hold.disk_pos >= hold.disk_size)
			hold.disk_pos = 0;
		r = pread(hold.disk_fd, buf, n, hold.disk_pos);
		if (r < 0)
			die("read disk");
		if (r == 0) {
			hold.disk_pos = hold.disk_size;
			continue;
		}
		hold.disk_pos += r;
		bytes -= r;
	}
}

static void add_anon(size_t pages)
{
	size_t i;

	if (hold.anon_pages + pages > hold.anon_cap) {
		fprintf(stderr, "fragmenter: anon region full\n");
		return;
	}
	for (i = 0; i < pages; i++)
		hold.anon[(hold.anon_pages + i) * PAGE] = (char)i | 1;
	hold.anon_pages += pages;
}

static void add_pipe_data(size_t bytes)
{
	static char buf[PIPE_PER_STEP];
	static size_t filled = PIPE_BYTES;
	int fds[2];

	memset(buf, 0x5a, sizeof(buf));
	while (bytes) {
		size_t n = bytes < sizeof(buf) ? bytes : sizeof(buf);

		if (filled >= PIPE_BYTES) {
			if (pipe2(fds, O_NONBLOCK))
				die("pipe");
			fcntl(fds[1], F_SETPIPE_SZ, PIPE_BYTES);
			if (hold.npipes + 2 > hold.pipes_cap) {
				hold.pipes_cap = hold.pipes_cap * 2 + 64;
				hold.pipes = xrealloc(hold.pipes, hold.pipes_cap * sizeof(int));
			}
			hold.pipes[hold.npipes++] = fds[0];
			hold.pipes[hold.npipes++] = fds[1];
			filled = 0;
		}
		if (write(hold.pipes[hold.npipes - 1], buf, n) < 0 && errno != EAGAIN)
			die("pipe write");
		filled += n;
		bytes -= n;
	}
}

/* A socketpair with datagrams of mixed sizes queued: skbs in slab. */
static void add_socket(void)
{
	static const size_t sizes[] = { 256, 1500, 3000, 700 };
	static char buf[4096];
	int sv[2], i, big = 4 << 20;

	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv))
		die("socketpair");
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUFFORCE, &big, sizeof(big));
	setsockopt(sv[1], SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big));
	for (i = 0; i < SOCK_MSGS; i++)
		if (send(sv[0], buf, sizes[i % 4], MSG_DONTWAIT) < 0)
			break;
	if (hold.nsocks + 2 > hold.socks_cap) {
		hold.socks_cap = hold.socks_cap * 2 + 64;
		hold.socks = xrealloc(hold.socks, hold.socks_cap * sizeof(int));
	}
	hold.socks[hold.nsocks++] = sv[0];
	hold.socks[hold.nsocks++] = sv[1];
}

static void add_files(int n)
{
	char path[PATH_MAX];
	int i, fd;

	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/f%zu", opt.tmpdir, hold.nfiles++);
		fd = open(path, O_CREAT | O_WRONLY, 0600);
		if (fd < 0)
			die("create file");
		close(fd);
	}
}

/* One page-table page (and one anonymous page) per 2 MiB touched. */
static void add_page_table(void)
{
	if ((hold.sparse_touched + 1) * PT_STRIDE > hold.sparse_len)
		return;
	hold.sparse[hold.sparse_touched * PT_STRIDE] = 1;
	hold.sparse_touched++;
}

static void *idle_thread(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

/* A thread costs a kernel stack and a task_struct. */
static void add_thread(void)
{
	pthread_attr_t attr;
	pthread_t t;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, PTHREAD_STACK_MIN > 65536 ? PTHREAD_STACK_MIN : 65536);
	if (pthread_create(&t, &attr, idle_thread, NULL) == 0)
		hold.nthreads++;
	pthread_attr_destroy(&attr);
}

/* Step 2: the interleaved mix, while page cache keeps memory full. */
static void mixed_fill(long total_pages)
{
	size_t steps = (size_t)(opt.anon_frac * total_pages) / STEP_ANON_PAGES;
	size_t i;

	for (i = 0; i < steps; i++) {
		add_anon(STEP_ANON_PAGES);
		add_pipe_data(PIPE_PER_STEP);
		if (i % 2 == 0)
			add_socket();
		add_files(FILES_PER_STEP);
		add_page_table();
		if (i % THREAD_EVERY == 0)
			add_thread();
		read_disk(64 * 1024);
	}
}

/*
 * Step 3: use up the free large blocks with anonymous memory.  Anonymous
 * memory cannot be reclaimed without swap, so stop at 60% of memory
 * rather than drive the guest into the OOM killer.
 */
static void squeeze(long total_pages)
{
	size_t anon_max = (size_t)(total_pages * 0.6);
	struct zone_info z;

	for (;;) {
		read_zone(&z);
		if (z.free <= z.low || pages_in_order_ge(&z, FRAG_ORDER) < z.high / 8)
			break;
		if (hold.anon_pages - hold.anon_punched / 2 + STEP_ANON_PAGES > anon_max)
			break;
		add_anon(STEP_ANON_PAGES);
	}
}

static void close_pair(int *fds, size_t i)
{
	if (fds[i] >= 0) {
		close(fds[i]);
		close(fds[i + 1]);
		fds[i] = -1;
		fds[i + 1] = -1;
	}
}

/*
 * Step 4: free in patterns that leave each freed page's buddy in use,
 * until the zone has @target free pages.
 */
static void churn(long target)
{
	char path[PATH_MAX];
	struct zone_info z;
	size_t i;

	/* Unmovable: every other pipe and socket pair, every other file. */
	for (i = 0; i + 1 < hold.npipes; i += 4)
		close_pair(hold.pipes, i);
	for (i = 0; i + 1 < hold.nsocks; i += 4)
		close_pair(hold.socks, i);
	for (i = 0; i < hold.nfiles; i += 2) {
		snprintf(path, sizeof(path), "%s/f%zu", opt.tmpdir, i);
		unlink(path);
	}

	/* Movable: every other page-cache page, then every other anon page. */
	read_zone(&z);
	while (z.free < target * 3 / 4 && hold.disk_punched + 2 * (off_t)PAGE <= hold.disk_pos) {
		for (i = 0; i < 256 && hold.disk_punched + 2 * (off_t)PAGE <= hold.disk_pos; i++) {
			posix_fadvise(hold.disk_fd, hold.disk_punched, PAGE, POSIX_FADV_DONTNEED);
			hold.disk_punched += 2 * PAGE;
		}
		read_zone(&z);
	}
	while (z.free < target && hold.anon_punched + 2 <= hold.anon_pages) {
		for (i = 0; i < 256 && hold.anon_punched + 2 <= hold.anon_pages; i++) {
			madvise(hold.anon + hold.anon_punched * PAGE, PAGE, MADV_DONTNEED);
			hold.anon_punched += 2;
		}
		read_zone(&z);
	}
}

static bool check(struct zone_info *z)
{
	long ge3;

	read_zone(z);
	ge3 = pages_in_order_ge(z, FRAG_ORDER);
	return z->free > z->high && ge3 * 100.0 <= opt.max_ge3_pct * z->free;
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void setup(long total_pages)
{
	struct rlimit rl = { 1 << 20, 1 << 20 };

	if (setrlimit(RLIMIT_NOFILE, &rl)) {
		rl.rlim_cur = 65536;
		rl.rlim_max = 65536;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	mkdir(opt.tmpdir, 0700);
	if (mount("fragmenter", opt.tmpdir, "tmpfs", 0, "mode=0700"))
		fprintf(stderr, "fragmenter: note: tmpfs mount on %s: %s (using it as is)\n",
			opt.tmpdir, strerror(errno));

	hold.disk_fd = open(opt.disk, O_RDONLY);
	if (hold.disk_fd < 0)
		die(opt.disk);
	hold.disk_size = lseek(hold.disk_fd, 0, SEEK_END);
	if (hold.disk_size <= 0)
		die("disk size");

	hold.anon_cap = total_pages;
	hold.anon = mmap(NULL, hold.anon_cap * PAGE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (hold.anon == MAP_FAILED)
		die("mmap anon");
	madvise(hold.anon, hold.anon_cap * PAGE, MADV_NOHUGEPAGE);

	/* Page tables for about 1% of memory. */
	hold.sparse_len = (size_t)(total_pages / 100 + 1) * PT_STRIDE;
	hold.sparse = mmap(NULL, hold.sparse_len, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (hold.sparse == MAP_FAILED)
		die("mmap sparse");
	madvise(hold.sparse, hold.sparse_len, MADV_NOHUGEPAGE);
}

static int fragment(void)
{
	long total_pages = meminfo("MemTotal") / 4;
	struct zone_info z;
	long target;
	int round;
	bool ok = false;

	print_buddyinfo("before");
	print_state("before");
	setup(total_pages);

	read_disk((size_t)(opt.pc_frac * total_pages) * PAGE);
	print_state("pagecache");
	mixed_fill(total_pages);
	print_state("mixed");

	for (round = 1; round <= opt.rounds && !ok; round++) {
		squeeze(total_pages);
		print_state("squeezed");
		read_zone(&z);
		target = (long)(opt.free_mult * z.high);
		churn(target);
		sleep(1);	/* let per-cpu lists and kswapd settle */
		ok = check(&z);
		printf("fragmenter: round %d %s\n", round, ok ? "ok" : "not yet");
	}

	print_buddyinfo("after");
	print_state("after");
	printf("fragmenter: held anon_pages %zu anon_punched %zu pipes %zu sockets %zu\n",
	       hold.anon_pages - hold.anon_punched / 2, hold.anon_punched / 2,
	       hold.npipes / 2, hold.nsocks / 2);
	printf("fragmenter: held files %zu pt_touches %zu threads %zu pagecache_read_mb %lld\n",
	       hold.nfiles, hold.sparse_touched, hold.nthreads,
	       (long long)hold.disk_pos >> 20);
	printf("fragmenter: result %s\n", ok ? "ok" : "fail");
	fflush(stdout);
	return ok ? 0 : 1;
}

static void usage(const char *argv0)
{
	fprintf(stderr,
		"usage: %s [-d disk] [-T tmpdir] [-c pagecache_frac] [-a anon_frac]\n"
		"          [-F free_mult] [-P max_ge3_pct] [-R rounds] [-D] [-t hold_secs]\n"
		"          [-w ready_file]\n", argv0);
	exit(2);
}

static void hold_until_signalled(void)
{
	struct sigaction sa = { .sa_handler = on_signal };
	time_t end = opt.hold_secs ? time(NULL) + opt.hold_secs : 0;

	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	while (!stop && (!end || time(NULL) < end))
		sleep(1);
}

int main(int argc, char **argv)
{
	int c, status, rc, fds[2];
	pid_t pid;
	char r;

	while ((c = getopt(argc, argv, "d:T:c:a:F:P:R:Dt:w:")) != -1) {
		switch (c) {
		case 'd':
			opt.disk = optarg;
			break;
		case 'T':
			opt.tmpdir = optarg;
			break;
		case 'c':
			opt.pc_frac = atof(optarg);
			break;
		case 'a':
			opt.anon_frac = atof(optarg);
			break;
		case 'F':
			opt.free_mult = atof(optarg);
			break;
		case 'P':
			opt.max_ge3_pct = atof(optarg);
			break;
		case 'R':
			opt.rounds = atoi(optarg);
			break;
		case 'D':
			opt.daemon = 1;
			break;
		case 't':
			opt.hold_secs = atoi(optarg);
			break;
		case 'w':
			opt.ready_file = optarg;
			break;
		default:
			usage(argv[0]);
		}
	}
	if (opt.pc_frac < 0 || opt.pc_frac > 0.9 || opt.anon_frac <= 0 || opt.anon_frac > 0.8 ||
	    opt.free_mult < 1 || opt.rounds < 1)
		usage(argv[0]);
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (!opt.daemon) {
		rc = fragment();
		if (opt.ready_file)
			close(open(opt.ready_file, O_CREAT | O_WRONLY, 0644));
		hold_until_signalled();
		return rc;
	}

	/* The child does the work and holds it; the parent reports. */
	if (pipe(fds))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		close(fds[0]);
		rc = fragment();
		r = (char)rc;
		if (write(fds[1], &r, 1) != 1)
			die("status pipe");
		close(fds[1]);
		if (opt.ready_file)
			close(open(opt.ready_file, O_CREAT | O_WRONLY, 0644));
		hold_until_signalled();
		_exit(rc);
	}
	close(fds[1]);
	if (read(fds[0], &r, 1) != 1) {
		waitpid(pid, &status, 0);
		fprintf(stderr, "fragmenter: holder died before reporting\n");
		return 2;
	}
	printf("fragmenter: holder pid %d\n", pid);
	return r;
}
