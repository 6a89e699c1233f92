// SPDX-License-Identifier: GPL-2.0
/*
 * allocbench: time the page allocator's fast path.
 *
 * Writing "ORDER ITERS" to /sys/kernel/debug/allocbench/run makes ITERS
 * back-to-back alloc_pages(GFP_KERNEL, ORDER) + __free_pages() pairs in
 * the writer's context and records the total time; "ORDER ITERS atomic"
 * does the same with GFP_ATOMIC, the requests the ladder's reserve is for
 * (its fast path counts them), where GFP_KERNEL ones may reclaim and pass
 * the ladder by.  Orders up to
 * PAGE_ALLOC_COSTLY_ORDER are served from the per-cpu lists, so this is
 * the path a watermark change must not slow down: the zone watermark
 * check runs on every allocation before the per-cpu list is used.
 * Reading the same file gives the last result as "key value" lines:
 * order, gfp (kernel or atomic), iters, failures, ns_total and
 * ns_per_pair (three decimals).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/gfp.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>

#define ALLOCBENCH_MAX_ITERS	10000000U
/* Give the CPU away between batches so a long run does not hog it. */
#define ALLOCBENCH_BATCH	1024

struct allocbench_result {
	unsigned int order;
	bool atomic;
	unsigned int iters;
	unsigned int failures;
	u64 ns_total;
};

static struct allocbench_result last;
static DEFINE_MUTEX(allocbench_lock);
static struct dentry *allocbench_dir;

static void allocbench_run(unsigned int order, unsigned int iters, bool atomic)
{
	gfp_t gfp = (atomic ? GFP_ATOMIC : GFP_KERNEL) | __GFP_NOWARN;
	unsigned int i, failures = 0;
	u64 t0, ns_total = 0;
	struct page *page;

	for (i = 0; i < iters; i++) {
		if (i % ALLOCBENCH_BATCH == 0) {
			cond_resched();
			t0 = ktime_get_ns();
		}
		page = alloc_pages(gfp, order);
		if (page)
			__free_pages(page, order);
		else
			failures++;
		if (i % ALLOCBENCH_BATCH == ALLOCBENCH_BATCH - 1 || i == iters - 1)
			ns_total += ktime_get_ns() - t0;
	}

	last.order = order;
	last.atomic = atomic;
	last.iters = iters;
	last.failures = failures;
	last.ns_total = ns_total;
}

static int allocbench_show(struct seq_file *m, void *v)
{
	u64 ps_per_pair = 0;

	mutex_lock(&allocbench_lock);
	if (last.iters)
		ps_per_pair = div_u64(last.ns_total * 1000, last.iters);
	seq_printf(m, "order %u\n", last.order);
	seq_printf(m, "gfp %s\n", last.atomic ? "atomic" : "kernel");
	seq_printf(m, "iters %u\n", last.iters);
	seq_printf(m, "failures %u\n", last.failures);
	seq_printf(m, "ns_total %llu\n", last.ns_total);
	seq_printf(m, "ns_per_pair %llu.%03llu\n", div_u64(ps_per_pair, 1000),
		   ps_per_pair % 1000);
	mutex_unlock(&allocbench_lock);
	return 0;
}

static int allocbench_open(struct inode *inode, struct file *file)
{
	return single_open(file, allocbench_show, NULL);
}

static ssize_t allocbench_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	unsigned int order, iters;
	char buf[32], gfp[8] = "";
	size_t len = min(count, sizeof(buf) - 1);
	int n;

	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';

	n = sscanf(buf, "%u %u %7s", &order, &iters, gfp);
	if (n < 2 || (n == 3 && strcmp(gfp, "atomic")) ||
	    order > MAX_PAGE_ORDER || iters < 1 || iters > ALLOCBENCH_MAX_ITERS) {
		pr_err("want \"ORDER ITERS\" or \"ORDER ITERS atomic\" with ORDER 0..%u, ITERS 1..%u\n",
		       MAX_PAGE_ORDER, ALLOCBENCH_MAX_ITERS);
		return -EINVAL;
	}

	mutex_lock(&allocbench_lock);
	allocbench_run(order, iters, n == 3);
	mutex_unlock(&allocbench_lock);
	return count;
}

static const struct file_operations allocbench_fops = {
	.owner = THIS_MODULE,
	.open = allocbench_open,
	.read = seq_read,
	.write = allocbench_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static int __init allocbench_init(void)
{
	allocbench_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("run", 0600, allocbench_dir, NULL, &allocbench_fops);
	return 0;
}

static void __exit allocbench_exit(void)
{
	debugfs_remove_recursive(allocbench_dir);
}

module_init(allocbench_init);
module_exit(allocbench_exit);

MODULE_DESCRIPTION("Page allocator fast path microbenchmark: alloc+free pairs");
MODULE_LICENSE("GPL");
