// SPDX-License-Identifier: GPL-2.0
/*
 * rxr_sock: make userspace priority flows with SO_RX_RESERVE for the
 * rx_reserve selftests.
 *
 *   rxr_sock errors
 *	check the option's errors: EOPNOTSUPP on UDP, EINVAL on a listening
 *	socket, EPERM without CAP_NET_ADMIN; exit 0 if all are right.
 *   rxr_sock pair ADDR
 *	listen on ADDR (IPv4 or IPv6 loopback), connect a priority socket to
 *	it, print "port N" (the client's local port), hold until stdin
 *	closes.
 *   rxr_sock connect [-b] ADDR PORT
 *	connect a priority socket to ADDR PORT (-b: do not wait for the
 *	connection), print "port N", hold until stdin closes, then abort
 *	the connection (RST), so that the socket goes at once.
 *   rxr_sock serve PORT BYTES
 *	accept connections on PORT (IPv4 and IPv6); on each, send BYTES of
 *	a fixed pattern and a FIN (no FIN if BYTES is 0), then wait for the
 *	peer to close.  Runs until killed.
 *   rxr_sock recv [-n] ADDR PORT
 *	connect a priority socket (-n: an ordinary one) to ADDR PORT, print
 *	"port N", read until EOF, print "bytes N pattern ok|bad".
 *   rxr_sock flood ADDR PORT SECONDS SIZE
 *	send SIZE-byte UDP datagrams to ADDR PORT as fast as possible for
 *	SECONDS, print "sent N".
 *   rxr_sock udpsink PORT
 *	bind a UDP socket with a 16 MiB receive buffer to PORT that never
 *	reads, until stdin closes.
 *   rxr_sock tcpsink PORT
 *	accept TCP connections on PORT and never read them, until stdin
 *	closes: a bulk stream then stalls on the receive window.
 *   rxr_sock xdp IFNAME on|off
 *	attach an XDP program that passes every frame to IFNAME (driver
 *	mode), or detach it; print the kernel's error and extack message.
 *   rxr_sock say PORT TEXT
 *	accept one connection on PORT, send TEXT and a newline, close, exit:
 *	a request to the bench's peer.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <poll.h>
#include <linux/capability.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SO_RX_RESERVE
#define SO_RX_RESERVE 81
#endif

static int failed;

static void check(const char *what, int got, int want)
{
	if (got == want) {
		printf("PASS: %s (%s)\n", what, want ? strerror(want) : "0");
	} else {
		printf("FAIL: %s: expected %s, got %s\n", what,
		       want ? strerror(want) : "0", got ? strerror(got) : "0");
		failed = 1;
	}
}

static void check_val(const char *what, int got, int want)
{
	if (got == want) {
		printf("PASS: %s (%d)\n", what, got);
	} else {
		printf("FAIL: %s: expected %d, got %d\n", what, want, got);
		failed = 1;
	}
}

static int set_rxr(int fd, int on)
{
	return setsockopt(fd, SOL_SOCKET, SO_RX_RESERVE, &on, sizeof(on)) ?
	       errno : 0;
}

static int get_rxr(int fd)
{
	socklen_t len = sizeof(int);
	int on = -1;

	if (getsockopt(fd, SOL_SOCKET, SO_RX_RESERVE, &on, &len))
		return -errno;
	return on;
}

static int drop_net_admin(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data))
		return -1;
	data[CAP_NET_ADMIN / 32].effective &= ~(1U << (CAP_NET_ADMIN % 32));
	return syscall(SYS_capset, &hdr, data);
}

static int errors(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	int udp, lsn, tcp;

	udp = socket(AF_INET, SOCK_DGRAM, 0);
	lsn = socket(AF_INET, SOCK_STREAM, 0);
	tcp = socket(AF_INET6, SOCK_STREAM, 0);
	if (udp < 0 || lsn < 0 || tcp < 0) {
		perror("socket");
		return 1;
	}
	check("SO_RX_RESERVE on UDP", set_rxr(udp, 1), EOPNOTSUPP);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(lsn, (struct sockaddr *)&sin, sizeof(sin)) || listen(lsn, 1)) {
		perror("listen");
		return 1;
	}
	check("SO_RX_RESERVE on a listening socket", set_rxr(lsn, 1), EINVAL);
	check_val("getsockopt before", get_rxr(tcp), 0);
	check("SO_RX_RESERVE on TCP", set_rxr(tcp, 1), 0);
	check_val("getsockopt after", get_rxr(tcp), 1);
	check("SO_RX_RESERVE off", set_rxr(tcp, 0), 0);
	check_val("getsockopt off", get_rxr(tcp), 0);
	if (drop_net_admin()) {
		perror("capset");
		return 1;
	}
	check("SO_RX_RESERVE without CAP_NET_ADMIN", set_rxr(tcp, 1), EPERM);
	check_val("getsockopt without CAP_NET_ADMIN", get_rxr(tcp), 0);
	close(udp);
	close(lsn);
	close(tcp);
	return failed;
}

static socklen_t parse(const char *addr, int port, struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, addr, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		return sizeof(*sin);
	}
	if (inet_pton(AF_INET6, addr, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		return sizeof(*sin6);
	}
	fprintf(stderr, "rxr_sock: bad address %s\n", addr);
	exit(2);
}

static int local_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len))
		return -1;
	if (ss.ss_family == AF_INET)
		return ntohs(((struct sockaddr_in *)&ss)->sin_port);
	return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
}

/*
 * Make a priority socket, connect it, report, hold until stdin closes, and
 * abort the connection.
 */
static int hold(struct sockaddr_storage *ss, socklen_t len, int nonblock)
{
	struct linger abort_linger = { .l_onoff = 1, .l_linger = 0 };
	char buf[64];
	int fd, err;

	fd = socket(ss->ss_family, SOCK_STREAM, 0);
	if (fd < 0) {
		perror("socket");
		return 1;
	}
	err = set_rxr(fd, 1);
	if (err) {
		fprintf(stderr, "rxr_sock: SO_RX_RESERVE: %s\n", strerror(err));
		return 1;
	}
	if (nonblock)
		fcntl(fd, F_SETFL, O_NONBLOCK);
	if (connect(fd, (struct sockaddr *)ss, len) &&
	    !(nonblock && errno == EINPROGRESS)) {
		perror("connect");
		return 1;
	}
	printf("port %d\n", local_port(fd));
	fflush(stdout);
	while (read(0, buf, sizeof(buf)) > 0)
		;
	/* Abort: the socket goes now, even if the peer is out of reach. */
	setsockopt(fd, SOL_SOCKET, SO_LINGER, &abort_linger,
		   sizeof(abort_linger));
	close(fd);
	return 0;
}

static int pair(const char *addr)
{
	struct sockaddr_storage ss;
	socklen_t len = parse(addr, 0, &ss);
	int lsn;

	lsn = socket(ss.ss_family, SOCK_STREAM, 0);
	if (lsn < 0 || bind(lsn, (struct sockaddr *)&ss, len) ||
	    listen(lsn, 1) || getsockname(lsn, (struct sockaddr *)&ss, &len)) {
		perror("listen");
		return 1;
	}
	/* The connection completes in the listener's backlog. */
	return hold(&ss, len, 0);
}

/* The byte at offset @i of what serve sends. */
static unsigned char pattern(unsigned long long i)
{
	return (i * 7 + (i >> 12)) & 0xff;
}

static int serve(int port, unsigned long long bytes)
{
	struct sockaddr_in6 sin6 = {
		.sin6_family = AF_INET6,
		.sin6_port = htons(port),
	};
	unsigned char buf[16384];
	unsigned long long off;
	int lsn, fd, one = 1, zero = 0;
	size_t n, i;

	signal(SIGCHLD, SIG_IGN);
	lsn = socket(AF_INET6, SOCK_STREAM, 0);
	if (lsn < 0 ||
	    setsockopt(lsn, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    setsockopt(lsn, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero)) ||
	    bind(lsn, (struct sockaddr *)&sin6, sizeof(sin6)) ||
	    listen(lsn, 64)) {
		perror("listen");
		return 1;
	}
	printf("listening %d\n", port);
	fflush(stdout);
	for (;;) {
		fd = accept(lsn, NULL, NULL);
		if (fd < 0)
			continue;
		if (fork()) {
			close(fd);
			continue;
		}
		close(lsn);
		for (off = 0; off < bytes; off += n) {
			n = sizeof(buf);
			if (bytes - off < n)
				n = bytes - off;
			for (i = 0; i < n; i++)
				buf[i] = pattern(off + i);
			if (write(fd, buf, n) != (ssize_t)n)
				_exit(1);
		}
		/* With nothing to send, send no FIN either: hold. */
		if (bytes)
			shutdown(fd, SHUT_WR);
		while (read(fd, buf, sizeof(buf)) > 0)
			;
		_exit(0);
	}
}

static int recv_all(struct sockaddr_storage *ss, socklen_t len, int prio)
{
	unsigned long long total = 0;
	unsigned char buf[16384];
	int fd, err, bad = 0;
	ssize_t n, i;

	fd = socket(ss->ss_family, SOCK_STREAM, 0);
	if (fd < 0) {
		perror("socket");
		return 1;
	}
	if (prio) {
		err = set_rxr(fd, 1);
		if (err) {
			fprintf(stderr, "rxr_sock: SO_RX_RESERVE: %s\n",
				strerror(err));
			return 1;
		}
	}
	if (connect(fd, (struct sockaddr *)ss, len)) {
		perror("connect");
		return 1;
	}
	printf("port %d\n", local_port(fd));
	fflush(stdout);
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (i = 0; i < n; i++)
			bad |= buf[i] != pattern(total + i);
		total += n;
	}
	printf("bytes %llu pattern %s\n", total, bad ? "bad" : "ok");
	close(fd);
	return n < 0 || bad;
}

static int flood(struct sockaddr_storage *ss, socklen_t len, int seconds,
		 int size)
{
	static unsigned char buf[65536];
	unsigned long long sent = 0;
	time_t end = time(NULL) + seconds;
	int fd;

	if (size < 1 || size > (int)sizeof(buf)) {
		fprintf(stderr, "rxr_sock: bad size %d\n", size);
		return 2;
	}
	fd = socket(ss->ss_family, SOCK_DGRAM, 0);
	if (fd < 0) {
		perror("socket");
		return 1;
	}
	while (time(NULL) < end) {
		int i;

		for (i = 0; i < 256; i++)
			if (sendto(fd, buf, size, 0, (struct sockaddr *)ss,
				   len) == size)
				sent++;
	}
	printf("sent %llu\n", sent);
	return 0;
}

static int udpsink(int port)
{
	struct sockaddr_in6 sin6 = {
		.sin6_family = AF_INET6,
		.sin6_port = htons(port),
	};
	int fd, zero = 0, rcvbuf = 16 << 20;
	char buf[64];

	fd = socket(AF_INET6, SOCK_DGRAM, 0);
	/* Hold many pages, so that the driver must allocate fresh ones. */
	if (fd >= 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
			   sizeof(rcvbuf));
	if (fd < 0 ||
	    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero)) ||
	    bind(fd, (struct sockaddr *)&sin6, sizeof(sin6))) {
		perror("udpsink");
		return 1;
	}
	printf("port %d\n", port);
	fflush(stdout);
	while (read(0, buf, sizeof(buf)) > 0)
		;
	close(fd);
	return 0;
}

static int tcpsink(int port)
{
	struct sockaddr_in6 sin6 = {
		.sin6_family = AF_INET6,
		.sin6_port = htons(port),
	};
	struct pollfd pfd[2];
	int lsn, one = 1, zero = 0;
	char buf[64];

	lsn = socket(AF_INET6, SOCK_STREAM, 0);
	if (lsn < 0 ||
	    setsockopt(lsn, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    setsockopt(lsn, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero)) ||
	    bind(lsn, (struct sockaddr *)&sin6, sizeof(sin6)) ||
	    listen(lsn, 16)) {
		perror("tcpsink");
		return 1;
	}
	printf("port %d\n", port);
	fflush(stdout);
	pfd[0].fd = 0;
	pfd[0].events = POLLIN;
	pfd[1].fd = lsn;
	pfd[1].events = POLLIN;
	for (;;) {
		if (poll(pfd, 2, -1) < 0)
			continue;
		if (pfd[0].revents) {
			if (read(0, buf, sizeof(buf)) <= 0)
				break;
		}
		/* Accepted connections stay open, unread, until exit. */
		if (pfd[1].revents & POLLIN)
			accept(lsn, NULL, NULL);
	}
	return 0;
}

static int xdp_set(const char *ifname, int on)
{
	struct bpf_insn prog[2] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0,
		  .imm = XDP_PASS },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	struct {
		struct nlmsghdr nh;
		struct ifinfomsg ifi;
		char buf[64];
	} req = {};
	union bpf_attr attr = {};
	char ans[4096], *msg = "";
	struct rtattr *xdp, *a;
	struct nlmsgerr *e;
	int fd = -1, nl, one = 1, err;
	struct nlattr *na;
	ssize_t n;

	if (on) {
		attr.prog_type = BPF_PROG_TYPE_XDP;
		attr.insns = (unsigned long)prog;
		attr.insn_cnt = 2;
		attr.license = (unsigned long)"GPL";
		fd = syscall(__NR_bpf, BPF_PROG_LOAD, &attr, sizeof(attr));
		if (fd < 0) {
			perror("xdp: BPF_PROG_LOAD");
			return 1;
		}
	}
	req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(req.ifi));
	req.nh.nlmsg_type = RTM_SETLINK;
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	req.ifi.ifi_family = AF_UNSPEC;
	req.ifi.ifi_index = if_nametoindex(ifname);
	if (!req.ifi.ifi_index) {
		perror("xdp: if_nametoindex");
		return 1;
	}
	xdp = (struct rtattr *)((char *)&req + NLMSG_ALIGN(req.nh.nlmsg_len));
	xdp->rta_type = IFLA_XDP | NLA_F_NESTED;
	a = RTA_DATA(xdp);
	a->rta_type = IFLA_XDP_FD;
	a->rta_len = RTA_LENGTH(sizeof(int));
	memcpy(RTA_DATA(a), &fd, sizeof(int));
	a = (struct rtattr *)((char *)a + RTA_ALIGN(a->rta_len));
	a->rta_type = IFLA_XDP_FLAGS;
	a->rta_len = RTA_LENGTH(sizeof(__u32));
	*(__u32 *)RTA_DATA(a) = XDP_FLAGS_DRV_MODE;
	xdp->rta_len = RTA_LENGTH(2 * RTA_LENGTH(sizeof(__u32)));
	req.nh.nlmsg_len = NLMSG_ALIGN(req.nh.nlmsg_len) + xdp->rta_len;

	nl = socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);
	if (nl < 0 ||
	    setsockopt(nl, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one)) ||
	    send(nl, &req, req.nh.nlmsg_len, 0) < 0) {
		perror("xdp: netlink");
		return 1;
	}
	n = recv(nl, ans, sizeof(ans), 0);
	if (n < (ssize_t)NLMSG_LENGTH(sizeof(*e))) {
		perror("xdp: netlink answer");
		return 1;
	}
	e = NLMSG_DATA((struct nlmsghdr *)ans);
	err = -e->error;
	/* The extack message follows the request it answers. */
	if (err && (((struct nlmsghdr *)ans)->nlmsg_flags & NLM_F_ACK_TLVS)) {
		na = (struct nlattr *)((char *)e + sizeof(*e) +
				       e->msg.nlmsg_len - NLMSG_HDRLEN);
		while ((char *)na + NLA_HDRLEN <= ans + n && na->nla_len) {
			if ((na->nla_type & NLA_TYPE_MASK) == NLMSGERR_ATTR_MSG)
				msg = (char *)na + NLA_HDRLEN;
			na = (struct nlattr *)((char *)na +
					       NLA_ALIGN(na->nla_len));
		}
	}
	if (err) {
		printf("xdp: %s: %s\n", strerror(err), msg);
		return 1;
	}
	printf("xdp: %s\n", on ? "attached" : "detached");
	return 0;
}

static int say(int port, const char *text)
{
	struct sockaddr_in6 sin6 = {
		.sin6_family = AF_INET6,
		.sin6_port = htons(port),
	};
	int lsn, fd, one = 1, zero = 0;
	size_t n = strlen(text);

	lsn = socket(AF_INET6, SOCK_STREAM, 0);
	if (lsn < 0 ||
	    setsockopt(lsn, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    setsockopt(lsn, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero)) ||
	    bind(lsn, (struct sockaddr *)&sin6, sizeof(sin6)) ||
	    listen(lsn, 1)) {
		perror("say");
		return 1;
	}
	fd = accept(lsn, NULL, NULL);
	close(lsn);
	if (fd < 0 || write(fd, text, n) != (ssize_t)n ||
	    write(fd, "\n", 1) != 1) {
		perror("say");
		return 1;
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_storage ss;
	int nonblock = 0;
	socklen_t len;

	if (argc == 2 && !strcmp(argv[1], "errors"))
		return errors();
	if (argc == 3 && !strcmp(argv[1], "pair"))
		return pair(argv[2]);
	if (argc >= 4 && !strcmp(argv[1], "connect")) {
		if (!strcmp(argv[2], "-b")) {
			nonblock = 1;
			argv++;
			argc--;
		}
		if (argc == 4) {
			len = parse(argv[2], atoi(argv[3]), &ss);
			return hold(&ss, len, nonblock);
		}
	}
	if (argc == 4 && !strcmp(argv[1], "serve"))
		return serve(atoi(argv[2]), strtoull(argv[3], NULL, 0));
	if (argc >= 4 && !strcmp(argv[1], "recv")) {
		int prio = strcmp(argv[2], "-n");

		if (!prio) {
			argv++;
			argc--;
		}
		if (argc == 4) {
			len = parse(argv[2], atoi(argv[3]), &ss);
			return recv_all(&ss, len, prio);
		}
	}
	if (argc == 6 && !strcmp(argv[1], "flood")) {
		len = parse(argv[2], atoi(argv[3]), &ss);
		return flood(&ss, len, atoi(argv[4]), atoi(argv[5]));
	}
	if (argc == 3 && !strcmp(argv[1], "udpsink"))
		return udpsink(atoi(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "tcpsink"))
		return tcpsink(atoi(argv[2]));
	if (argc == 4 && !strcmp(argv[1], "xdp"))
		return xdp_set(argv[2], !strcmp(argv[3], "on"));
	if (argc == 4 && !strcmp(argv[1], "say"))
		return say(atoi(argv[2]), argv[3]);
	fprintf(stderr,
		"usage: rxr_sock errors | pair ADDR | connect [-b] ADDR PORT |\n"
		"       serve PORT BYTES | recv [-n] ADDR PORT |\n"
		"       flood ADDR PORT SECONDS SIZE | udpsink PORT |\n"
		"       tcpsink PORT | xdp IFNAME on|off | say PORT TEXT\n");
	return 2;
}
