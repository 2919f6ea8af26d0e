/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rx-reserve pools: fixed sets of pages reserved for the RX buffers of a
 * priority flow.
 */
#ifndef _NET_RX_RESERVE_POOL_H
#define _NET_RX_RESERVE_POOL_H

#include <linux/mm.h>
#include <linux/mm_types.h>
#include <linux/types.h>

struct page;
struct rxr_pool;

/**
 * DOC: rx-reserve pools
 *
 * A pool is a fixed set of order-0 pages, allocated when the pool is
 * created, while memory is still there.  The pool keeps one reference on
 * each of its pages for its whole life, so a page is never given back to
 * the page allocator while the pool exists.  A page is free when that
 * reference is the only one: rxr_pool_take() claims a free page by raising
 * its count from 1 to 2, and whoever holds the page (a driver's RX ring, an
 * skb frag or head) gives it back with a plain put_page(), from any
 * context and on any CPU, allocating nothing.
 *
 * The pool's own lifetime is a refcount: rxr_pool_put() of the last
 * reference drops the pool's page references, so that pages still in
 * flight are freed by their last user.
 */

/* The most pages one pool may hold. */
#define RXR_POOL_MAX_PAGES	4096

struct rxr_pool *rxr_pool_create(unsigned int npages, int nid);
struct rxr_pool *rxr_pool_get(struct rxr_pool *pool);
void rxr_pool_put(struct rxr_pool *pool);
struct page *rxr_pool_take(struct rxr_pool *pool);
bool rxr_pool_lendable(const struct rxr_pool *pool);
struct page *rxr_pool_lend(struct rxr_pool *pool);
void __rxr_page_unlend(struct page *page);
unsigned int rxr_pool_lent(const struct rxr_pool *pool);
unsigned int rxr_pool_size(const struct rxr_pool *pool);
unsigned int rxr_pool_free_pages(const struct rxr_pool *pool);
unsigned int rxr_pool_pages_out(void);

/**
 * struct rxr_pool_stats - what a pool did, summed over CPUs
 * @taken: pages handed out by rxr_pool_take()
 * @empty: rxr_pool_take() calls that found no free page
 */
struct rxr_pool_stats {
	u64 taken;
	u64 empty;
};

/* Low bits of page->private on a pool's pages: the tag, and whether the
 * page is lent to a regular RX ring (rxr_pool_lend()).
 */
#define RXR_PAGE_TAG		1UL
#define RXR_PAGE_LENT_BIT	1
#define RXR_PAGE_FLAGS		(RXR_PAGE_TAG | BIT(RXR_PAGE_LENT_BIT))

/**
 * rxr_page_pool() - the pool a page belongs to
 * @page: an RX buffer page, a head page: a tail page's private field is
 *	its folio's (compound_head() first)
 *
 * A pool's pages carry the pool in page->private for as long as they are
 * the pool's, so that a driver can tell a lent page among its buffers and
 * whose it is.  A released pool lives until its last page is back, so the
 * result stays valid while the caller holds the page.  page->private is
 * page_pool's pp_ref_count on a page_pool page, which must not pass for a
 * tag: such a page is never a pool's.
 *
 * Return: the pool, or NULL for a page that is not a pool's.
 */
static inline const struct rxr_pool *rxr_page_pool(const struct page *page)
{
	unsigned long v = page->private;

	if (!(v & RXR_PAGE_TAG) || page_pool_page_is_pp((struct page *)page))
		return NULL;
	return (const struct rxr_pool *)(v & ~RXR_PAGE_FLAGS);
}

/**
 * rxr_page_unlend() - a lent page left its ring
 * @page: a page, of a pool or not, or a page of a compound page
 *
 * Ends the loan of a page rxr_pool_lend() gave: it left the regular RX
 * ring it was posted on, with a frame or without.  Nothing for a page that
 * is not lent, so that it may be called again; one bit test for a page of
 * the driver's own.  The caller holds the page, so its pool lives.
 *
 * Context: any context.
 */
static inline void rxr_page_unlend(struct page *page)
{
	page = compound_head(page);
	if (unlikely(READ_ONCE(page->private) & RXR_PAGE_TAG))
		__rxr_page_unlend(page);
}

void rxr_pool_get_stats(const struct rxr_pool *pool,
			struct rxr_pool_stats *stats);

#endif /* _NET_RX_RESERVE_POOL_H */
