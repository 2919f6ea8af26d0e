// SPDX-License-Identifier: GPL-2.0
/*
 * flood: the bench's traffic generator.  Runs on the peer side, inside the
 * bench's namespace, and sends unrelated traffic at the guest's NIC:
 *
 *   UDP  from N source sockets, payload sizes spread over [min, max], to a
 *        list of destination ports (closed ones, and open ones whose socket
 *        never reads), paced to a packet rate or unpaced;
 *   TCP  one bulk stream into a sink that never reads or reads slowly.
 *
 * It stops by itself after a duration or a packet count, and prints one
 * "flood: sent=N bytes=N errors=N seconds=S pps=R" line.
 *
 * Usage: flood -d ADDR -p PORT[,PORT...] [-r PPS] [-t SECONDS] [-c COUNT]
 *              [-s MIN[:MAX]] [-n SOCKETS] [-T]
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define FLOOD_MAX_PORTS		16
#define FLOOD_MAX_SOCKETS	64
#define FLOOD_MAX_SIZE		65000
#define FLOOD_MAX_SECONDS	3600

struct flood_cfg {
	struct sockaddr_storage dst;
	socklen_t dst_len;
	unsigned short ports[FLOOD_MAX_PORTS];
	unsigned int nports;
	unsigned long pps;		/* 0: unpaced */
	unsigned long count;		/* 0: until the duration ends */
	unsigned int seconds;
	unsigned int min_size, max_size;
	unsigned int sockets;
	bool tcp;
};

static volatile sig_atomic_t flood_stop;

/* Parse an unsigned decimal in [min, max]; 0 on success, -1 on error. */
static int flood_parse_ulong(const char *s, unsigned long min,
			     unsigned long max, unsigned long *out)
{
	unsigned long v;
	char *end;

	if (!s || !*s || *s == '-')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static int flood_parse_ports(const char *s, struct flood_cfg *cfg)
{
	char buf[256], *tok, *save;
	unsigned long v;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	cfg->nports = 0;
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (cfg->nports == FLOOD_MAX_PORTS ||
		    flood_parse_ulong(tok, 1, 65535, &v))
			return -1;
		cfg->ports[cfg->nports++] = v;
	}
	return cfg->nports ? 0 : -1;
}

static int flood_parse_sizes(const char *s, struct flood_cfg *cfg)
{
	char buf[64], *colon;
	unsigned long lo, hi;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	colon = strchr(buf, ':');
	if (colon)
		*colon = '\0';
	if (flood_parse_ulong(buf, 1, FLOOD_MAX_SIZE, &lo))
		return -1;
	hi = lo;
	if (colon && flood_parse_ulong(colon + 1, lo, FLOOD_MAX_SIZE, &hi))
		return -1;
	cfg->min_size = lo;
	cfg->max_size = hi;
	return 0;
}

static int flood_parse_addr(const char *s, struct flood_cfg *cfg)
{
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&cfg->dst;
	struct sockaddr_in *a4 = (struct sockaddr_in *)&cfg->dst;

	memset(&cfg->dst, 0, sizeof(cfg->dst));
	if (inet_pton(AF_INET, s, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		cfg->dst_len = sizeof(*a4);
		return 0;
	}
	if (inet_pton(AF_INET6, s, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		cfg->dst_len = sizeof(*a6);
		return 0;
	}
	return -1;
}

/*
 * flood_parse_args() - fill @cfg from the command line.
 * Return: 0, or -1 with a message naming the bad option in @err.
 */
static int flood_parse_args(int argc, char **argv, struct flood_cfg *cfg,
			    char *err, size_t errlen)
{
	unsigned long v;
	int opt;

	memset(cfg, 0, sizeof(*cfg));
	cfg->seconds = 10;
	cfg->min_size = 64;
	cfg->max_size = 1400;
	cfg->sockets = 8;
	optind = 1;
	opterr = 0;
	while ((opt = getopt(argc, argv, "d:p:r:t:c:s:n:T")) != -1) {
		switch (opt) {
		case 'd':
			if (flood_parse_addr(optarg, cfg))
				goto bad;
			break;
		case 'p':
			if (flood_parse_ports(optarg, cfg))
				goto bad;
			break;
		case 'r':
			if (flood_parse_ulong(optarg, 0, 10000000, &cfg->pps))
				goto bad;
			break;
		case 't':
			if (flood_parse_ulong(optarg, 1, FLOOD_MAX_SECONDS, &v))
				goto bad;
			cfg->seconds = v;
			break;
		case 'c':
			if (flood_parse_ulong(optarg, 1, ~0UL, &cfg->count))
				goto bad;
			break;
		case 's':
			if (flood_parse_sizes(optarg, cfg))
				goto bad;
			break;
		case 'n':
			if (flood_parse_ulong(optarg, 1, FLOOD_MAX_SOCKETS, &v))
				goto bad;
			cfg->sockets = v;
			break;
		case 'T':
			cfg->tcp = true;
			break;
		default:
			snprintf(err, errlen, "unknown option -%c", optopt);
			return -1;
		}
	}
	if (optind != argc) {
		snprintf(err, errlen, "unexpected argument '%s'", argv[optind]);
		return -1;
	}
	if (!cfg->dst_len || !cfg->nports) {
		snprintf(err, errlen, "-d ADDR and -p PORT are required");
		return -1;
	}
	return 0;
bad:
	snprintf(err, errlen, "bad value '%s' for -%c", optarg, opt);
	return -1;
}

/* Payload size of packet @seq: a fixed walk over [min, max]. */
static unsigned int flood_size(const struct flood_cfg *cfg, unsigned long seq)
{
	unsigned int span = cfg->max_size - cfg->min_size + 1;

	return cfg->min_size + (seq * 7919) % span;
}

/* When packet @seq is due, @start_ns being when packet 0 was. */
static uint64_t flood_due_ns(const struct flood_cfg *cfg, uint64_t start_ns,
			     unsigned long seq)
{
	if (!cfg->pps)
		return start_ns;
	return start_ns + (uint64_t)seq * 1000000000ull / cfg->pps;
}

#ifndef FLOOD_NO_MAIN
static uint64_t flood_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void flood_set_port(struct flood_cfg *cfg, unsigned short port)
{
	if (cfg->dst.ss_family == AF_INET)
		((struct sockaddr_in *)&cfg->dst)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)&cfg->dst)->sin6_port = htons(port);
}

static void flood_on_signal(int sig)
{
	(void)sig;
	flood_stop = 1;
}

static int flood_udp(struct flood_cfg *cfg, unsigned long *sent,
		     unsigned long long *bytes, unsigned long *errors)
{
	static char payload[FLOOD_MAX_SIZE];
	int fds[FLOOD_MAX_SOCKETS];
	uint64_t start, end, due, now;
	unsigned long seq;
	unsigned int i;

	for (i = 0; i < cfg->sockets; i++) {
		fds[i] = socket(cfg->dst.ss_family, SOCK_DGRAM, 0);
		if (fds[i] < 0) {
			perror("flood: socket");
			while (i--)
				close(fds[i]);
			return -1;
		}
	}
	memset(payload, 0x5a, sizeof(payload));
	start = flood_now_ns();
	end = start + (uint64_t)cfg->seconds * 1000000000ull;
	for (seq = 0; !flood_stop; seq++) {
		if (cfg->count && seq == cfg->count)
			break;
		due = flood_due_ns(cfg, start, seq);
		now = flood_now_ns();
		if (now >= end || due >= end)
			break;
		if (due > now) {
			struct timespec ts = {
				.tv_sec = (due - now) / 1000000000ull,
				.tv_nsec = (due - now) % 1000000000ull,
			};

			nanosleep(&ts, NULL);
		}
		flood_set_port(cfg, cfg->ports[seq % cfg->nports]);
		if (sendto(fds[seq % cfg->sockets], payload,
			   flood_size(cfg, seq), MSG_DONTWAIT,
			   (struct sockaddr *)&cfg->dst, cfg->dst_len) < 0) {
			(*errors)++;
			continue;
		}
		(*sent)++;
		*bytes += flood_size(cfg, seq);
	}
	for (i = 0; i < cfg->sockets; i++)
		close(fds[i]);
	return 0;
}

static int flood_tcp(struct flood_cfg *cfg, unsigned long *sent,
		     unsigned long long *bytes, unsigned long *errors)
{
	static char payload[65536];
	uint64_t end;
	ssize_t n;
	int fd;

	fd = socket(cfg->dst.ss_family, SOCK_STREAM, 0);
	if (fd < 0) {
		perror("flood: socket");
		return -1;
	}
	flood_set_port(cfg, cfg->ports[0]);
	if (connect(fd, (struct sockaddr *)&cfg->dst, cfg->dst_len)) {
		perror("flood: connect");
		close(fd);
		return -1;
	}
	end = flood_now_ns() + (uint64_t)cfg->seconds * 1000000000ull;
	while (!flood_stop && flood_now_ns() < end) {
		n = send(fd, payload, sizeof(payload), MSG_DONTWAIT);
		if (n < 0) {
			if (errno != EAGAIN && errno != EINTR) {
				(*errors)++;
				break;
			}
			usleep(1000);
			continue;
		}
		(*sent)++;
		*bytes += n;
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long sent = 0, errors = 0;
	unsigned long long bytes = 0;
	struct flood_cfg cfg;
	uint64_t start;
	double secs;
	char err[128];
	int ret;

	if (flood_parse_args(argc, argv, &cfg, err, sizeof(err))) {
		fprintf(stderr, "flood: %s\n"
			"usage: flood -d ADDR -p PORT[,PORT...] [-r PPS] [-t SECONDS] [-c COUNT] [-s MIN[:MAX]] [-n SOCKETS] [-T]\n",
			err);
		return 2;
	}
	signal(SIGINT, flood_on_signal);
	signal(SIGTERM, flood_on_signal);
	start = flood_now_ns();
	if (cfg.tcp)
		ret = flood_tcp(&cfg, &sent, &bytes, &errors);
	else
		ret = flood_udp(&cfg, &sent, &bytes, &errors);
	secs = (flood_now_ns() - start) / 1e9;
	printf("flood: sent=%lu bytes=%llu errors=%lu seconds=%.2f pps=%.0f\n",
	       sent, bytes, errors, secs, secs > 0 ? sent / secs : 0.0);
	return ret ? 1 : 0;
}
#endif /* FLOOD_NO_MAIN */
