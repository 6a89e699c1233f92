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
 *  1. cache: clean page cache up to -c of memory, read from the raw block
 *     device (-d, /dev/vda) one page at a time (readahead off); after each
 *     7 pages (with -s: 4 to 10, drawn from the seed) one unmovable
 *     allocation that stays: a page of pipe data or a page table (one
 *     touch per 2 MiB of a sparse mapping); every few pages a datagram
 *     queued on a unix socket and a file created in a tmpfs (slab: skbs,
 *     dentries, inodes), now and then a thread (kernel stack);
 *  2. anon: anonymous memory, page by page, until the zone is down to
 *     twice its high watermark (kswapd has not had to run: the cache is
 *     all there); the free pages left are the largest blocks, as the buddy
 *     allocator hands out the smallest first;
 *  3. churn: close every other small-datagram socket pair and every fourth
 *     pipe, unlink every other file, and drop every other anonymous page
 *     (oldest first; with -s, one page of each pair, drawn from the seed,
 *     so that now and then two freed pages are neighbours) until -F times
 *     the high watermark more is free: most freed pages' neighbours are
 *     still in use;
 *  4. plug: 6 KiB datagrams, whose data sits in order-3 slabs, take what is
 *     left of the free blocks of order >= 3 (socket buffers that stay).
 *     The holes of step 3 keep the zone above its watermarks meanwhile,
 *     so kswapd stays asleep.
 * Steps 3-4 repeat (up to -R rounds) until the check passes: zone free above
 * high and at most -P percent of the free pages in blocks of order >= 3.
 * /proc/buddyinfo is printed before and after.
 *
 * Everything stays allocated while the scenario runs: with -D the work
 * is done in a child that holds it until SIGTERM/SIGINT (or -t seconds)
 * and the parent exits 0 on success, 1 if the state was not reached;
 * without -D the program itself holds until signalled.
 * Output: "fragmenter: key value" lines and buddyinfo copies.
 * With -r it only prints the biggest zone's state line ("fragmenter: after
 * zone ...") and exits: the report of guest/jobs/bench.sh's stress-ng
 * states, in the same format and from the same reader.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
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
/* Every so many fill steps, one of each unmovable allocation. */
/*
 * Raw block device page cache is GFP_USER, so it comes from the same
 * (unmovable) free lists as pipe pages and page tables: one held page after
 * each PC_RUN pages of cache keeps reclaim of the cache from freeing whole
 * order-3 blocks, at least where the pages were first laid out.
 */
#define PC_RUN		7
#define PT_EVERY	4	/* a page table instead of pipe data */
#define SOCK_EVERY	4	/* a datagram on a unix socket */
#define FILE_EVERY	2	/* a tmpfs file */
#define THREAD_EVERY	512	/* a thread */
#define ANON_BATCH	256	/* anon pages between zone checks */
#define PIPE_BYTES	(64 * 1024)
#define SOCK_MSGS	10	/* net.unix.max_dgram_qlen default */
#define PT_STRIDE	(2UL << 20)

struct zone_info {
	char name[32];
	long managed, free, min, low, high;
	long nr_free[MAX_ORDERS];	/* from buddyinfo, summed over nodes */
};

static struct {
	const char *disk;
	const char *tmpdir;
	double pc_frac;		/* page cache to read, share of MemTotal */
	double anon_max;	/* anonymous memory at most, share of MemTotal */
	double free_mult;	/* target free after churn, in high watermarks */
	double max_ge3_pct;	/* pass: pages in order>=3 blocks / free, % */
	int rounds;
	int daemon;
	int hold_secs;
	const char *ready_file;
	unsigned long seed;	/* 0: the fixed pattern; else a seeded layout */
} opt = {
	.disk = "/dev/vda",
	.tmpdir = "/tmp/fragmenter",
	.pc_frac = 0.30,
	.anon_max = 0.70,
	.free_mult = 2.0,
	.max_ge3_pct = 2.0,
	.rounds = 4,
	.hold_secs = 0,
};

/* What we hold; freed in part by churn(). */
static struct {
	char *anon;
	size_t anon_pages, anon_cap;
	size_t anon_punched;	/* anon pages [0, anon_punched) already punched */
	size_t anon_dropped;
	int *pipes;		/* read ends and write ends, pairs */
	size_t npipes, pipes_cap, pipes_closed;
	int *socks;
	size_t nsocks, socks_cap, socks_closed;
	int *bigsocks;
	size_t nbigsocks, bigsocks_cap;
	size_t nfiles, files_unlinked;
	char *sparse;
	size_t sparse_len, sparse_touched;
	size_t nthreads;
	size_t big_datagrams;
	int disk_fd;
	off_t disk_size, disk_pos;
	size_t pc_pages;
	size_t steps;
} hold;

static volatile sig_atomic_t stop;

/*
 * Seeded layout (-s): xorshift64, so that a seed gives the same sequence
 * of choices in every run (the guest's timing still varies what the
 * buddy allocator hands out, but far less than between seeds).
 */
static uint64_t rng_state;

static uint64_t rng_next(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* Page cache pages before the next unmovable page: PC_RUN, or 4..10. */
static int pc_run_len(void)
{
	return opt.seed ? 4 + (int)(rng_next() % 7) : PC_RUN;
}

/* Of the anon pair at @i, which page to drop: the first, or either. */
static size_t punch_offset(void)
{
	return opt.seed ? (size_t)(rng_next() & 1) : 0;
}

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

static void print_counters(const char *when)
{
	static const char *const keys[] = { "compact_daemon_wake", "compact_isolated",
		"pgmigrate_success", "pageoutrun", "pgsteal_kswapd", "compact_stall", NULL };
	char line[256];
	FILE *f = fopen("/proc/vmstat", "r");
	int i;

	printf("fragmenter: counters %s", when);
	while (f && fgets(line, sizeof(line), f))
		for (i = 0; keys[i]; i++)
			if (!strncmp(line, keys[i], strlen(keys[i])) && line[strlen(keys[i])] == ' ')
				printf(" %s", strtok(line, "\n"));
	if (f)
		fclose(f);
	printf("\n");
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

/* One more page of the disk in the page cache (readahead is off). */
static void add_pagecache_page(void)
{
	static char buf[PAGE];

	if (hold.disk_pos + (off_t)PAGE > hold.disk_size)
		hold.disk_pos = 0;
	if (pread(hold.disk_fd, buf, PAGE, hold.disk_pos) < 0)
		die("read disk");
	hold.disk_pos += PAGE;
	hold.pc_pages++;
}

static void add_anon_page(void)
{
	if (hold.anon_pages >= hold.anon_cap)
		return;
	hold.anon[hold.anon_pages * PAGE] = 1;
	hold.anon_pages++;
}

/* A page of data into the current pipe; a new pipe every PIPE_BYTES. */
static void add_pipe_page(void)
{
	static char buf[PAGE];
	static size_t filled = PIPE_BYTES;
	int fds[2];

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
		memset(buf, 0x5a, sizeof(buf));
	}
	if (write(hold.pipes[hold.npipes - 1], buf, sizeof(buf)) < 0 && errno != EAGAIN)
		die("pipe write");
	filled += sizeof(buf);
}

/* A datagram of a mixed size on the current socket pair: skbs in slab. */
static void add_datagram(void)
{
	static const size_t sizes[] = { 256, 1500, 3000, 700 };
	static char buf[4096];
	static unsigned int queued = SOCK_MSGS;
	int sv[2];

	if (queued >= SOCK_MSGS) {
		if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv))
			die("socketpair");
		if (hold.nsocks + 2 > hold.socks_cap) {
			hold.socks_cap = hold.socks_cap * 2 + 64;
			hold.socks = xrealloc(hold.socks, hold.socks_cap * sizeof(int));
		}
		hold.socks[hold.nsocks++] = sv[0];
		hold.socks[hold.nsocks++] = sv[1];
		queued = 0;
	}
	send(hold.socks[hold.nsocks - 2], buf, sizes[queued % 4], MSG_DONTWAIT);
	queued++;
}

static void add_file(void)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/f%zu", opt.tmpdir, hold.nfiles++);
	fd = open(path, O_CREAT | O_WRONLY, 0600);
	if (fd < 0)
		die("create file");
	close(fd);
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

static bool few_large_blocks(const struct zone_info *z)
{
	return pages_in_order_ge(z, FRAG_ORDER) * 100.0 <= opt.max_ge3_pct * z->free;
}

/* Step 1: page cache with unmovable allocations between its runs. */
static void cache_fill(long total_pages)
{
	size_t pages = (size_t)(opt.pc_frac * total_pages);
	size_t i;
	int j, run;

	for (i = 0; hold.pc_pages < pages; i++) {
		run = pc_run_len();
		for (j = 0; j < run; j++)
			add_pagecache_page();
		if (i % PT_EVERY == 3)
			add_page_table();
		else
			add_pipe_page();
		if (i % SOCK_EVERY == SOCK_EVERY / 2)
			add_datagram();
		if (i % FILE_EVERY == 1)
			add_file();
		if (i % THREAD_EVERY == 5)
			add_thread();
	}
}

/*
 * Step 2: anonymous memory until the zone is down to twice its high
 * watermark (plus a little: the check runs every ANON_BATCH pages), never
 * past anon_max: there is no swap.  Staying well above the low watermark
 * keeps kswapd asleep, so the page cache is not reclaimed in long runs.
 */
static void anon_fill(long total_pages)
{
	size_t anon_max = (size_t)(opt.anon_max * total_pages);
	struct zone_info z;
	int i;

	for (;;) {
		read_zone(&z);
		if (z.free <= 2 * z.high + ANON_BATCH || hold.anon_pages >= anon_max)
			break;
		for (i = 0; i < ANON_BATCH; i++)
			add_anon_page();
	}
}

/*
 * A datagram of 6 KiB has its data in kmalloc-8k, whose slabs are order-3
 * pages: a socket buffer that takes a free order-3 block while there is
 * one (and an order-1 block when there is not).
 */
static void add_big_datagram(void)
{
	static char buf[6144];
	static unsigned int queued = SOCK_MSGS;
	int sv[2];

	if (queued >= SOCK_MSGS) {
		if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv))
			die("socketpair");
		if (hold.nbigsocks + 2 > hold.bigsocks_cap) {
			hold.bigsocks_cap = hold.bigsocks_cap * 2 + 64;
			hold.bigsocks = xrealloc(hold.bigsocks, hold.bigsocks_cap * sizeof(int));
		}
		hold.bigsocks[hold.nbigsocks++] = sv[0];
		hold.bigsocks[hold.nbigsocks++] = sv[1];
		queued = 0;
	}
	if (send(hold.bigsocks[hold.nbigsocks - 2], buf, sizeof(buf), MSG_DONTWAIT) >= 0)
		hold.big_datagrams++;
	queued++;
}

/*
 * Step 4: what is left of the free large blocks goes to socket buffers,
 * up to 4% of memory per round (a datagram takes about two pages), or as
 * many datagrams as the high watermark has pages (about two high
 * watermarks of memory) where that is more: with THP, khugepaged raises
 * min_free_kbytes (5.5x in a 1 GiB guest), steps 2-3 leave about four
 * high watermarks free, and 4% of memory no longer covers the large
 * blocks among them.
 */
static void plug(long total_pages)
{
	struct zone_info z;
	size_t cap;
	int i;

	read_zone(&z);
	cap = (size_t)total_pages / 25 / 2;
	if ((size_t)z.high > cap)
		cap = z.high;
	cap += hold.big_datagrams;
	for (;;) {
		read_zone(&z);
		if (pages_in_order_ge(&z, FRAG_ORDER) <= z.high / 16 || hold.big_datagrams >= cap)
			break;
		for (i = 0; i < 64; i++)
			add_big_datagram();
	}
}

static int close_pair(int *fds, size_t i)
{
	if (fds[i] < 0)
		return 0;
	close(fds[i]);
	close(fds[i + 1]);
	fds[i] = -1;
	fds[i + 1] = -1;
	return 1;
}

/*
 * Step 3: free in patterns that leave each freed page's neighbours in use,
 * until the zone has @target free pages.
 */
static void churn(long target)
{
	char path[PATH_MAX];
	struct zone_info z;
	size_t i;

	/* Unmovable: every other small-datagram socket pair, every fourth pipe,
	 * every other file.
	 */
	for (i = 0; i + 1 < hold.nsocks; i += 4)
		hold.socks_closed += close_pair(hold.socks, i);
	for (i = 0; i + 1 < hold.npipes; i += 8)
		hold.pipes_closed += close_pair(hold.pipes, i);
	for (i = hold.files_unlinked * 2; i < hold.nfiles; i += 2) {
		snprintf(path, sizeof(path), "%s/f%zu", opt.tmpdir, i);
		if (!unlink(path))
			hold.files_unlinked++;
	}

	/* Movable: every other anonymous page, from the oldest on. */
	read_zone(&z);
	while (z.free < target && hold.anon_punched + 2 <= hold.anon_pages) {
		for (i = 0; i < 256 && hold.anon_punched + 2 <= hold.anon_pages; i++) {
			/* munmap, not madvise: the guest kernel has no
			 * CONFIG_ADVISE_SYSCALLS.  One VMA more per page.
			 */
			if (munmap(hold.anon + (hold.anon_punched + punch_offset()) * PAGE, PAGE))
				die("munmap");
			hold.anon_punched += 2;
			hold.anon_dropped++;
		}
		read_zone(&z);
	}
}

static bool check(struct zone_info *z)
{
	read_zone(z);
	return z->free > z->high && few_large_blocks(z);
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/*
 * Knobs set while the fragmenter works and put back when it is done:
 *  - vm.percpu_pagelist_high_fraction: since 6.7 the per-cpu free lists
 *    grow to an eighth of the zone while pages are being freed and give
 *    them back to the buddy allocator only gradually, so pages freed by the
 *    churn would show in /proc/zoneinfo and /proc/buddyinfo seconds later;
 *    capped (high = zone / fraction, at least 4 * batch);
 *  - vm.compaction_proactiveness: on the THP guest (2 MiB pageblocks,
 *    khugepaged's min_free_kbytes) kcompactd's proactive compaction
 *    migrates about 5000 pages a second out of the churned holes and the
 *    state never holds for the check; paused (0) while the state is built.
 *    Both are back at their boot values before the state is saved (also
 *    when the fragmenter dies: atexit), so every run starts with the
 *    kernel's own defaults. Writing proactiveness back wakes kcompactd at
 *    once, so proactive compaction works on the state from before the save
 *    and through the settle, in every configuration alike: on the THP
 *    guest a run measures how the kernel recovers from this state, not the
 *    state held. A knob the kernel does not have is left alone.
 */
static const struct {
	const char *path, *value;
} knobs[] = {
	{ "/proc/sys/vm/percpu_pagelist_high_fraction", "1000000" },
	{ "/proc/sys/vm/compaction_proactiveness", "0" },
};
#define NR_KNOBS	(sizeof(knobs) / sizeof(knobs[0]))

static void write_knob(const char *path, const char *val)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(val, f) < 0 || fclose(f))
		die(path);
}

static char knob_saved[NR_KNOBS][32];	/* "" = not changed */

/* Every knob changed is put back; runs at exit too (die() included). */
static void restore_knobs(void)
{
	size_t i;

	for (i = 0; i < NR_KNOBS; i++) {
		if (!knob_saved[i][0])
			continue;
		write_knob(knobs[i].path, knob_saved[i]);
		knob_saved[i][0] = 0;
	}
}

/* Save each knob the kernel has and set the fragmenter's value. */
static void pause_knobs(void)
{
	size_t i;
	FILE *f;

	atexit(restore_knobs);
	for (i = 0; i < NR_KNOBS; i++) {
		f = fopen(knobs[i].path, "r");
		if (!f && errno == ENOENT)
			continue;
		if (!f || !fgets(knob_saved[i], sizeof(knob_saved[i]), f))
			die(knobs[i].path);
		fclose(f);
		write_knob(knobs[i].path, knobs[i].value);
	}
}

/*
 * One page-cache page per read: readahead would lay the cache out in runs.
 * A file takes its readahead size from the device when it is opened, so
 * open with the device's readahead at 0, then put it back for the others
 * (posix_fadvise(POSIX_FADV_RANDOM) would do, but the guest kernel has no
 * CONFIG_ADVISE_SYSCALLS). For a regular file (a file on a filesystem on
 * the disk, whose page cache is movable), the caller sets the device's
 * readahead to 0 before starting us.
 */
static void open_disk_no_readahead(void)
{
	struct stat st;
	long ra = 0;
	int fd = open(opt.disk, O_RDONLY);

	if (fd < 0)
		die(opt.disk);
	if (fstat(fd, &st))
		die(opt.disk);
	if (!S_ISBLK(st.st_mode)) {
		hold.disk_fd = fd;
		hold.disk_size = lseek(fd, 0, SEEK_END);
		if (hold.disk_size <= 0)
			die("disk size");
		return;
	}
	if (ioctl(fd, BLKRAGET, &ra) || ioctl(fd, BLKRASET, 0UL))
		die("readahead ioctl");
	hold.disk_fd = open(opt.disk, O_RDONLY);
	if (hold.disk_fd < 0)
		die(opt.disk);
	if (ioctl(fd, BLKRASET, (unsigned long)ra))
		die("readahead ioctl");
	close(fd);
	hold.disk_size = lseek(hold.disk_fd, 0, SEEK_END);
	if (hold.disk_size <= 0)
		die("disk size");
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

	open_disk_no_readahead();

	hold.anon_cap = total_pages;
	hold.anon = mmap(NULL, hold.anon_cap * PAGE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (hold.anon == MAP_FAILED)
		die("mmap anon");

	/* Room for page tables of about 2.5% of memory. */
	hold.sparse_len = (size_t)(total_pages / 40 + 1) * PT_STRIDE;
	hold.sparse = mmap(NULL, hold.sparse_len, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (hold.sparse == MAP_FAILED)
		die("mmap sparse");
}

static int fragment(void)
{
	long total_pages = meminfo("MemTotal") / 4;
	struct zone_info z;
	int round;
	bool ok = false;

	print_buddyinfo("before");
	print_state("before");
	setup(total_pages);
	pause_knobs();
	cache_fill(total_pages);
	print_state("cached");
	anon_fill(total_pages);
	print_state("full");

	for (round = 1; round <= opt.rounds && !ok; round++) {
		read_zone(&z);
		churn((long)(opt.free_mult * z.high) + z.free);
		print_state("churned");
		plug(total_pages);
		print_state("plugged");
		print_counters("plugged");
		sleep(1);
		print_counters("settled");
		print_state("settled");	/* let kswapd and the per-cpu lists settle */
		ok = check(&z);
		printf("fragmenter: round %d %s\n", round, ok ? "ok" : "not yet");
	}

	restore_knobs();
	print_buddyinfo("after");
	print_state("after");
	printf("fragmenter: held anon_pages %zu pagecache_pages %zu pt_touches %zu threads %zu\n",
	       hold.anon_pages - hold.anon_dropped, hold.pc_pages, hold.sparse_touched,
	       hold.nthreads);
	printf("fragmenter: held pipes %zu sockets %zu files %zu big_datagrams %zu\n",
	       hold.npipes / 2 - hold.pipes_closed, hold.nsocks / 2 - hold.socks_closed,
	       hold.nfiles - hold.files_unlinked, hold.big_datagrams);
	printf("fragmenter: dropped anon_pages %zu pipes %zu sockets %zu files %zu\n",
	       hold.anon_dropped, hold.pipes_closed, hold.socks_closed, hold.files_unlinked);
	printf("fragmenter: result %s\n", ok ? "ok" : "fail");
	fflush(stdout);
	return ok ? 0 : 1;
}

static void usage(const char *argv0)
{
	fprintf(stderr,
		"usage: %s [-d disk] [-T tmpdir] [-c pagecache_frac] [-A anon_max]\n"
		"          [-F free_mult] [-P max_ge3_pct] [-R rounds] [-D] [-t hold_secs]\n"
		"          [-w ready_file] [-s seed]\n"
		"       %s -r   (print the biggest zone's state line and exit)\n", argv0, argv0);
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

	while ((c = getopt(argc, argv, "d:T:c:A:F:P:R:Dt:w:s:r")) != -1) {
		switch (c) {
		case 'r':
			/* The state line alone, for a fragmenter not ours. */
			print_state("after");
			return 0;
		case 'd':
			opt.disk = optarg;
			break;
		case 'T':
			opt.tmpdir = optarg;
			break;
		case 'A':
			opt.anon_max = atof(optarg);
			break;
		case 'c':
			opt.pc_frac = atof(optarg);
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
		case 's':
			opt.seed = strtoul(optarg, NULL, 10);
			break;
		default:
			usage(argv[0]);
		}
	}
	if (opt.pc_frac < 0 || opt.pc_frac > 0.6 || opt.anon_max <= 0 || opt.anon_max > 0.8 ||
	    opt.free_mult < 1 || opt.rounds < 1)
		usage(argv[0]);
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* Spread small seeds over the state; xorshift must not start at 0. */
	rng_state = opt.seed * 0x9e3779b97f4a7c15ULL + 1;
	if (opt.seed)
		printf("fragmenter: seed %lu\n", opt.seed);

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
