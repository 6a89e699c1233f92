// SPDX-License-Identifier: GPL-2.0
/*
 * buddyinfo_test: /proc/buddyinfo and /proc/zoneinfo tell the same story.
 *
 * For every populated zone, the free pages that /proc/buddyinfo lists per
 * order (sum of count << order) must match the zone's "pages free" from
 * /proc/zoneinfo (NR_FREE_PAGES), within a small tolerance for pages that
 * move while the two files are read. Then 64 MiB of anonymous memory is
 * faulted in: free memory plus the per-cpu page lists (which buddyinfo
 * and "pages free" both leave out, and which 6.12 lets grow to 1/8 of a
 * zone while pages are being freed) must drop by at least 90% of it, and
 * come back within 10% after munmap: the counters follow real
 * allocations rather than merely agreeing with each other.
 *
 * Pass rule: every zone within max(TOLERANCE_PAGES, 1%) and both views see
 * the allocation. Works on any kernel; the ladder series must keep it true.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kselftest.h"

#define MAX_ZONES	16
#define MAX_ORDERS	16
#define TOLERANCE_PAGES	256
#define ALLOC_MB	64
#define TRIES		5

struct zone_view {
	int node;
	char name[32];
	int norders;
	long count[MAX_ORDERS];
	long buddy_free;	/* sum of count << order */
	long zone_free;		/* zoneinfo "pages free" */
	long pcp;		/* zoneinfo per-cpu "count:" lines, summed */
};

static struct zone_view zones[MAX_ZONES];
static int nr_zones;

/* Parse /proc/buddyinfo into zones[]; returns the number of zones. */
static int read_buddyinfo(void)
{
	char line[512];
	FILE *f = fopen("/proc/buddyinfo", "r");
	int n = 0;

	if (!f)
		ksft_exit_fail_msg("open /proc/buddyinfo: %s\n", strerror(errno));
	while (n < MAX_ZONES && fgets(line, sizeof(line), f)) {
		struct zone_view *z = &zones[n];
		char *p;
		int used, o;

		memset(z, 0, sizeof(*z));
		if (sscanf(line, "Node %d, zone %31s%n", &z->node, z->name, &used) != 2)
			continue;
		p = line + used;
		for (o = 0; o < MAX_ORDERS; o++) {
			char *end;
			long v = strtol(p, &end, 10);

			if (end == p)
				break;
			z->count[o] = v;
			z->buddy_free += v << o;
			p = end;
		}
		z->norders = o;
		n++;
	}
	fclose(f);
	return n;
}

/* Fill zone_free for every zone in zones[] from /proc/zoneinfo. */
static void read_zoneinfo(void)
{
	char line[512], name[32] = "";
	FILE *f = fopen("/proc/zoneinfo", "r");
	int node = -1, i;
	long v;

	if (!f)
		ksft_exit_fail_msg("open /proc/zoneinfo: %s\n", strerror(errno));
	for (i = 0; i < nr_zones; i++) {
		zones[i].zone_free = -1;
		zones[i].pcp = 0;
	}
	while (fgets(line, sizeof(line), f)) {
		int is_free;

		if (sscanf(line, "Node %d, zone %31s", &node, name) == 2)
			continue;
		if (sscanf(line, " pages free %ld", &v) == 1)
			is_free = 1;
		else if (sscanf(line, " count: %ld", &v) == 1)
			is_free = 0;
		else
			continue;
		for (i = 0; i < nr_zones; i++) {
			if (zones[i].node != node || strcmp(zones[i].name, name))
				continue;
			if (is_free)
				zones[i].zone_free = v;
			else
				zones[i].pcp += v;
		}
	}
	fclose(f);
}

/* Free pages in all zones, per view, counting per-cpu lists as free. */
static long total(int zone_view)
{
	long sum = 0;
	int i;

	for (i = 0; i < nr_zones; i++)
		sum += (zone_view ? zones[i].zone_free : zones[i].buddy_free) + zones[i].pcp;
	return sum;
}

static long tolerance(long pages)
{
	return pages / 100 > TOLERANCE_PAGES ? pages / 100 : TOLERANCE_PAGES;
}

/*
 * Read both files until buddyinfo is the same before and after zoneinfo,
 * so that the two views describe (nearly) one moment.
 */
static void snapshot(void)
{
	struct zone_view before[MAX_ZONES];
	int t;

	for (t = 0; t < TRIES; t++) {
		nr_zones = read_buddyinfo();
		memcpy(before, zones, sizeof(before));
		read_zoneinfo();
		if (read_buddyinfo() == nr_zones) {
			read_zoneinfo();
			if (!memcmp(before, zones, sizeof(before)))
				break;
		}
	}
}

int main(void)
{
	long pages = ALLOC_MB << (20 - 12), drop_buddy, drop_zone;
	long free_buddy, free_zone, page_size = sysconf(_SC_PAGESIZE);
	char *mem;
	int i;

	ksft_print_header();
	snapshot();
	if (nr_zones == 0)
		ksft_exit_fail_msg("/proc/buddyinfo lists no zone\n");
	ksft_set_plan(nr_zones + 3);

	ksft_test_result(zones[0].norders >= 11 && zones[0].norders < MAX_ORDERS,
			 "buddyinfo lists %d orders per zone\n", zones[0].norders);

	for (i = 0; i < nr_zones; i++) {
		struct zone_view *z = &zones[i];
		long diff = labs(z->buddy_free - z->zone_free);

		ksft_print_msg("node %d %-8s buddyinfo %ld zoneinfo %ld pages\n",
			       z->node, z->name, z->buddy_free, z->zone_free);
		ksft_test_result(z->zone_free >= 0 && diff <= tolerance(z->zone_free),
				 "node %d zone %s: buddyinfo sum matches zoneinfo free (diff %ld)\n",
				 z->node, z->name, diff);
	}

	free_buddy = total(0);
	free_zone = total(1);
	if (page_size != 4096 || free_zone < 4 * pages) {
		ksft_test_result_skip("allocation check: needs 4 KiB pages and %d MiB free\n",
				      4 * ALLOC_MB);
		ksft_test_result_skip("release check\n");
		ksft_finished();
	}
	mem = mmap(NULL, pages * page_size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (mem == MAP_FAILED)
		ksft_exit_fail_msg("mmap %d MiB: %s\n", ALLOC_MB, strerror(errno));
	memset(mem, 1, pages * page_size);
	snapshot();
	drop_buddy = free_buddy - total(0);
	drop_zone = free_zone - total(1);
	ksft_print_msg("after %d MiB: buddyinfo -%ld, zoneinfo -%ld pages\n",
		       ALLOC_MB, drop_buddy, drop_zone);
	ksft_test_result(drop_buddy >= pages * 9 / 10 && drop_zone >= pages * 9 / 10,
			 "both views see a %d MiB allocation\n", ALLOC_MB);

	munmap(mem, pages * page_size);
	snapshot();
	ksft_print_msg("after munmap: buddyinfo %+ld, zoneinfo %+ld pages vs start\n",
		       total(0) - free_buddy, total(1) - free_zone);
	ksft_test_result(labs(free_buddy - total(0)) <= pages / 10 &&
			 labs(free_zone - total(1)) <= pages / 10,
			 "both views see the memory freed again\n");
	ksft_finished();
}
