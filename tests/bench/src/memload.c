// SPDX-License-Identifier: GPL-2.0
/*
 * memload: the bench's memory load, after MMTests' vmscan-anon-mmap-write.
 *
 * PROCS processes each map MIB MiB of anonymous memory, write every page,
 * then read every page back and check what they wrote, PASSES times in all
 * (1 write pass, PASSES - 1 read passes).  With more memory than the
 * machine has, the pages go to swap and come back from it.
 *
 * The parent locks itself in memory and prints a START line with its
 * arguments and the /proc/vmstat swap counters, then, every INTERVAL ms:
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
 * For a guest that may wedge, all opened while memory is still there:
 *   -R FILE  print FILE ("R " before each line) every 10 intervals and at
 *            a hang, e.g. /proc/net/rx_reserve
 *   -S       at a hang, have the kernel log blocked tasks and memory
 *            (sysrq w and m)
 *   -B SECS  at a hang, reboot the machine (sysrq b) SECS seconds later
 *            unless it went down by itself: a wedged guest cannot run the
 *            rest of its script
 *
 * Exit: 0 all done and intact, 1 some process corrupt or killed, 3 hang,
 * 4 limit, 2 usage or setup error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
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
		"               [-H HANG_S] [-T LIMIT_S] [-R FILE] [-S] [-B SECS]\n"
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

static int sysrq_fd = -1;

static void sysrq(char c)
{
	if (sysrq_fd >= 0 && write(sysrq_fd, &c, 1) != 1)
		perror("memload: sysrq");
}

/* Print what FD holds, "R " before each line, with no allocation. */
static void dump(int fd)
{
	static char buf[16384];
	ssize_t n, i, start = 0;

	if (fd < 0 || lseek(fd, 0, SEEK_SET) < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		return;
	buf[n] = 0;
	for (i = 0; i < n; i++) {
		if (buf[i] != '\n')
			continue;
		buf[i] = 0;
		printf("R %s\n", buf + start);
		start = i + 1;
	}
}

/*
 * The reaper: a process of its own, locked in memory, that reboots the
 * machine SECS after the parent reports a hang through the pipe, and ends
 * when the parent ends without one.
 */
static int reaper(int secs)
{
	int fd[2];
	char c;

	if (pipe(fd))
		return -1;
	switch (fork()) {
	case -1:
		return -1;
	case 0:
		close(fd[1]);
		mlockall(MCL_CURRENT | MCL_FUTURE);
		if (read(fd[0], &c, 1) == 1) {
			sleep(secs);
			sysrq('b');
		}
		_exit(0);
	}
	close(fd[0]);
	return fd[1];
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
	long limit = 0, reboot = 0;
	int dump_fd = -1, reaper_fd = -1, want_sysrq = 0;
	unsigned long tick = 0;
	uint64_t total, done, last_done = 0, out, in, last_swap = 0;
	int ok = 0, corrupt = 0, killed = 0, left, opt, i, st;
	double t0, t, last_move;
	pid_t pid[MAX_PROCS];
	struct progress *pr;
	size_t psz;
	FILE *f;

	while ((opt = getopt(argc, argv, "p:m:P:i:H:T:R:SB:")) != -1) {
		switch (opt) {
		case 'p': procs = arg(optarg, 1); break;
		case 'm': mib = arg(optarg, 1); break;
		case 'P': passes = arg(optarg, 1); break;
		case 'i': interval = arg(optarg, 10); break;
		case 'H': hang = arg(optarg, 1); break;
		case 'T': limit = arg(optarg, 0); break;
		case 'R':
			dump_fd = open(optarg, O_RDONLY);
			if (dump_fd < 0)
				perror(optarg);
			break;
		case 'S': want_sysrq = 1; break;
		case 'B': reboot = arg(optarg, 1); break;
		default: usage();
		}
	}
	if (optind != argc || !procs || !mib || procs > MAX_PROCS)
		usage();

	if (want_sysrq || reboot) {
		sysrq_fd = open("/proc/sysrq-trigger", O_WRONLY);
		if (sysrq_fd < 0)
			perror("memload: /proc/sysrq-trigger");
	}
	if (reboot && sysrq_fd >= 0) {
		/* A reaper that died must not take the parent with it. */
		signal(SIGPIPE, SIG_IGN);
		reaper_fd = reaper(reboot);
	}
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
		if (!pid[i]) {
			if (reaper_fd >= 0)
				close(reaper_fd);
			_exit(child(i, mib, passes, &pr[i]));
		}
	}

	/* The parent must keep reporting while everything else swaps. */
	f = fopen("/proc/self/oom_score_adj", "w");
	if (f) {
		fputs("-1000", f);
		fclose(f);
	}
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		perror("memload: mlockall (going on unlocked)");

	printf("START procs=%ld mib=%ld passes=%ld total_mib=%llu pswpout=%llu pswpin=%llu\n",
	       procs, mib, passes, (unsigned long long)(total * psz >> 20),
	       (unsigned long long)vmstat("pswpout"),
	       (unsigned long long)vmstat("pswpin"));
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
		if (++tick % 10 == 0)
			dump(dump_fd);
		if (done != last_done || out + in != last_swap) {
			last_done = done;
			last_swap = out + in;
			last_move = t;
		}
		if (left && t - last_move >= hang) {
			printf("HANG %.1f no progress for %ld s\n", t - t0,
			       hang);
			/* First the reaper: what follows may block. */
			if (reaper_fd >= 0 && write(reaper_fd, "h", 1) == 1)
				printf("HANG: rebooting in %ld s\n", reboot);
			dump(dump_fd);
			if (want_sysrq) {
				sysrq('w');
				sysrq('m');
			}
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
