// SPDX-License-Identifier: GPL-2.0
/*
 * rx-reserve pools: fixed sets of pages reserved for a priority flow's RX
 * buffers.  See the DOC: section in include/net/rx_reserve_pool.h.
 */

#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/netdevice.h>
#include <linux/page_ref.h>
#include <linux/percpu.h>
#include <linux/refcount.h>
#include <linux/slab.h>
#include <linux/u64_stats_sync.h>
#include <linux/workqueue.h>
#include <net/rx_reserve_pool.h>

struct rxr_pool_pcpu_stats {
	struct u64_stats_sync syncp;
	u64_stats_t taken;
	u64_stats_t empty;
};

/**
 * struct rxr_pool - a fixed set of reserved pages
 * @refcnt: references to the pool; the last one frees it, once every
 *	page is back
 * @hand: where the next rxr_pool_take() starts looking (a clock hand)
 * @lent: pages lent to regular RX rings and not back from them
 * @drain_node: entry in the list of released pools waiting for pages
 * @drain_since: jiffies when the last reference went
 * @drain_warned: the wait was logged
 * @npages: number of pages, fixed at creation
 * @stats: per-CPU counters
 * @pages: the pages, each holding one reference of the pool's own
 */
struct rxr_pool {
	refcount_t refcnt;
	atomic_t hand;
	atomic_t lent;
	struct list_head drain_node;
	unsigned long drain_since;
	bool drain_warned;
	unsigned int npages;
	struct rxr_pool_pcpu_stats __percpu *stats;
	struct page *pages[] __counted_by(npages);
};

static void rxr_pool_free(struct rxr_pool *pool, unsigned int npages)
{
	while (npages--)
		put_page(pool->pages[npages]);
	free_percpu(pool->stats);
	kfree(pool);
}

/* Released pools whose pages are not all back yet, as page_pool keeps a
 * pool with pages in flight: the pool, and the tag its pages carry, stay
 * valid until the last page comes back from a ring or a socket.
 */
static LIST_HEAD(rxr_pool_draining);
static DEFINE_SPINLOCK(rxr_pool_drain_lock);
static void rxr_pool_drain_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(rxr_pool_drain_work, rxr_pool_drain_fn);

#define RXR_POOL_DRAIN_PERIOD	(HZ / 10)
#define RXR_POOL_DRAIN_WARN	(60 * HZ)

/* Pages of @pool held outside it: in a ring, an skb or a socket. */
static unsigned int rxr_pool_out(const struct rxr_pool *pool)
{
	unsigned int i, n = 0;

	for (i = 0; i < pool->npages; i++)
		n += page_ref_count(pool->pages[i]) > 1;
	return n;
}

static void rxr_pool_drain_fn(struct work_struct *work)
{
	struct rxr_pool *pool, *tmp;
	unsigned long flags;
	LIST_HEAD(done);
	bool again;

	spin_lock_irqsave(&rxr_pool_drain_lock, flags);
	list_for_each_entry_safe(pool, tmp, &rxr_pool_draining, drain_node) {
		if (!rxr_pool_out(pool)) {
			list_move(&pool->drain_node, &done);
		} else if (!pool->drain_warned &&
			   time_after(jiffies, pool->drain_since +
					       RXR_POOL_DRAIN_WARN)) {
			pool->drain_warned = true;
			pr_warn("rx_reserve: a released pool has %u of %u pages out after %u s\n",
				rxr_pool_out(pool), pool->npages,
				RXR_POOL_DRAIN_WARN / HZ);
		}
	}
	again = !list_empty(&rxr_pool_draining);
	spin_unlock_irqrestore(&rxr_pool_drain_lock, flags);

	list_for_each_entry_safe(pool, tmp, &done, drain_node)
		rxr_pool_free(pool, pool->npages);
	if (again)
		queue_delayed_work(system_wq, &rxr_pool_drain_work,
				   RXR_POOL_DRAIN_PERIOD);
}

/**
 * rxr_pool_pages_out() - pages of released pools not back yet
 *
 * A pool whose last reference went while some of its pages were still in
 * a ring or an skb waits for them; this counts them.  0 once every driver
 * gave back the pages of flows that left.
 *
 * Context: any context.
 * Return: the number of pages.
 */
unsigned int rxr_pool_pages_out(void)
{
	struct rxr_pool *pool;
	unsigned long flags;
	unsigned int n = 0;

	spin_lock_irqsave(&rxr_pool_drain_lock, flags);
	list_for_each_entry(pool, &rxr_pool_draining, drain_node)
		n += rxr_pool_out(pool);
	spin_unlock_irqrestore(&rxr_pool_drain_lock, flags);
	return n;
}
EXPORT_SYMBOL_GPL(rxr_pool_pages_out);

/**
 * rxr_pool_create() - allocate a pool and all of its pages
 * @npages: number of order-0 pages, 1 to %RXR_POOL_MAX_PAGES
 * @nid: NUMA node to allocate on, or %NUMA_NO_NODE
 *
 * Context: process context; may sleep.
 * Return: the pool with one reference, ERR_PTR(-EINVAL) for a bad size, or
 * ERR_PTR(-ENOMEM) when the pages could not all be allocated.
 */
struct rxr_pool *rxr_pool_create(unsigned int npages, int nid)
{
	const gfp_t gfp = GFP_KERNEL | __GFP_NOWARN;
	struct rxr_pool *pool;
	unsigned int i;

	if (!npages || npages > RXR_POOL_MAX_PAGES)
		return ERR_PTR(-EINVAL);

	pool = kzalloc_node(struct_size(pool, pages, npages), GFP_KERNEL, nid);
	if (!pool)
		return ERR_PTR(-ENOMEM);
	pool->npages = npages;
	pool->stats = netdev_alloc_pcpu_stats(struct rxr_pool_pcpu_stats);
	if (!pool->stats)
		goto err_free_pool;

	for (i = 0; i < npages; i++) {
		pool->pages[i] = alloc_pages_node(nid, gfp, 0);
		if (!pool->pages[i])
			goto err_free_pages;
		set_page_private(pool->pages[i],
				 (unsigned long)pool | RXR_PAGE_TAG);
	}
	refcount_set(&pool->refcnt, 1);
	atomic_set(&pool->hand, 0);
	atomic_set(&pool->lent, 0);
	return pool;

err_free_pages:
	rxr_pool_free(pool, i);
	return ERR_PTR(-ENOMEM);
err_free_pool:
	kfree(pool);
	return ERR_PTR(-ENOMEM);
}
EXPORT_SYMBOL_GPL(rxr_pool_create);

/**
 * rxr_pool_get() - take a reference on a pool
 * @pool: the pool
 *
 * Return: @pool.
 */
struct rxr_pool *rxr_pool_get(struct rxr_pool *pool)
{
	refcount_inc(&pool->refcnt);
	return pool;
}
EXPORT_SYMBOL_GPL(rxr_pool_get);

/**
 * rxr_pool_put() - drop a reference on a pool
 * @pool: the pool
 *
 * The last reference frees the pool once every page is back in it: at
 * once if none is out, otherwise from a work item that looks again every
 * 100 ms (rxr_pool_pages_out() counts the pages it waits for), so that a
 * page's tag never outlives its pool.
 *
 * Context: any context.
 */
void rxr_pool_put(struct rxr_pool *pool)
{
	unsigned long flags;

	if (!refcount_dec_and_test(&pool->refcnt))
		return;
	if (!rxr_pool_out(pool)) {
		rxr_pool_free(pool, pool->npages);
		return;
	}
	pool->drain_since = jiffies;
	spin_lock_irqsave(&rxr_pool_drain_lock, flags);
	list_add_tail(&pool->drain_node, &rxr_pool_draining);
	spin_unlock_irqrestore(&rxr_pool_drain_lock, flags);
	queue_delayed_work(system_wq, &rxr_pool_drain_work,
			   RXR_POOL_DRAIN_PERIOD);
}
EXPORT_SYMBOL_GPL(rxr_pool_put);

/* Claim @page if the pool's reference is its only one: 1 -> 2. */
static bool rxr_pool_claim(struct page *page)
{
	if (!page_ref_freeze(page, 1))
		return false;
	page_ref_unfreeze(page, 2);
	return true;
}

/**
 * rxr_pool_take() - take a free page from a pool
 * @pool: the pool
 *
 * Looks at each page at most once, from a clock hand shared by all CPUs,
 * so that a pool with free pages usually answers at the first look.
 * Allocates nothing.  The caller owns one reference on the page and gives
 * it back with put_page().
 *
 * Context: any context.
 * Return: a page, or NULL when every page of the pool is in use.
 */
struct page *rxr_pool_take(struct rxr_pool *pool)
{
	struct rxr_pool_pcpu_stats *stats;
	struct page *page = NULL, *p;
	unsigned int i, idx;
	unsigned long flags;

	idx = (unsigned int)atomic_inc_return(&pool->hand) % pool->npages;
	for (i = 0; i < pool->npages; i++) {
		p = pool->pages[idx];
		/* A page in use costs a read, not an atomic operation: a
		 * pool whose pages are up the stack is looked through whole.
		 */
		if (page_ref_count(p) == 1 && rxr_pool_claim(p)) {
			page = p;
			/* The next look starts after it. */
			atomic_add(i, &pool->hand);
			/* Lent once, and back without rxr_page_unlend(). */
			rxr_page_unlend(page);
			break;
		}
		if (++idx == pool->npages)
			idx = 0;
	}

	stats = get_cpu_ptr(pool->stats);
	flags = u64_stats_update_begin_irqsave(&stats->syncp);
	if (page)
		u64_stats_inc(&stats->taken);
	else
		u64_stats_inc(&stats->empty);
	u64_stats_update_end_irqrestore(&stats->syncp, flags);
	put_cpu_ptr(pool->stats);
	return page;
}
EXPORT_SYMBOL_GPL(rxr_pool_take);

/**
 * rxr_pool_lendable() - whether a pool may lend another page
 * @pool: the pool
 *
 * A pool lends at most half of its pages at a time, so that pages parked
 * in rings under flood traffic, which never matches their owner, leave the
 * other half for the owner's own data in flight.  A page counts from
 * rxr_pool_lend() until it leaves its ring (rxr_page_unlend()).
 *
 * Return: true if fewer than half of the pool's pages are lent.
 */
bool rxr_pool_lendable(const struct rxr_pool *pool)
{
	return atomic_read(&pool->lent) < pool->npages / 2;
}
EXPORT_SYMBOL_GPL(rxr_pool_lendable);

/**
 * rxr_pool_lend() - take a page to lend to a regular RX ring
 * @pool: the pool
 *
 * Counts the page as lent, and marks it so, until rxr_page_unlend(): at
 * most half of the pool's pages are lent at a time, exactly, however
 * many CPUs lend at once.  A pool at that limit first ends the loan of
 * the lent pages that came back without rxr_page_unlend().
 *
 * Context: any context.
 * Return: the page, or NULL when half of the pool is lent or it is empty.
 */
struct page *rxr_pool_lend(struct rxr_pool *pool)
{
	unsigned int cap = pool->npages / 2, i;
	struct page *page;

	if (!atomic_add_unless(&pool->lent, 1, cap)) {
		/* A lent page back in the pool without rxr_page_unlend(),
		 * from a ring the driver freed, is not lent any more.
		 */
		for (i = 0; i < pool->npages; i++)
			if (page_ref_count(pool->pages[i]) == 1)
				rxr_page_unlend(pool->pages[i]);
		if (!atomic_add_unless(&pool->lent, 1, cap))
			return NULL;
	}
	page = rxr_pool_take(pool);
	if (!page) {
		atomic_dec(&pool->lent);
		return NULL;
	}
	set_bit(RXR_PAGE_LENT_BIT, &page->private);
	return page;
}
EXPORT_SYMBOL_GPL(rxr_pool_lend);

/**
 * __rxr_page_unlend() - rxr_page_unlend() for a page that may be a pool's
 * @page: a head page whose private field has the pool tag set
 *
 * Context: any context.
 */
void __rxr_page_unlend(struct page *page)
{
	struct rxr_pool *pool;

	pool = (struct rxr_pool *)rxr_page_pool(page);
	if (pool && test_and_clear_bit(RXR_PAGE_LENT_BIT, &page->private))
		atomic_dec(&pool->lent);
}
EXPORT_SYMBOL_GPL(__rxr_page_unlend);

/**
 * rxr_pool_lent() - pages of a pool lent to regular RX rings
 * @pool: the pool
 *
 * Return: the pages lent and not back, at most half of the pool.
 */
unsigned int rxr_pool_lent(const struct rxr_pool *pool)
{
	return atomic_read(&pool->lent);
}
EXPORT_SYMBOL_GPL(rxr_pool_lent);

/**
 * rxr_pool_size() - number of pages of a pool
 * @pool: the pool
 *
 * Return: the number of pages, fixed at creation.
 */
unsigned int rxr_pool_size(const struct rxr_pool *pool)
{
	return pool->npages;
}
EXPORT_SYMBOL_GPL(rxr_pool_size);

/**
 * rxr_pool_free_pages() - number of free pages of a pool
 * @pool: the pool
 *
 * A snapshot for counters and tests: pages may be taken and given back
 * while it counts.
 *
 * Return: the number of pages that only the pool holds.
 */
unsigned int rxr_pool_free_pages(const struct rxr_pool *pool)
{
	unsigned int i, n = 0;

	for (i = 0; i < pool->npages; i++)
		n += page_ref_count(pool->pages[i]) == 1;
	return n;
}
EXPORT_SYMBOL_GPL(rxr_pool_free_pages);

/**
 * rxr_pool_get_stats() - read a pool's counters, summed over CPUs
 * @pool: the pool
 * @stats: where to write them
 */
void rxr_pool_get_stats(const struct rxr_pool *pool,
			struct rxr_pool_stats *stats)
{
	const struct rxr_pool_pcpu_stats *s;
	unsigned int start;
	u64 taken, empty;
	int cpu;

	memset(stats, 0, sizeof(*stats));
	for_each_possible_cpu(cpu) {
		s = per_cpu_ptr(pool->stats, cpu);
		do {
			start = u64_stats_fetch_begin(&s->syncp);
			taken = u64_stats_read(&s->taken);
			empty = u64_stats_read(&s->empty);
		} while (u64_stats_fetch_retry(&s->syncp, start));
		stats->taken += taken;
		stats->empty += empty;
	}
}
EXPORT_SYMBOL_GPL(rxr_pool_get_stats);
