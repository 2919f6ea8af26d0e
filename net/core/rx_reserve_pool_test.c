// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of rx-reserve pools: creation, take, give back, exhaustion,
 * give back from another CPU, two CPUs taking at once, and pages in flight
 * when the pool goes away.
 */

#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/workqueue.h>
#include <net/rx_reserve_pool.h>

struct rxr_pool_test_size {
	const char *name;
	unsigned int npages;
	int err;
};

static const struct rxr_pool_test_size rxr_pool_test_sizes[] = {
	{ "zero pages", 0, -EINVAL },
	{ "one page", 1, 0 },
	{ "the largest pool", RXR_POOL_MAX_PAGES, 0 },
	{ "one page too many", RXR_POOL_MAX_PAGES + 1, -EINVAL },
};

static void rxr_pool_test_size_desc(const struct rxr_pool_test_size *t,
				    char *desc)
{
	strscpy(desc, t->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rxr_pool_test_size, rxr_pool_test_sizes,
		  rxr_pool_test_size_desc);

static void rxr_pool_test_create(struct kunit *test)
{
	const struct rxr_pool_test_size *t = test->param_value;
	struct rxr_pool *pool;

	pool = rxr_pool_create(t->npages, NUMA_NO_NODE);
	if (t->err) {
		KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(pool), t->err);
		return;
	}
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pool);
	KUNIT_EXPECT_EQ(test, rxr_pool_size(pool), t->npages);
	KUNIT_EXPECT_EQ(test, rxr_pool_free_pages(pool), t->npages);
	rxr_pool_put(pool);
}

static struct rxr_pool *rxr_pool_test_new(struct kunit *test,
					  unsigned int npages)
{
	struct rxr_pool *pool = rxr_pool_create(npages, NUMA_NO_NODE);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pool);
	return pool;
}

static void rxr_pool_test_take_until_empty(struct kunit *test)
{
	struct rxr_pool *pool = rxr_pool_test_new(test, 4);
	struct rxr_pool_stats stats;
	struct page *pages[4];
	int i, j;

	for (i = 0; i < 4; i++) {
		pages[i] = rxr_pool_take(pool);
		KUNIT_ASSERT_NOT_NULL(test, pages[i]);
		KUNIT_EXPECT_EQ(test, page_ref_count(pages[i]), 2);
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_PTR_NE(test, pages[i], pages[j]);
	}
	KUNIT_EXPECT_EQ(test, rxr_pool_free_pages(pool), 0);
	KUNIT_EXPECT_NULL(test, rxr_pool_take(pool));
	KUNIT_EXPECT_NULL(test, rxr_pool_take(pool));

	rxr_pool_get_stats(pool, &stats);
	KUNIT_EXPECT_EQ(test, stats.taken, 4);
	KUNIT_EXPECT_EQ(test, stats.empty, 2);

	for (i = 0; i < 4; i++)
		put_page(pages[i]);
	KUNIT_EXPECT_EQ(test, rxr_pool_free_pages(pool), 4);
	rxr_pool_put(pool);
}

static void rxr_pool_test_give_back(struct kunit *test)
{
	struct rxr_pool *pool = rxr_pool_test_new(test, 2);
	struct page *a, *b, *c;

	a = rxr_pool_take(pool);
	b = rxr_pool_take(pool);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_ASSERT_NULL(test, rxr_pool_take(pool));

	/* An skb frag holding a second reference keeps the page in use. */
	get_page(a);
	put_page(a);
	KUNIT_EXPECT_NULL(test, rxr_pool_take(pool));

	/* The last user's put_page() gives it back to the same pool. */
	put_page(a);
	c = rxr_pool_take(pool);
	KUNIT_EXPECT_PTR_EQ(test, c, a);

	put_page(b);
	put_page(c);
	rxr_pool_put(pool);
}

struct rxr_pool_test_remote {
	struct work_struct work;
	struct page *page;
	int cpu;
};

static void rxr_pool_test_remote_put(struct work_struct *work)
{
	struct rxr_pool_test_remote *r;

	r = container_of(work, struct rxr_pool_test_remote, work);
	r->cpu = raw_smp_processor_id();
	put_page(r->page);
}

static void rxr_pool_test_give_back_remote(struct kunit *test)
{
	struct rxr_pool *pool = rxr_pool_test_new(test, 1);
	struct rxr_pool_test_remote r = {};
	int cpu, here;

	here = get_cpu();
	cpu = cpumask_any_but(cpu_online_mask, here);
	put_cpu();
	if (cpu >= nr_cpu_ids) {
		rxr_pool_put(pool);
		kunit_skip(test, "needs a second online CPU");
	}

	r.page = rxr_pool_take(pool);
	KUNIT_ASSERT_NOT_NULL(test, r.page);
	KUNIT_ASSERT_NULL(test, rxr_pool_take(pool));

	INIT_WORK_ONSTACK(&r.work, rxr_pool_test_remote_put);
	schedule_work_on(cpu, &r.work);
	flush_work(&r.work);
	destroy_work_on_stack(&r.work);

	KUNIT_EXPECT_EQ(test, r.cpu, cpu);
	KUNIT_EXPECT_PTR_EQ(test, rxr_pool_take(pool), r.page);
	put_page(r.page);
	rxr_pool_put(pool);
}

#define RXR_POOL_TEST_RACE_PAGES	1
#define RXR_POOL_TEST_RACE_LOOPS	20000

struct rxr_pool_test_racer {
	struct work_struct work;
	struct rxr_pool *pool;
	struct page **pages;
	atomic_t *holders;
	atomic_t *running;
	unsigned int taken, empty, doubles, overlap;
};

/* Take and give back pages, checking that no page has two holders, and
 * counting the loops run while the other racer was running too.
 */
static void rxr_pool_test_race(struct work_struct *work)
{
	struct rxr_pool_test_racer *r;
	unsigned long start = jiffies;
	struct page *page;
	unsigned int i, j;

	r = container_of(work, struct rxr_pool_test_racer, work);
	/* Start together: wait (a second at most) for the other racer. */
	atomic_inc(r->running);
	while (atomic_read(r->running) < 2 &&
	       time_before(jiffies, start + HZ))
		cpu_relax();
	for (i = 0; i < RXR_POOL_TEST_RACE_LOOPS; i++) {
		if (atomic_read(r->running) == 2)
			r->overlap++;
		page = rxr_pool_take(r->pool);
		if (!page) {
			r->empty++;
			continue;
		}
		r->taken++;
		for (j = 0; j < RXR_POOL_TEST_RACE_PAGES; j++) {
			if (r->pages[j] != page)
				continue;
			if (atomic_inc_return(&r->holders[j]) != 1)
				r->doubles++;
			/* Hold it a moment, as a ring or an skb would. */
			udelay(1);
			atomic_dec(&r->holders[j]);
		}
		put_page(page);
	}
	atomic_dec(r->running);
}

static void rxr_pool_test_take_race(struct kunit *test)
{
	const unsigned int npages = RXR_POOL_TEST_RACE_PAGES;
	struct rxr_pool *pool = rxr_pool_test_new(test, npages);
	atomic_t holders[RXR_POOL_TEST_RACE_PAGES] = {};
	struct page *pages[RXR_POOL_TEST_RACE_PAGES];
	struct rxr_pool_test_racer r[2] = {};
	atomic_t running = ATOMIC_INIT(0);
	struct rxr_pool_stats stats;
	int i, cpu[2];

	cpu[0] = cpumask_first(cpu_online_mask);
	cpu[1] = cpumask_next(cpu[0], cpu_online_mask);
	if (cpu[1] >= nr_cpu_ids) {
		rxr_pool_put(pool);
		kunit_skip(test, "needs a second online CPU");
	}

	/* Learn the pool's pages, then give them back. */
	for (i = 0; i < RXR_POOL_TEST_RACE_PAGES; i++)
		pages[i] = rxr_pool_take(pool);
	for (i = 0; i < RXR_POOL_TEST_RACE_PAGES; i++) {
		KUNIT_ASSERT_NOT_NULL(test, pages[i]);
		put_page(pages[i]);
	}

	for (i = 0; i < 2; i++) {
		r[i].pool = pool;
		r[i].pages = pages;
		r[i].holders = holders;
		r[i].running = &running;
		INIT_WORK_ONSTACK(&r[i].work, rxr_pool_test_race);
		schedule_work_on(cpu[i], &r[i].work);
	}
	for (i = 0; i < 2; i++) {
		flush_work(&r[i].work);
		destroy_work_on_stack(&r[i].work);
		KUNIT_EXPECT_EQ(test, r[i].doubles, 0);
	}

	for (i = 0; i < 2; i++)
		kunit_info(test, "CPU %d took %u pages, found none %u times, %u loops with both running\n",
			   cpu[i], r[i].taken, r[i].empty, r[i].overlap);

	rxr_pool_get_stats(pool, &stats);
	KUNIT_EXPECT_EQ(test, stats.taken,
			RXR_POOL_TEST_RACE_PAGES + r[0].taken + r[1].taken);
	KUNIT_EXPECT_EQ(test, stats.empty, r[0].empty + r[1].empty);
	KUNIT_EXPECT_EQ(test, rxr_pool_free_pages(pool),
			RXR_POOL_TEST_RACE_PAGES);
	rxr_pool_put(pool);
	/* A race the two CPUs did not run side by side showed nothing. */
	if (!r[0].overlap || !r[1].overlap)
		kunit_skip(test, "the racers did not run at the same time");
	/* Side by side on one page, they must have found it taken. */
	KUNIT_EXPECT_GT(test, r[0].empty + r[1].empty, 0);
}

#define RXR_POOL_TEST_LEND_PAGES	8
#define RXR_POOL_TEST_LEND_LOOPS	20000

struct rxr_pool_test_lender {
	struct work_struct work;
	struct rxr_pool *pool;
	atomic_t *running;
	unsigned int lent, refused, max;
};

/* Lend and give back, recording the most pages seen lent at once. */
static void rxr_pool_test_lend_race(struct work_struct *work)
{
	struct rxr_pool_test_lender *l;
	unsigned long start = jiffies;
	struct page *page;
	unsigned int i, n;

	l = container_of(work, struct rxr_pool_test_lender, work);
	atomic_inc(l->running);
	while (atomic_read(l->running) < 2 &&
	       time_before(jiffies, start + HZ))
		cpu_relax();
	for (i = 0; i < RXR_POOL_TEST_LEND_LOOPS; i++) {
		page = rxr_pool_lend(l->pool);
		n = rxr_pool_lent(l->pool);
		l->max = max(l->max, n);
		if (!page) {
			l->refused++;
			continue;
		}
		l->lent++;
		rxr_page_unlend(page);
		put_page(page);
	}
	atomic_dec(l->running);
}

/* At most half of a pool is lent, exactly, from two CPUs at once. */
static void rxr_pool_test_lend(struct kunit *test)
{
	const unsigned int npages = RXR_POOL_TEST_LEND_PAGES;
	struct rxr_pool *pool = rxr_pool_test_new(test, npages);
	struct rxr_pool_test_lender l[2] = {};
	atomic_t running = ATOMIC_INIT(0);
	struct page *pages[RXR_POOL_TEST_LEND_PAGES / 2], *page;
	int i, cpu[2];

	for (i = 0; i < npages / 2; i++) {
		pages[i] = rxr_pool_lend(pool);
		KUNIT_ASSERT_NOT_NULL(test, pages[i]);
		KUNIT_EXPECT_PTR_EQ(test, rxr_page_pool(pages[i]),
				    (const struct rxr_pool *)pool);
	}
	KUNIT_EXPECT_EQ(test, rxr_pool_lent(pool), npages / 2);
	KUNIT_EXPECT_FALSE(test, rxr_pool_lendable(pool));
	KUNIT_EXPECT_NULL(test, rxr_pool_lend(pool));
	/* Taken, not lent: the other half is the owner's. */
	page = rxr_pool_take(pool);
	KUNIT_EXPECT_NOT_NULL(test, page);
	if (page)
		put_page(page);
	/* A loan ends once, however often it is ended. */
	rxr_page_unlend(pages[0]);
	rxr_page_unlend(pages[0]);
	KUNIT_EXPECT_EQ(test, rxr_pool_lent(pool), npages / 2 - 1);
	for (i = 0; i < npages / 2; i++) {
		rxr_page_unlend(pages[i]);
		put_page(pages[i]);
	}
	KUNIT_EXPECT_EQ(test, rxr_pool_lent(pool), 0);

	cpu[0] = cpumask_first(cpu_online_mask);
	cpu[1] = cpumask_next(cpu[0], cpu_online_mask);
	if (cpu[1] >= nr_cpu_ids) {
		rxr_pool_put(pool);
		kunit_skip(test, "needs a second online CPU for the race");
	}
	/* Half the pool held, so that the racers meet the limit. */
	for (i = 0; i < npages / 2 - 1; i++)
		pages[i] = rxr_pool_lend(pool);
	for (i = 0; i < 2; i++) {
		l[i].pool = pool;
		l[i].running = &running;
		INIT_WORK_ONSTACK(&l[i].work, rxr_pool_test_lend_race);
		schedule_work_on(cpu[i], &l[i].work);
	}
	for (i = 0; i < 2; i++) {
		flush_work(&l[i].work);
		destroy_work_on_stack(&l[i].work);
		kunit_info(test, "CPU %d lent %u, refused %u, saw %u lent at most\n",
			   cpu[i], l[i].lent, l[i].refused, l[i].max);
		KUNIT_EXPECT_LE(test, l[i].max, npages / 2);
	}
	KUNIT_EXPECT_GT(test, l[0].refused + l[1].refused, 0);
	for (i = 0; i < npages / 2 - 1; i++) {
		rxr_page_unlend(pages[i]);
		put_page(pages[i]);
	}
	KUNIT_EXPECT_EQ(test, rxr_pool_lent(pool), 0);
	rxr_pool_put(pool);
}

static void rxr_pool_test_in_flight_at_put(struct kunit *test)
{
	struct rxr_pool *pool = rxr_pool_test_new(test, 2);
	struct page *page;
	int i;

	page = rxr_pool_take(pool);
	KUNIT_ASSERT_NOT_NULL(test, page);

	/* The pool's last reference goes while an skb still holds one of
	 * its pages: the pool waits for it, and its tag stays valid.
	 */
	rxr_pool_put(pool);
	KUNIT_EXPECT_EQ(test, page_ref_count(page), 2);
	KUNIT_EXPECT_EQ(test, rxr_pool_pages_out(), 1);
	KUNIT_EXPECT_PTR_EQ(test, rxr_page_pool(page),
			    (const struct rxr_pool *)pool);
	put_page(page);
	/* Then the work item that looks every 100 ms frees it. */
	for (i = 0; i < 50 && rxr_pool_pages_out(); i++)
		msleep(20);
	KUNIT_EXPECT_EQ(test, rxr_pool_pages_out(), 0);
}

static void rxr_pool_test_refcount(struct kunit *test)
{
	struct rxr_pool *pool = rxr_pool_test_new(test, 1);

	KUNIT_EXPECT_PTR_EQ(test, rxr_pool_get(pool), pool);
	rxr_pool_put(pool);
	/* Still usable on the creator's reference. */
	KUNIT_EXPECT_EQ(test, rxr_pool_free_pages(pool), 1);
	rxr_pool_put(pool);
}

static struct kunit_case rxr_pool_test_cases[] = {
	KUNIT_CASE_PARAM(rxr_pool_test_create, rxr_pool_test_size_gen_params),
	KUNIT_CASE(rxr_pool_test_take_until_empty),
	KUNIT_CASE(rxr_pool_test_give_back),
	KUNIT_CASE(rxr_pool_test_give_back_remote),
	KUNIT_CASE(rxr_pool_test_take_race),
	KUNIT_CASE(rxr_pool_test_lend),
	KUNIT_CASE(rxr_pool_test_in_flight_at_put),
	KUNIT_CASE(rxr_pool_test_refcount),
	{}
};

static struct kunit_suite rxr_pool_test_suite = {
	.name = "rx_reserve_pool",
	.test_cases = rxr_pool_test_cases,
};

kunit_test_suite(rxr_pool_test_suite);

MODULE_DESCRIPTION("KUnit tests for rx-reserve pools");
MODULE_LICENSE("GPL");
