// SPDX-License-Identifier: GPL-2.0
/*
 * memload: the bench's memory load, after MMTests' vmscan-anon-mmap-write.
 *
 * PROCS processes each map MIB MiB of anonymous memory, write every page,
 * then read every page back and check what they wrote, PASSES times in all
 * (1 write pass, PASSES - 1 read passes).  With more memory than the
 * machine has, the pages go to swap and come back from it.
 *
 * The parent locks itself in memory and prints, every INTERVAL ms:
 *
 *   T <seconds> <MiB done> <MiB total> <pswpout> <pswpin>
 *
 * (the /proc/vmstat counters, in pages), and at the end one line:
 *
 *   DONE <seconds> ok=N corrupt=N killed=N
 *   HANG <seconds> no progress for S s  (nothing done, nothing swapped)
 *   LIMIT <seconds> ...                  (the wall-clock limit ran out)
 *
 * A process that finds a page not as it wrote it exits 2 (corrupt); one
 * killed by a signal (the OOM killer's SIGKILL) counts as killed.
 *
 * Exit: 0 all done and intact, 1 some process corrupt or killed, 3 hang,
 * 4 limit, 2 usage or setup error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_PROCS	64

struct progress {
	volatile uint64_t pages;	/* pages done, all passes */
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: memload -p PROCS -m MIB [-P PASSES] [-i INTERVAL_MS]\n"
		"               [-H HANG_S] [-T LIMIT_S]\n"
		"  PROCS 1-%d, MIB >= 1, PASSES >= 1 (2: write then read),\n"
		"  HANG_S: give up after that long without progress (120),\n"
		"  LIMIT_S: give up after that long in all (0: none)\n",
		MAX_PROCS);
	exit(2);
}

static long arg(const char *s, long min)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min)
		usage();
	return v;
}

/* A page's pattern: who wrote it and where, never zero. */
static uint64_t pattern(int proc, size_t page)
{
	return 0x5a00000000000000ULL | ((uint64_t)proc << 40) | page;
}

static int child(int proc, size_t mib, int passes, struct progress *pr)
{
	size_t psz = sysconf(_SC_PAGESIZE), npages = (mib << 20) / psz, i;
	size_t words = psz / sizeof(uint64_t);
	uint64_t *p;
	int pass;

	p = mmap(NULL, mib << 20, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED) {
		perror("memload: mmap");
		return 3;
	}
	for (pass = 0; pass < passes; pass++) {
		for (i = 0; i < npages; i++) {
			uint64_t *pg = p + i * words, want = pattern(proc, i);

			if (!pass) {
				pg[0] = want;
				pg[words / 2] = ~want;
				pg[words - 1] = want;
			} else if (pg[0] != want || pg[words / 2] != ~want ||
				   pg[words - 1] != want) {
				printf("CORRUPT proc %d page %zu pass %d\n",
				       proc, i, pass);
				fflush(stdout);
				return 2;
			}
			pr->pages++;
		}
	}
	return 0;
}

static uint64_t vmstat(const char *name)
{
	char line[128];
	size_t n = strlen(name);
	uint64_t v = 0;
	FILE *f;

	f = fopen("/proc/vmstat", "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, n) && line[n] == ' ') {
			v = strtoull(line + n + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

int main(int argc, char **argv)
{
	long procs = 0, mib = 0, passes = 2, interval = 1000, hang = 120;
	long limit = 0;
	uint64_t total, done, last_done = 0, out, in, last_swap = 0;
	int ok = 0, corrupt = 0, killed = 0, left, opt, i, st;
	double t0, t, last_move;
	pid_t pid[MAX_PROCS];
	struct progress *pr;
	size_t psz;
	FILE *f;

	while ((opt = getopt(argc, argv, "p:m:P:i:H:T:")) != -1) {
		switch (opt) {
		case 'p': procs = arg(optarg, 1); break;
		case 'm': mib = arg(optarg, 1); break;
		case 'P': passes = arg(optarg, 1); break;
		case 'i': interval = arg(optarg, 10); break;
		case 'H': hang = arg(optarg, 1); break;
		case 'T': limit = arg(optarg, 0); break;
		default: usage();
		}
	}
	if (optind != argc || !procs || !mib || procs > MAX_PROCS)
		usage();

	psz = sysconf(_SC_PAGESIZE);
	total = (uint64_t)procs * passes * ((mib << 20) / psz);
	pr = mmap(NULL, MAX_PROCS * sizeof(*pr), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (pr == MAP_FAILED) {
		perror("memload: mmap");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	t0 = now();
	for (i = 0; i < procs; i++) {
		pid[i] = fork();
		if (pid[i] < 0) {
			perror("memload: fork");
			for (left = 0; left < i; left++)
				kill(pid[left], SIGKILL);
			return 2;
		}
		if (!pid[i])
			_exit(child(i, mib, passes, &pr[i]));
	}

	/* The parent must keep reporting while everything else swaps. */
	f = fopen("/proc/self/oom_score_adj", "w");
	if (f) {
		fputs("-1000", f);
		fclose(f);
	}
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		perror("memload: mlockall (going on unlocked)");

	printf("START procs=%ld mib=%ld passes=%ld total_mib=%llu\n", procs,
	       mib, passes,
	       (unsigned long long)(total * psz >> 20));
	last_move = t0;
	left = procs;
	while (left) {
		usleep(interval * 1000);
		while ((i = waitpid(-1, &st, WNOHANG)) > 0) {
			left--;
			if (WIFEXITED(st) && !WEXITSTATUS(st))
				ok++;
			else if (WIFEXITED(st) && WEXITSTATUS(st) == 2)
				corrupt++;
			else
				killed++;
		}
		t = now();
		for (done = 0, i = 0; i < procs; i++)
			done += pr[i].pages;
		out = vmstat("pswpout");
		in = vmstat("pswpin");
		printf("T %.1f %llu %llu %llu %llu\n", t - t0,
		       (unsigned long long)(done * psz >> 20),
		       (unsigned long long)(total * psz >> 20),
		       (unsigned long long)out, (unsigned long long)in);
		if (done != last_done || out + in != last_swap) {
			last_done = done;
			last_swap = out + in;
			last_move = t;
		}
		if (left && t - last_move >= hang) {
			printf("HANG %.1f no progress for %ld s\n", t - t0,
			       hang);
			for (i = 0; i < procs; i++)
				kill(pid[i], SIGKILL);
			return 3;
		}
		if (left && limit && t - t0 >= limit) {
			printf("LIMIT %.1f limit of %ld s reached\n", t - t0,
			       limit);
			for (i = 0; i < procs; i++)
				kill(pid[i], SIGKILL);
			return 4;
		}
	}
	printf("DONE %.1f ok=%d corrupt=%d killed=%d\n", now() - t0, ok,
	       corrupt, killed);
	return ok == procs ? 0 : 1;
}
