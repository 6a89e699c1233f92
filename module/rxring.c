// SPDX-License-Identifier: GPL-2.0
/*
 * rxring: mimic a NIC refilling a jumbo-frame RX ring.
 *
 * A driver that cannot do scatter/gather receive needs one physically
 * contiguous buffer per frame: a 9000 byte jumbo frame takes an order-2
 * page with 4 KiB pages, and many drivers round up to order 3.  The
 * buffers are refilled from the receive softirq, so they are allocated
 * with GFP_ATOMIC: no direct reclaim, no compaction, only kswapd can be
 * woken to help.  This is the !wait high-order demand the 2004 "teach
 * kswapd about higher order allocations" series was written for.
 *
 * A soft hrtimer (callback in softirq context) makes @rate refill
 * attempts per second.  Each attempt allocates one order-@order page
 * with GFP_ATOMIC | __GFP_NOWARN.  On success the new page goes into a
 * ring of @ring slots and the oldest buffer in the ring is freed, as if
 * the stack had consumed that frame.  On failure the frame is dropped
 * and the old buffer is reused, as drivers do.  Every @drain_ms the
 * whole ring is given back at once, as when the stack's consumers catch
 * up with a backlog, and it is refilled from the allocator; without
 * that, on one CPU each attempt would just get back the page the
 * previous one freed to the per-cpu list.  (The 2015 MIGRATE_HIGHATOMIC
 * test used random bursts of GFP_ATOMIC order-3 allocations in the same
 * spirit.)  After @duration_ms the run stops and the ring is released.
 *
 * With sg=1 each frame is built from 2^@order single pages instead, as a
 * driver that can do scatter/gather receive would (the demand-side answer
 * of 2004): a frame fails only if one of its order-0 pages cannot be had.
 *
 * Results, one "key value" line each, in /sys/kernel/debug/rxring/stats:
 * attempts, failures, the failures among the first @ring attempts (while
 * the ring fills for the first time: the burst) apart from the rest, time
 * of the first failure, the longest run of consecutive failures, the time
 * spent in attempts (CPU per frame) and a log2 histogram of the time one
 * attempt took (lat_log2_<b> counts attempts that took [2^b, 2^(b+1)) ns).
 * Writing "start" or "stop" to /sys/kernel/debug/rxring/control starts
 * a fresh run or ends the current one; autostart=1 starts at load.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/gfp.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#define RXRING_MAX_RATE		100000
#define RXRING_MAX_RING		65536
#define RXRING_MAX_DURATION_MS	(3600 * MSEC_PER_SEC)
/* Attempts made in one timer callback at most. */
#define RXRING_MAX_BATCH	256
#define RXRING_LAT_BUCKETS	40
/* A scatter/gather frame has at most this many pages (order <= 4). */
#define RXRING_MAX_SG_PAGES	16

static unsigned int order = 3;
module_param(order, uint, 0444);
MODULE_PARM_DESC(order, "Page order of each RX buffer, 1..MAX_PAGE_ORDER (default 3)");

static unsigned int rate = 2000;
module_param(rate, uint, 0444);
MODULE_PARM_DESC(rate, "Refill attempts per second, 1..100000 (default 2000)");

static unsigned int ring = 256;
module_param(ring, uint, 0444);
MODULE_PARM_DESC(ring, "Buffers held in the ring, 1..65536 (default 256)");

static unsigned int duration_ms = 10000;
module_param(duration_ms, uint, 0444);
MODULE_PARM_DESC(duration_ms, "Length of a run in ms, 1..3600000 (default 10000)");

static unsigned int drain_ms = 1000;
module_param(drain_ms, uint, 0444);
MODULE_PARM_DESC(drain_ms, "Give the whole ring back every drain_ms, 0 = never, <= duration_ms (default 1000)");

static bool sg;
module_param(sg, bool, 0444);
MODULE_PARM_DESC(sg, "Build each frame from 2^order order-0 pages (scatter/gather) (default 0)");

static bool autostart;
module_param(autostart, bool, 0444);
MODULE_PARM_DESC(autostart, "Start a run when the module is loaded (default 0)");

enum rxring_state { RXRING_IDLE, RXRING_RUNNING, RXRING_DONE };

static const char * const rxring_state_names[] = {
	[RXRING_IDLE] = "idle",
	[RXRING_RUNNING] = "running",
	[RXRING_DONE] = "done",
};

/*
 * Written only by the timer callback while a run is active, or by
 * process context with the timer cancelled; read locklessly by "stats".
 */
struct rxring_stats {
	u64 attempts;
	u64 failures;
	u64 first_fill_failures;
	u64 attempt_ns;
	s64 first_fail_ns;
	u64 fail_streak;
	u64 max_fail_streak;
	u64 batched_ticks;
	u64 dropped_attempts;
	u64 elapsed_ns;
	u64 drains;
	u64 lat[RXRING_LAT_BUCKETS];
};

static struct rxring_stats stats;
/* @ring frames of frame_pages entries: one page of order @order, or 2^@order pages. */
static struct page **slots;
static unsigned int frame_pages;
static unsigned int head;
static unsigned int held;
static ktime_t run_start;
static ktime_t last_drain;
static ktime_t period;
static int state = RXRING_IDLE;
static struct hrtimer rxring_timer;
static DEFINE_MUTEX(rxring_lock);
static struct dentry *rxring_dir;

static unsigned int rxring_page_order(void)
{
	return sg ? 0 : order;
}

/* Free the pages of @frame, if it holds any. */
static void rxring_free_frame(struct page **frame)
{
	unsigned int j;

	for (j = 0; j < frame_pages; j++) {
		if (frame[j]) {
			__free_pages(frame[j], rxring_page_order());
			frame[j] = NULL;
		}
	}
}

static void rxring_release_ring(void)
{
	unsigned int i;

	for (i = 0; i < ring; i++)
		rxring_free_frame(&slots[i * frame_pages]);
	head = 0;
	WRITE_ONCE(held, 0);
}

/*
 * Allocate one frame into @frame: one page of @order, or with sg 2^@order
 * single pages.  All or nothing: a partial frame is freed again.
 */
static bool rxring_alloc_frame(struct page **frame)
{
	unsigned int j;

	for (j = 0; j < frame_pages; j++) {
		frame[j] = alloc_pages(GFP_ATOMIC | __GFP_NOWARN, rxring_page_order());
		if (!frame[j]) {
			rxring_free_frame(frame);
			return false;
		}
	}
	return true;
}

/* One refill: allocate a new buffer, then let go of the oldest one. */
static void rxring_refill_one(ktime_t now)
{
	struct page *new[RXRING_MAX_SG_PAGES] = { NULL };
	struct page **frame = &slots[head * frame_pages];
	unsigned int bucket, j;
	bool ok;
	u64 t0, dt;

	t0 = ktime_get_ns();
	ok = rxring_alloc_frame(new);
	dt = ktime_get_ns() - t0;

	bucket = min_t(u32, dt ? ilog2(dt) : 0, RXRING_LAT_BUCKETS - 1);
	WRITE_ONCE(stats.lat[bucket], stats.lat[bucket] + 1);
	WRITE_ONCE(stats.attempt_ns, stats.attempt_ns + dt);
	WRITE_ONCE(stats.attempts, stats.attempts + 1);

	if (!ok) {
		/* Drop the frame and keep the old buffer, as drivers do. */
		if (!stats.failures)
			WRITE_ONCE(stats.first_fail_ns, ktime_to_ns(ktime_sub(now, run_start)));
		WRITE_ONCE(stats.failures, stats.failures + 1);
		if (stats.attempts <= ring)
			WRITE_ONCE(stats.first_fill_failures, stats.first_fill_failures + 1);
		stats.fail_streak++;
		if (stats.fail_streak > stats.max_fail_streak)
			WRITE_ONCE(stats.max_fail_streak, stats.fail_streak);
		return;
	}

	stats.fail_streak = 0;
	if (frame[0])
		rxring_free_frame(frame);
	else
		WRITE_ONCE(held, held + 1);
	for (j = 0; j < frame_pages; j++)
		frame[j] = new[j];
	head = (head + 1) % ring;
}

static enum hrtimer_restart rxring_tick(struct hrtimer *timer)
{
	ktime_t now = ktime_get();
	u64 due, ticks, i;

	WRITE_ONCE(stats.elapsed_ns, ktime_to_ns(ktime_sub(now, run_start)));
	if (stats.elapsed_ns >= (u64)duration_ms * NSEC_PER_MSEC) {
		rxring_release_ring();
		WRITE_ONCE(state, RXRING_DONE);
		return HRTIMER_NORESTART;
	}

	if (drain_ms && ktime_ms_delta(now, last_drain) >= drain_ms) {
		rxring_release_ring();
		last_drain = now;
		WRITE_ONCE(stats.drains, stats.drains + 1);
	}

	/*
	 * Make the attempts due by now at @rate, whatever the timer's real
	 * resolution (jiffies without high-resolution timers), in batches
	 * of at most RXRING_MAX_BATCH; what a stalled timer owes beyond
	 * that is counted, not made up later.
	 */
	hrtimer_forward(timer, now, period);
	due = div_u64(stats.elapsed_ns * rate, NSEC_PER_SEC) + 1 - stats.dropped_attempts;
	ticks = due > stats.attempts ? due - stats.attempts : 0;
	if (ticks > 1)
		WRITE_ONCE(stats.batched_ticks, stats.batched_ticks + 1);
	if (ticks > RXRING_MAX_BATCH) {
		WRITE_ONCE(stats.dropped_attempts,
			   stats.dropped_attempts + ticks - RXRING_MAX_BATCH);
		ticks = RXRING_MAX_BATCH;
	}
	for (i = 0; i < ticks; i++)
		rxring_refill_one(now);

	return HRTIMER_RESTART;
}

/* Callers hold rxring_lock. */
static void rxring_stop(void)
{
	hrtimer_cancel(&rxring_timer);
	rxring_release_ring();
	if (state == RXRING_RUNNING)
		WRITE_ONCE(state, RXRING_DONE);
}

/* Callers hold rxring_lock. */
static void rxring_start(void)
{
	rxring_stop();
	memset(&stats, 0, sizeof(stats));
	stats.first_fail_ns = -1;
	run_start = ktime_get();
	last_drain = run_start;
	WRITE_ONCE(state, RXRING_RUNNING);
	hrtimer_start(&rxring_timer, period, HRTIMER_MODE_REL_SOFT);
}

static int rxring_stats_show(struct seq_file *m, void *v)
{
	s64 first_fail_ns = READ_ONCE(stats.first_fail_ns);
	unsigned int b;

	seq_printf(m, "order %u\n", order);
	seq_printf(m, "rate %u\n", rate);
	seq_printf(m, "ring %u\n", ring);
	seq_printf(m, "duration_ms %u\n", duration_ms);
	seq_printf(m, "drain_ms %u\n", drain_ms);
	seq_printf(m, "state %s\n", rxring_state_names[READ_ONCE(state)]);
	seq_printf(m, "elapsed_ms %llu\n", READ_ONCE(stats.elapsed_ns) / NSEC_PER_MSEC);
	seq_printf(m, "attempts %llu\n", READ_ONCE(stats.attempts));
	seq_printf(m, "sg %u\n", sg);
	seq_printf(m, "failures %llu\n", READ_ONCE(stats.failures));
	seq_printf(m, "first_fill_failures %llu\n", READ_ONCE(stats.first_fill_failures));
	seq_printf(m, "attempt_ns %llu\n", READ_ONCE(stats.attempt_ns));
	seq_printf(m, "first_fail_ms %lld\n",
		   first_fail_ns < 0 ? -1LL : first_fail_ns / (s64)NSEC_PER_MSEC);
	seq_printf(m, "max_fail_streak %llu\n", READ_ONCE(stats.max_fail_streak));
	seq_printf(m, "held %u\n", READ_ONCE(held));
	seq_printf(m, "drains %llu\n", READ_ONCE(stats.drains));
	seq_printf(m, "batched_ticks %llu\n", READ_ONCE(stats.batched_ticks));
	seq_printf(m, "dropped_attempts %llu\n", READ_ONCE(stats.dropped_attempts));
	for (b = 0; b < RXRING_LAT_BUCKETS; b++)
		seq_printf(m, "lat_log2_%u %llu\n", b, READ_ONCE(stats.lat[b]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rxring_stats);

static ssize_t rxring_control_write(struct file *file, const char __user *ubuf,
				    size_t count, loff_t *ppos)
{
	char buf[16];
	size_t len = min(count, sizeof(buf) - 1);

	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';

	mutex_lock(&rxring_lock);
	if (sysfs_streq(buf, "start")) {
		rxring_start();
	} else if (sysfs_streq(buf, "stop")) {
		rxring_stop();
	} else {
		mutex_unlock(&rxring_lock);
		return -EINVAL;
	}
	mutex_unlock(&rxring_lock);
	return count;
}

static const struct file_operations rxring_control_fops = {
	.owner = THIS_MODULE,
	.write = rxring_control_write,
	.llseek = noop_llseek,
};

static int __init rxring_check_params(void)
{
	if (order < 1 || order > MAX_PAGE_ORDER) {
		pr_err("order=%u out of range 1..%u\n", order, MAX_PAGE_ORDER);
		return -EINVAL;
	}
	if (rate < 1 || rate > RXRING_MAX_RATE) {
		pr_err("rate=%u out of range 1..%u\n", rate, RXRING_MAX_RATE);
		return -EINVAL;
	}
	if (ring < 1 || ring > RXRING_MAX_RING) {
		pr_err("ring=%u out of range 1..%u\n", ring, RXRING_MAX_RING);
		return -EINVAL;
	}
	if (duration_ms < 1 || duration_ms > RXRING_MAX_DURATION_MS) {
		pr_err("duration_ms=%u out of range 1..%lu\n", duration_ms,
		       RXRING_MAX_DURATION_MS);
		return -EINVAL;
	}
	if (sg && (1U << order) > RXRING_MAX_SG_PAGES) {
		pr_err("sg=1 takes order <= %u, not %u\n", ilog2(RXRING_MAX_SG_PAGES), order);
		return -EINVAL;
	}
	if (drain_ms > duration_ms) {
		pr_err("drain_ms=%u longer than duration_ms=%u\n", drain_ms, duration_ms);
		return -EINVAL;
	}
	/* The ring must leave most of memory to the rest of the system. */
	if (((unsigned long)ring << order) > totalram_pages() / 4) {
		pr_err("ring=%u of order %u would pin more than a quarter of memory\n",
		       ring, order);
		return -EINVAL;
	}
	return 0;
}

static int __init rxring_init(void)
{
	int ret;

	ret = rxring_check_params();
	if (ret)
		return ret;

	frame_pages = sg ? 1U << order : 1;
	slots = kcalloc(ring * frame_pages, sizeof(*slots), GFP_KERNEL);
	if (!slots)
		return -ENOMEM;

	period = ns_to_ktime(div_u64(NSEC_PER_SEC, rate));
	hrtimer_init(&rxring_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	rxring_timer.function = rxring_tick;
	stats.first_fail_ns = -1;

	rxring_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("stats", 0444, rxring_dir, NULL, &rxring_stats_fops);
	debugfs_create_file("control", 0200, rxring_dir, NULL, &rxring_control_fops);

	pr_info("order=%u rate=%u ring=%u duration_ms=%u drain_ms=%u sg=%u\n",
		order, rate, ring, duration_ms, drain_ms, sg);
	if (autostart) {
		mutex_lock(&rxring_lock);
		rxring_start();
		mutex_unlock(&rxring_lock);
	}
	return 0;
}

static void __exit rxring_exit(void)
{
	debugfs_remove_recursive(rxring_dir);
	mutex_lock(&rxring_lock);
	rxring_stop();
	mutex_unlock(&rxring_lock);
	kfree(slots);
}

module_init(rxring_init);
module_exit(rxring_exit);

MODULE_DESCRIPTION("RX ring refill emulator: GFP_ATOMIC high-order allocations from softirq");
MODULE_LICENSE("GPL");
