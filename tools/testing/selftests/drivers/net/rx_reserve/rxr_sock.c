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
 *   rxr_sock markn N
 *	connect N TCP sockets to a listener on 127.0.0.1 and set
 *	SO_RX_RESERVE on each, print "marked M refused R errno E" (E: the
 *	errno of the last refusal, or 0), close them all and exit 0.
 *   rxr_sock connect [-b | -a] ADDR PORT
 *	connect a priority socket to ADDR PORT (-b: do not wait for the
 *	connection; -a: mark it once connected, as a kernel user marks a
 *	socket it connected), print "port N", hold until stdin closes, then
 *	abort the connection (RST), so that the socket goes at once.
 *   rxr_sock serve PORT BYTES
 *	accept connections on PORT (IPv4 and IPv6); on each, send BYTES of
 *	a fixed pattern and a FIN (no FIN if BYTES is 0), then wait for the
 *	peer to close.  Runs until killed.
 *   rxr_sock recv [-n] [-g] [-p LPORT] ADDR PORT
 *	connect a priority socket (-n: an ordinary one) to ADDR PORT (-p:
 *	from local port LPORT, bound with SO_REUSEADDR), print "port N"
 *	(-g: then wait until stdin closes), read until EOF, print
 *	its /proc/net/rx_reserve line as seen after the first read and at
 *	EOF ("flow_start: LINE", "flow: LINE"), then "bytes N pattern ok|bad".
 *	On SIGUSR1 it prints "rmem N": the bytes its socket's receive and
 *	out-of-order queues hold (SO_MEMINFO), and goes on.
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
 *   rxr_sock badopt [ADDR]
 *	check SO_RX_RESERVE against bad input: option lengths, values and
 *	pointers, getsockopt() buffers, socket types, TCP states (SYN-SENT
 *	towards ADDR, an IPv4 address that does not answer, if given), a
 *	listener, and a caller without CAP_NET_ADMIN; exit 0 if every
 *	refusal has the defined errno and leaves the option as it was.
 *   rxr_sock write FILE TEXT
 *	write TEXT and a newline to FILE in one write(2); print "errno E"
 *	(E: 0 or the errno's name) and, on success, "wrote N".
 *   rxr_sock collide KEYHEX NBUCKETS SADDR DADDR SPORT DPORT
 *	the RSS bucket of the IPv4 TCP frames from SADDR:SPORT to
 *	DADDR:DPORT: the Toeplitz hash over saddr, daddr, sport, dport with
 *	the key KEYHEX (hex bytes, 16 or more, as ethtool -x prints it:
 *	6d:5a:56:..., or without the ':'), masked to NBUCKETS (a power of
 *	two, the indirection table's size).  Print "hash 0xH" and "bucket
 *	B", then "port P": the first destination port P from 20000 to
 *	60999, other than DPORT, whose frames land in the same bucket; exit
 *	1 if there is none.
 *   rxr_sock ethnl [-u] CMD TOKEN...
 *	send one hand-built request to the "ethtool" generic netlink family
 *	(-u: without CAP_NET_ADMIN) and print its answer: a "reply dev NAME
 *	enabled N" line per RX_RESERVE reply, then "errno E", the extack
 *	message as "extack: TEXT" and a missing attribute as "miss_type N".
 *	CMD is the genetlink command; each TOKEN adds to the message:
 *	  T=u8:V T=u16:V T=u32:V T=u64:V  an attribute of type T (T+=...:
 *					  with NLA_F_NESTED set)
 *	  T=str:S  T=raw:S		  S with, or without, its NUL
 *	  T=empty			  an attribute without payload
 *	  T=nest ... end		  a nest (T=flatnest: without
 *					  NLA_F_NESTED)
 *	  pad=N				  N bytes of garbage after the rest
 *	  flags=V  dump  reserved=V	  nlmsg_flags (default REQUEST|ACK),
 *					  NLM_F_DUMP, genlmsghdr.reserved
 *	  len=N				  send only the first N bytes, with
 *					  nlmsg_len N
 */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/bpf.h>
#include <linux/genetlink.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <net/if.h>
#include <poll.h>
#include <linux/capability.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

#ifndef SO_MEMINFO
#define SO_MEMINFO 55
#endif

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

/* CAP_NET_ADMIN in the effective set, on or off (it stays permitted). */
static int set_net_admin(int on)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data))
		return -1;
	if (on)
		data[CAP_NET_ADMIN / 32].effective |=
			1U << (CAP_NET_ADMIN % 32);
	else
		data[CAP_NET_ADMIN / 32].effective &=
			~(1U << (CAP_NET_ADMIN % 32));
	return syscall(SYS_capset, &hdr, data);
}

static int drop_net_admin(void)
{
	return set_net_admin(0);
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

/* The name of errno @e, for the scripts; its number if not listed here. */
static const char *errname(int e)
{
	static char buf[16];

	switch (e) {
	case 0: return "0";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case EACCES: return "EACCES";
	case EFAULT: return "EFAULT";
	case EBUSY: return "EBUSY";
	case ENODEV: return "ENODEV";
	case EINVAL: return "EINVAL";
	case ERANGE: return "ERANGE";
	case ENOPROTOOPT: return "ENOPROTOOPT";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EMSGSIZE: return "EMSGSIZE";
	case EAGAIN: return "EAGAIN";
	}
	snprintf(buf, sizeof(buf), "E%d", e);
	return buf;
}

static int set_rxr_raw(int fd, const void *val, socklen_t len)
{
	return setsockopt(fd, SOL_SOCKET, SO_RX_RESERVE, val, len) ? errno : 0;
}

static int get_rxr_raw(int fd, void *val, socklen_t *len)
{
	return getsockopt(fd, SOL_SOCKET, SO_RX_RESERVE, val, len) ? errno : 0;
}

/* The TCP state of @fd (TCP_ESTABLISHED...), or -1. */
static int tcp_state(int fd)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len))
		return -1;
	return ti.tcpi_state;
}

/* Wait, 2 s at most, for @fd to reach TCP state @want; the state. */
static int wait_state(int fd, int want)
{
	int i, st = -1;

	for (i = 0; i < 200; i++) {
		st = tcp_state(fd);
		if (st == want)
			break;
		usleep(10000);
	}
	return st;
}

/* A TCP socket in state @want, as @what: SO_RX_RESERVE on and off. */
static void state_case(const char *what, int fd, int want)
{
	char buf[128];

	snprintf(buf, sizeof(buf), "%s: in that TCP state", what);
	check_val(buf, wait_state(fd, want), want);
	snprintf(buf, sizeof(buf), "%s: SO_RX_RESERVE 1", what);
	check(buf, set_rxr(fd, 1), 0);
	snprintf(buf, sizeof(buf), "%s: getsockopt", what);
	check_val(buf, get_rxr(fd), 1);
	snprintf(buf, sizeof(buf), "%s: SO_RX_RESERVE 0", what);
	check(buf, set_rxr(fd, 0), 0);
	snprintf(buf, sizeof(buf), "%s: getsockopt after 0", what);
	check_val(buf, get_rxr(fd), 0);
}

/* A listening IPv4 TCP socket on loopback; its address in @sin. */
static int lo_listen(struct sockaddr_in *sin)
{
	socklen_t len = sizeof(*sin);
	int fd;

	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)sin, len) ||
	    listen(fd, 8) || getsockname(fd, (struct sockaddr *)sin, &len)) {
		perror("badopt: listen");
		exit(1);
	}
	return fd;
}

static int lo_connect(const struct sockaddr_in *sin)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0 || connect(fd, (const struct sockaddr *)sin, sizeof(*sin))) {
		perror("badopt: connect");
		exit(1);
	}
	return fd;
}

static void badopt_len(void)
{
	socklen_t len, lens[] = { 0, 1, 2, 3 };
	unsigned char g[16], want[sizeof(int)];
	int tcp, v, pair[2], one = 1, ok;
	char what[96];
	void *page;
	size_t i;

	tcp = socket(AF_INET, SOCK_STREAM, 0);
	page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (tcp < 0 || page == MAP_FAILED) {
		perror("badopt");
		exit(1);
	}

	/* setsockopt(): an int, at least. */
	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		v = 1;
		snprintf(what, sizeof(what), "setsockopt optlen %u", lens[i]);
		check(what, set_rxr_raw(tcp, &v, lens[i]), EINVAL);
		snprintf(what, sizeof(what),
			 "getsockopt after setsockopt optlen %u", lens[i]);
		check_val(what, get_rxr(tcp), 0);
	}
	check("setsockopt optval NULL", set_rxr_raw(tcp, NULL, sizeof(int)),
	      EFAULT);
	check("setsockopt optval unreadable",
	      set_rxr_raw(tcp, page, sizeof(int)), EFAULT);
	check_val("getsockopt after the EFAULTs", get_rxr(tcp), 0);
	/* Longer: the first int counts, the rest is ignored. */
	pair[0] = 1;
	pair[1] = 0;
	check("setsockopt optlen 8 {1, 0}", set_rxr_raw(tcp, pair, 8), 0);
	check_val("getsockopt after optlen 8 {1, 0}", get_rxr(tcp), 1);
	pair[0] = 0;
	pair[1] = 1;
	check("setsockopt optlen 8 {0, 1}", set_rxr_raw(tcp, pair, 8), 0);
	check_val("getsockopt after optlen 8 {0, 1}", get_rxr(tcp), 0);

	/* Values: a boolean, as every SOL_SOCKET flag: 0 off, else on. */
	{
		int vals[] = { -1, 2, 255, 256, INT_MAX, INT_MIN };

		for (i = 0; i < ARRAY_SIZE(vals); i++) {
			snprintf(what, sizeof(what), "SO_RX_RESERVE %d",
				 vals[i]);
			check(what, set_rxr_raw(tcp, &vals[i], sizeof(int)), 0);
			snprintf(what, sizeof(what),
				 "getsockopt after %d: 1, not the value",
				 vals[i]);
			check_val(what, get_rxr(tcp), 1);
			check("SO_RX_RESERVE 0", set_rxr(tcp, 0), 0);
			check_val("getsockopt after 0", get_rxr(tcp), 0);
		}
	}

	/* getsockopt(): a short buffer gets the first bytes, no more. */
	check("SO_RX_RESERVE 1", set_rxr(tcp, 1), 0);
	memcpy(want, &one, sizeof(want));
	for (len = 0; len < sizeof(int); len++) {
		socklen_t got = len;

		memset(g, 0xaa, sizeof(g));
		snprintf(what, sizeof(what), "getsockopt optlen %u", len);
		check(what, get_rxr_raw(tcp, g, &got), 0);
		snprintf(what, sizeof(what),
			 "getsockopt optlen %u: optlen unchanged", len);
		check_val(what, got, len);
		ok = !memcmp(g, want, len);
		for (i = len; i < sizeof(g); i++)
			ok &= g[i] == 0xaa;
		snprintf(what, sizeof(what),
			 "getsockopt optlen %u: %u bytes of the value written, no more",
			 len, len);
		check_val(what, ok, 1);
	}
	len = sizeof(g);
	memset(g, 0xaa, sizeof(g));
	check("getsockopt optlen 16", get_rxr_raw(tcp, g, &len), 0);
	check_val("getsockopt optlen 16: optlen 4", len, sizeof(int));
	check_val("getsockopt optlen 16: the value", *(int *)g, 1);
	check_val("getsockopt optlen 16: nothing past it", g[sizeof(int)],
		  0xaa);
	len = -1;
	check("getsockopt optlen -1", get_rxr_raw(tcp, g, &len), EINVAL);
	len = sizeof(int);
	check("getsockopt optval NULL", get_rxr_raw(tcp, NULL, &len), EFAULT);
	check("getsockopt optval unwritable", get_rxr_raw(tcp, page, &len),
	      EFAULT);
	check("getsockopt optlen NULL", get_rxr_raw(tcp, g, NULL), EFAULT);
	check("getsockopt optlen unreadable", get_rxr_raw(tcp, g, page),
	      EFAULT);
	check_val("the option is still on after all that", get_rxr(tcp), 1);
	check("SO_RX_RESERVE 0", set_rxr(tcp, 0), 0);
	close(tcp);
	munmap(page, 4096);
}

static void badopt_types(void)
{
	static const struct {
		const char *what;
		int family, type, protocol;
	} types[] = {
		{ "UDP", AF_INET, SOCK_DGRAM, 0 },
		{ "UDPv6", AF_INET6, SOCK_DGRAM, 0 },
		{ "raw IPPROTO_TCP", AF_INET, SOCK_RAW, IPPROTO_TCP },
		{ "raw IPv6 IPPROTO_TCP", AF_INET6, SOCK_RAW, IPPROTO_TCP },
		{ "unix stream", AF_UNIX, SOCK_STREAM, 0 },
		{ "unix dgram", AF_UNIX, SOCK_DGRAM, 0 },
		{ "unix seqpacket", AF_UNIX, SOCK_SEQPACKET, 0 },
		{ "packet", AF_PACKET, SOCK_RAW, 0 },
		{ "netlink", AF_NETLINK, SOCK_RAW, NETLINK_ROUTE },
	};
	char what[96];
	size_t i;
	int fd;

	for (i = 0; i < ARRAY_SIZE(types); i++) {
		fd = socket(types[i].family, types[i].type, types[i].protocol);
		if (fd < 0) {
			printf("# %s: no such socket (%s), not tested\n",
			       types[i].what, strerror(errno));
			continue;
		}
		snprintf(what, sizeof(what), "SO_RX_RESERVE 1 on %s",
			 types[i].what);
		check(what, set_rxr(fd, 1), EOPNOTSUPP);
		snprintf(what, sizeof(what), "SO_RX_RESERVE 0 on %s",
			 types[i].what);
		check(what, set_rxr(fd, 0), EOPNOTSUPP);
		snprintf(what, sizeof(what), "getsockopt on %s",
			 types[i].what);
		check_val(what, get_rxr(fd), 0);
		close(fd);
	}
}

static void badopt_states(const char *unreach)
{
	struct sockaddr_in sin, closed;
	int lsn, cli, srv, fd, err;
	socklen_t len;

	fd = socket(AF_INET, SOCK_STREAM, 0);
	state_case("unconnected", fd, TCP_CLOSE);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin))) {
		perror("badopt: bind");
		exit(1);
	}
	state_case("bound", fd, TCP_CLOSE);
	/* Its port, closed once the socket goes: a connect there is reset. */
	len = sizeof(closed);
	getsockname(fd, (struct sockaddr *)&closed, &len);
	close(fd);

	lsn = lo_listen(&sin);
	check("SO_RX_RESERVE 1 on a listener", set_rxr(lsn, 1), EINVAL);
	check_val("getsockopt on the listener", get_rxr(lsn), 0);
	check("SO_RX_RESERVE 0 on a listener", set_rxr(lsn, 0), 0);
	check_val("getsockopt on the listener after 0", get_rxr(lsn), 0);

	cli = lo_connect(&sin);
	srv = accept(lsn, NULL, NULL);
	state_case("established (client)", cli, TCP_ESTABLISHED);
	state_case("established (accepted)", srv, TCP_ESTABLISHED);
	/* The accepted side sends its FIN: CLOSE-WAIT here, FIN-WAIT-2
	 * there.
	 */
	shutdown(srv, SHUT_WR);
	state_case("close-wait", cli, TCP_CLOSE_WAIT);
	state_case("fin-wait-2", srv, TCP_FIN_WAIT2);
	/* Marked while connected, then the connection closes under it. */
	check("marked before the close", set_rxr(cli, 1), 0);
	close(srv);
	shutdown(cli, SHUT_WR);
	check_val("closed under the mark: state", wait_state(cli, TCP_CLOSE),
		  TCP_CLOSE);
	check_val("closed under the mark: getsockopt", get_rxr(cli), 1);
	check("closed under the mark: SO_RX_RESERVE 0", set_rxr(cli, 0), 0);
	close(cli);

	fd = socket(AF_INET, SOCK_STREAM, 0);
	err = connect(fd, (struct sockaddr *)&closed, sizeof(closed)) ?
	      errno : 0;
	check("connect to a closed port", err, ECONNREFUSED);
	state_case("reset", fd, TCP_CLOSE);
	close(fd);

	if (unreach) {
		struct sockaddr_storage ss;

		len = parse(unreach, 9, &ss);
		fd = socket(ss.ss_family, SOCK_STREAM, 0);
		fcntl(fd, F_SETFL, O_NONBLOCK);
		err = connect(fd, (struct sockaddr *)&ss, len) ? errno : 0;
		check("connect to an address that does not answer", err,
		      EINPROGRESS);
		state_case("syn-sent", fd, TCP_SYN_SENT);
		close(fd);
	}

	/*
	 * Marked, then listen(): a listener is no priority flow, so either
	 * listen() refuses or the mark goes; an accepted socket never
	 * inherits it.
	 */
	fd = socket(AF_INET, SOCK_STREAM, 0);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	len = sizeof(sin);
	check("SO_RX_RESERVE 1 before listen()", set_rxr(fd, 1), 0);
	if (bind(fd, (struct sockaddr *)&sin, len) ||
	    getsockname(fd, (struct sockaddr *)&sin, &len)) {
		perror("badopt: bind");
		exit(1);
	}
	if (listen(fd, 8)) {
		printf("PASS: listen() on a priority socket refused (%s)\n",
		       strerror(errno));
	} else {
		char line[256] = "";
		FILE *f = fopen("/proc/net/rx_reserve", "r");

		if (f && fgets(line, sizeof(line), f))
			printf("# with a marked listener: %s", line);
		if (f)
			fclose(f);
		check_val("listen() on a priority socket: no priority flow",
			  get_rxr(fd), 0);
		cli = lo_connect(&sin);
		srv = accept(fd, NULL, NULL);
		check_val("accepted from a marked listener: no priority flow",
			  get_rxr(srv), 0);
		close(srv);
		close(cli);
	}
	close(fd);
	close(lsn);
}

static void badopt_unpriv(void)
{
	struct sockaddr_in sin;
	int tcp, marked, udp, lsn, v = 1;

	tcp = socket(AF_INET, SOCK_STREAM, 0);
	marked = socket(AF_INET6, SOCK_STREAM, 0);
	udp = socket(AF_INET, SOCK_DGRAM, 0);
	lsn = lo_listen(&sin);
	if (tcp < 0 || marked < 0 || udp < 0) {
		perror("badopt: socket");
		exit(1);
	}
	check("SO_RX_RESERVE 1 with CAP_NET_ADMIN", set_rxr(marked, 1), 0);
	if (drop_net_admin()) {
		perror("capset");
		exit(1);
	}
	check("no CAP_NET_ADMIN: SO_RX_RESERVE 1", set_rxr(tcp, 1), EPERM);
	check_val("no CAP_NET_ADMIN: getsockopt after 1", get_rxr(tcp), 0);
	check("no CAP_NET_ADMIN: SO_RX_RESERVE 0 on a priority socket",
	      set_rxr(marked, 0), EPERM);
	check_val("no CAP_NET_ADMIN: it stays a priority socket",
		  get_rxr(marked), 1);
	check("no CAP_NET_ADMIN: SO_RX_RESERVE 0 on another socket",
	      set_rxr(tcp, 0), EPERM);
	/* The checks come in order: length, socket type, then privilege. */
	check("no CAP_NET_ADMIN: optlen 2", set_rxr_raw(tcp, &v, 2), EINVAL);
	check("no CAP_NET_ADMIN: UDP", set_rxr(udp, 1), EOPNOTSUPP);
	check("no CAP_NET_ADMIN: a listener", set_rxr(lsn, 1), EPERM);
	if (set_net_admin(1)) {
		perror("capset");
		exit(1);
	}
	check("CAP_NET_ADMIN back: SO_RX_RESERVE 0", set_rxr(marked, 0), 0);
	check_val("CAP_NET_ADMIN back: getsockopt", get_rxr(marked), 0);
	close(tcp);
	close(marked);
	close(udp);
	close(lsn);
}

static int badopt(const char *unreach)
{
	badopt_len();
	badopt_types();
	badopt_states(unreach);
	badopt_unpriv();
	return failed;
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
static int hold(struct sockaddr_storage *ss, socklen_t len, int nonblock,
		int after)
{
	struct linger abort_linger = { .l_onoff = 1, .l_linger = 0 };
	char buf[64];
	int fd, err;

	fd = socket(ss->ss_family, SOCK_STREAM, 0);
	if (fd < 0) {
		perror("socket");
		return 1;
	}
	err = after ? 0 : set_rxr(fd, 1);
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
	err = after ? set_rxr(fd, 1) : 0;
	if (err) {
		fprintf(stderr, "rxr_sock: SO_RX_RESERVE: %s\n", strerror(err));
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
	return hold(&ss, len, 0, 0);
}

static int markn(int n)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	int lsn, fd[256], i, err, marked = 0, refused = 0, last = 0;
	socklen_t len = sizeof(sin);

	if (n < 1 || n > 256) {
		fprintf(stderr, "N from 1 to 256\n");
		return 1;
	}
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lsn = socket(AF_INET, SOCK_STREAM, 0);
	if (lsn < 0 || bind(lsn, (struct sockaddr *)&sin, len) ||
	    listen(lsn, n) || getsockname(lsn, (struct sockaddr *)&sin, &len)) {
		perror("listen");
		return 1;
	}
	for (i = 0; i < n; i++) {
		fd[i] = socket(AF_INET, SOCK_STREAM, 0);
		if (fd[i] < 0 ||
		    connect(fd[i], (struct sockaddr *)&sin, sizeof(sin))) {
			perror("connect");
			return 1;
		}
		err = set_rxr(fd[i], 1);
		if (err) {
			refused++;
			last = err;
		} else {
			marked++;
		}
	}
	printf("marked %d refused %d errno %s\n", marked, refused,
	       errname(last));
	for (i = 0; i < n; i++)
		close(fd[i]);
	close(lsn);
	return 0;
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

/*
 * Copy the /proc/net/rx_reserve line of the flow whose local port is
 * @port into @line; keep @line as it was if there is none.
 */
static void own_flow(int port, char *line, size_t size)
{
	char buf[512], key[32];
	FILE *f;

	f = fopen("/proc/net/rx_reserve", "r");
	if (!f)
		return;
	snprintf(key, sizeof(key), ":%d remote ", port);
	while (fgets(buf, sizeof(buf), f))
		if (!strncmp(buf, "flow ", 5) && strstr(buf, key))
			snprintf(line, size, "%s", buf);
	fclose(f);
}

static void print_rmem(int fd)
{
	__u32 mem[SK_MEMINFO_VARS] = {};
	socklen_t len = sizeof(mem);

	if (getsockopt(fd, SOL_SOCKET, SO_MEMINFO, mem, &len))
		printf("rmem error %s\n", strerror(errno));
	else
		printf("rmem %u\n", mem[SK_MEMINFO_RMEM_ALLOC]);
	fflush(stdout);
}

/* Bind @fd to local port @port of any address, with SO_REUSEADDR. */
static int bind_port(int fd, int family, int port)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int one = 1;

	len = parse(family == AF_INET ? "0.0.0.0" : "::", port, &ss);
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)))
		return -1;
	return bind(fd, (struct sockaddr *)&ss, len);
}

static int recv_all(struct sockaddr_storage *ss, socklen_t len, int prio,
		    int gate, int lport)
{
	struct signalfd_siginfo si;
	unsigned long long total = 0;
	struct pollfd pfd[2];
	sigset_t usr1;
	unsigned char buf[16384];
	int fd, err, port, bad = 0;
	char start[512] = "", flow[512] = "";
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
	if (lport && bind_port(fd, ss->ss_family, lport)) {
		perror("bind");
		return 1;
	}
	if (connect(fd, (struct sockaddr *)ss, len)) {
		perror("connect");
		return 1;
	}
	/* SIGUSR1 asks for the socket's receive memory. */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	pfd[0].fd = fd;
	pfd[0].events = POLLIN;
	pfd[1].fd = signalfd(-1, &usr1, SFD_CLOEXEC);
	pfd[1].events = POLLIN;
	port = local_port(fd);
	printf("port %d\n", port);
	fflush(stdout);
	/* The peer's data waits in the window until the gate opens. */
	while (gate && read(0, buf, sizeof(buf)) > 0)
		;
	for (;;) {
		if (poll(pfd, 2, -1) < 0 && errno != EINTR) {
			n = -1;
			break;
		}
		if (pfd[1].revents & POLLIN &&
		    read(pfd[1].fd, &si, sizeof(si)) == sizeof(si))
			print_rmem(fd);
		if (!(pfd[0].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		n = read(fd, buf, sizeof(buf));
		if (n <= 0)
			break;
		/* The flow as registered, from inside: a sampler outside
		 * may miss a short transfer.
		 */
		if (prio && !total)
			own_flow(port, start, sizeof(start));
		for (i = 0; i < n; i++)
			bad |= buf[i] != pattern(total + i);
		total += n;
	}
	if (prio)
		own_flow(port, flow, sizeof(flow));
	if (start[0])
		printf("flow_start: %s", start);
	if (flow[0])
		printf("flow: %s", flow);
	printf("bytes %llu pattern %s\n", total, bad ? "bad" : "ok");
	if (pfd[1].fd >= 0)
		close(pfd[1].fd);
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

static int write_file(const char *path, const char *text)
{
	char buf[256];
	ssize_t n;
	int fd;

	n = snprintf(buf, sizeof(buf), "%s\n", text);
	if (n >= (ssize_t)sizeof(buf)) {
		fprintf(stderr, "rxr_sock: text too long\n");
		return 2;
	}
	fd = open(path, O_WRONLY);
	if (fd < 0) {
		printf("errno %s\n", errname(errno));
		return 1;
	}
	n = write(fd, buf, n);
	if (n < 0) {
		printf("errno %s\n", errname(errno));
		close(fd);
		return 1;
	}
	printf("errno 0\nwrote %zd\n", n);
	close(fd);
	return 0;
}

/* Whether @na, with @rem bytes left from it, is a whole attribute. */
static int attr_ok(const struct nlattr *na, long rem)
{
	return rem >= NLA_HDRLEN && na->nla_len >= NLA_HDRLEN &&
	       na->nla_len <= rem;
}

static const struct nlattr *attr_next(const struct nlattr *na)
{
	return (const struct nlattr *)((const char *)na +
				       NLA_ALIGN(na->nla_len));
}

/* A netlink request built by hand. */
struct nlreq {
	union {				/* aligned for netlink */
		char buf[4096];
		struct nlmsghdr nh;
	};
	size_t len;
	size_t nest[8];
	int depth;
};

static struct nlattr *nlreq_put(struct nlreq *r, unsigned int type,
				const void *data, size_t len)
{
	struct nlattr *na = (struct nlattr *)(r->buf + r->len);

	if (r->len + NLA_ALIGN(NLA_HDRLEN + len) > sizeof(r->buf)) {
		fprintf(stderr, "rxr_sock: request too long\n");
		exit(2);
	}
	na->nla_type = type;
	na->nla_len = NLA_HDRLEN + len;
	if (len)
		memcpy((char *)na + NLA_HDRLEN, data, len);
	r->len += NLA_ALIGN(na->nla_len);
	return na;
}

/* Ask the generic netlink controller for family @name's id. */
static int genl_family(int nl, const char *name)
{
	struct {
		struct nlmsghdr nh;
		struct genlmsghdr gh;
		char buf[64];
	} req = {};
	union {
		char b[4096];
		struct nlmsghdr nh;
	} ans_u;
	char *ans = ans_u.b;
	struct nlmsghdr *nh = &ans_u.nh;
	struct nlattr *na;
	ssize_t n;
	int rem;

	req.nh.nlmsg_type = GENL_ID_CTRL;
	req.nh.nlmsg_flags = NLM_F_REQUEST;
	req.gh.cmd = CTRL_CMD_GETFAMILY;
	req.gh.version = 1;
	na = (struct nlattr *)req.buf;
	na->nla_type = CTRL_ATTR_FAMILY_NAME;
	na->nla_len = NLA_HDRLEN + strlen(name) + 1;
	memcpy((char *)na + NLA_HDRLEN, name, strlen(name) + 1);
	req.nh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN) + NLA_ALIGN(na->nla_len);
	if (send(nl, &req, req.nh.nlmsg_len, 0) < 0)
		return -1;
	n = recv(nl, ans, sizeof(ans_u), 0);
	if (n < (ssize_t)NLMSG_LENGTH(GENL_HDRLEN) ||
	    nh->nlmsg_type != GENL_ID_CTRL)
		return -1;
	na = (struct nlattr *)((char *)NLMSG_DATA(nh) + GENL_HDRLEN);
	rem = nh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
	for (; rem >= NLA_HDRLEN && na->nla_len >= NLA_HDRLEN &&
	     na->nla_len <= rem;
	     rem -= NLA_ALIGN(na->nla_len),
	     na = (struct nlattr *)((char *)na + NLA_ALIGN(na->nla_len)))
		if ((na->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_FAMILY_ID)
			return *(__u16 *)((char *)na + NLA_HDRLEN);
	return -1;
}

/* Print an RX_RESERVE reply: the device (header) and _ENABLED. */
static void ethnl_print_reply(const struct nlmsghdr *nh)
{
	const struct nlattr *na, *h;
	const char *dev = "?";
	int enabled = -1, rem, hrem;

	na = (const struct nlattr *)((const char *)NLMSG_DATA(nh) +
				     GENL_HDRLEN);
	rem = nh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
	for (; rem >= NLA_HDRLEN && na->nla_len >= NLA_HDRLEN &&
	     na->nla_len <= rem;
	     rem -= NLA_ALIGN(na->nla_len),
	     na = (const struct nlattr *)((const char *)na +
					  NLA_ALIGN(na->nla_len))) {
		switch (na->nla_type & NLA_TYPE_MASK) {
		case 1:		/* ETHTOOL_A_RX_RESERVE_HEADER */
			h = (const struct nlattr *)((const char *)na +
						    NLA_HDRLEN);
			hrem = na->nla_len - NLA_HDRLEN;
			for (; attr_ok(h, hrem);
			     hrem -= NLA_ALIGN(h->nla_len), h = attr_next(h))
				/* ETHTOOL_A_HEADER_DEV_NAME */
				if ((h->nla_type & NLA_TYPE_MASK) == 2)
					dev = (const char *)h + NLA_HDRLEN;
			break;
		case 2:		/* ETHTOOL_A_RX_RESERVE_ENABLED */
			enabled = *((const __u8 *)na + NLA_HDRLEN);
			break;
		}
	}
	printf("reply dev %s enabled %d\n", dev, enabled);
}

/* Print the error and extack of an NLMSG_ERROR or NLMSG_DONE; the errno. */
static int ethnl_print_err(const struct nlmsghdr *nh)
{
	const struct nlmsgerr *e = NLMSG_DATA(nh);
	const struct nlattr *na;
	const char *end = (const char *)nh + nh->nlmsg_len;
	int err;

	if (nh->nlmsg_type == NLMSG_DONE) {
		err = -*(const int *)NLMSG_DATA(nh);
		na = (const struct nlattr *)((const char *)NLMSG_DATA(nh) +
					     NLMSG_ALIGN(sizeof(int)));
	} else {
		err = -e->error;
		/* The request follows, whole unless capped. */
		na = (const struct nlattr *)((const char *)(e + 1) +
			((nh->nlmsg_flags & NLM_F_CAPPED) ? 0 :
			 NLMSG_ALIGN(e->msg.nlmsg_len) - NLMSG_HDRLEN));
	}
	printf("errno %s\n", errname(err));
	if (!(nh->nlmsg_flags & NLM_F_ACK_TLVS))
		return err;
	for (; attr_ok(na, end - (const char *)na); na = attr_next(na)) {
		switch (na->nla_type & NLA_TYPE_MASK) {
		case NLMSGERR_ATTR_MSG:
			printf("extack: %.*s\n", (int)(na->nla_len -
							NLA_HDRLEN - 1),
			       (const char *)na + NLA_HDRLEN);
			break;
		case NLMSGERR_ATTR_MISS_TYPE:
			printf("miss_type %u\n",
			       *(const __u32 *)((const char *)na + NLA_HDRLEN));
			break;
		case NLMSGERR_ATTR_OFFS:
			printf("bad_attr_offset %u\n",
			       *(const __u32 *)((const char *)na + NLA_HDRLEN));
			break;
		}
	}
	return err;
}

static void ethnl_token(struct nlreq *r, const char *tok, size_t *sendlen)
{
	struct nlmsghdr *nh = (struct nlmsghdr *)r->buf;
	struct genlmsghdr *gh = NLMSG_DATA(nh);
	const char *kind, *val;
	unsigned long long v;
	unsigned int type;
	char *end;
	__u16 u16;
	__u32 u32;
	__u8 u8;

	if (!strcmp(tok, "end")) {
		struct nlattr *na;

		if (!r->depth) {
			fprintf(stderr, "rxr_sock: end without a nest\n");
			exit(2);
		}
		na = (struct nlattr *)(r->buf + r->nest[--r->depth]);
		na->nla_len = r->len - r->nest[r->depth];
		return;
	}
	if (!strcmp(tok, "dump")) {
		nh->nlmsg_flags |= NLM_F_DUMP;
		return;
	}
	if (!strncmp(tok, "flags=", 6)) {
		nh->nlmsg_flags = strtoul(tok + 6, NULL, 0);
		return;
	}
	if (!strncmp(tok, "reserved=", 9)) {
		gh->reserved = strtoul(tok + 9, NULL, 0);
		return;
	}
	if (!strncmp(tok, "len=", 4)) {
		*sendlen = strtoul(tok + 4, NULL, 0);
		return;
	}
	if (!strncmp(tok, "pad=", 4)) {
		v = strtoul(tok + 4, NULL, 0);
		if (r->len + v > sizeof(r->buf))
			exit(2);
		memset(r->buf + r->len, 0xff, v);
		r->len += v;
		return;
	}
	type = strtoul(tok, &end, 0);
	if (*end == '+') {
		type |= NLA_F_NESTED;
		end++;
	}
	if (*end != '=' || type > 0xffff) {
		fprintf(stderr, "rxr_sock: bad token %s\n", tok);
		exit(2);
	}
	kind = end + 1;
	val = strchr(kind, ':');
	val = val ? val + 1 : "";
	v = strtoull(val, NULL, 0);
	if (!strcmp(kind, "nest") || !strcmp(kind, "flatnest")) {
		if (r->depth == (int)ARRAY_SIZE(r->nest)) {
			fprintf(stderr, "rxr_sock: nests too deep\n");
			exit(2);
		}
		r->nest[r->depth++] = r->len;
		nlreq_put(r, type | (kind[0] == 'n' ? NLA_F_NESTED : 0),
			  NULL, 0);
	} else if (!strcmp(kind, "empty")) {
		nlreq_put(r, type, NULL, 0);
	} else if (!strncmp(kind, "u8:", 3)) {
		u8 = v;
		nlreq_put(r, type, &u8, sizeof(u8));
	} else if (!strncmp(kind, "u16:", 4)) {
		u16 = v;
		nlreq_put(r, type, &u16, sizeof(u16));
	} else if (!strncmp(kind, "u32:", 4)) {
		u32 = v;
		nlreq_put(r, type, &u32, sizeof(u32));
	} else if (!strncmp(kind, "u64:", 4)) {
		nlreq_put(r, type, &v, sizeof(v));
	} else if (!strncmp(kind, "str:", 4)) {
		nlreq_put(r, type, val, strlen(val) + 1);
	} else if (!strncmp(kind, "raw:", 4)) {
		nlreq_put(r, type, val, strlen(val));
	} else {
		fprintf(stderr, "rxr_sock: bad token %s\n", tok);
		exit(2);
	}
}

static int ethnl(int argc, char **argv)
{
	struct timeval tv = { .tv_sec = 5 };
	static struct nlreq r;
	struct nlmsghdr *nh = (struct nlmsghdr *)r.buf;
	static union {
		char b[65536];
		struct nlmsghdr nh;
	} ans_u;
	char *ans = ans_u.b;
	int nl, fam, one = 1, err = -1, i;
	struct genlmsghdr *gh;
	size_t sendlen = 0;
	ssize_t n;

	if (argc > 0 && !strcmp(argv[0], "-u")) {
		if (drop_net_admin()) {
			perror("capset");
			return 2;
		}
		argc--;
		argv++;
	}
	if (argc < 1)
		return 2;
	nl = socket(AF_NETLINK, SOCK_RAW, NETLINK_GENERIC);
	if (nl < 0 ||
	    setsockopt(nl, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one)) ||
	    setsockopt(nl, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one)) ||
	    setsockopt(nl, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv))) {
		perror("rxr_sock: netlink");
		return 2;
	}
	fam = genl_family(nl, "ethtool");
	if (fam < 0) {
		fprintf(stderr, "rxr_sock: no ethtool genetlink family\n");
		return 2;
	}

	r.len = NLMSG_LENGTH(GENL_HDRLEN);
	nh->nlmsg_type = fam;
	nh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nh->nlmsg_seq = 1;
	gh = NLMSG_DATA(nh);
	gh->cmd = strtoul(argv[0], NULL, 0);
	gh->version = 1;
	for (i = 1; i < argc; i++)
		ethnl_token(&r, argv[i], &sendlen);
	while (r.depth)
		ethnl_token(&r, "end", &sendlen);
	if (!sendlen)
		sendlen = r.len;
	nh->nlmsg_len = sendlen;
	if (send(nl, r.buf, sendlen, 0) < 0) {
		printf("errno %s\nsend failed\n", errname(errno));
		return 1;
	}

	/* Replies, until the ack, an error or the end of a dump. */
	while (err < 0) {
		n = recv(nl, ans, sizeof(ans_u), 0);
		if (n < 0) {
			printf("errno %s\nno answer\n", errname(errno));
			return 1;
		}
		for (nh = (struct nlmsghdr *)ans; NLMSG_OK(nh, n);
		     nh = NLMSG_NEXT(nh, n)) {
			if (nh->nlmsg_type == NLMSG_ERROR ||
			    nh->nlmsg_type == NLMSG_DONE) {
				err = ethnl_print_err(nh);
				break;
			}
			if (nh->nlmsg_type == fam)
				ethnl_print_reply(nh);
		}
	}
	close(nl);
	return err != 0;
}

/* The value of hex digit @c, or -1. */
static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * Parse an RSS key, hex bytes with or without ':' between them, into @key;
 * its length in bytes, or -1.
 */
static int parse_key(const char *s, unsigned char *key, int size)
{
	int n = 0, hi, lo;

	while (*s) {
		hi = hexval(s[0]);
		lo = hi < 0 ? -1 : hexval(s[1]);
		if (lo < 0 || n == size)
			return -1;
		key[n++] = hi << 4 | lo;
		s += 2;
		if (*s == ':' && s[1])
			s++;
	}
	return n;
}

/* The Toeplitz hash of the @n bytes at @in; @key has @n + 4 bytes at least. */
static __u32 toeplitz(const unsigned char *key, const unsigned char *in,
		      size_t n)
{
	__u32 hash = 0, win;
	size_t i;
	int b;

	win = (__u32)key[0] << 24 | key[1] << 16 | key[2] << 8 | key[3];
	for (i = 0; i < n; i++) {
		for (b = 7; b >= 0; b--) {
			if (in[i] & (1 << b))
				hash ^= win;
			/* Slide the key's 32-bit window on by one bit. */
			win = win << 1 | ((key[i + 4] >> b) & 1);
		}
	}
	return hash;
}

/*
 * The RSS hash of an IPv4 TCP frame from @saddr:@sport to @daddr:@dport,
 * over saddr, daddr, sport and dport in network byte order, as Microsoft's
 * RSS specification defines it.
 */
static __u32 rss_hash(const unsigned char *key, const struct in_addr *saddr,
		      const struct in_addr *daddr, int sport, int dport)
{
	unsigned char in[12];
	__u16 port;

	memcpy(in, saddr, 4);
	memcpy(in + 4, daddr, 4);
	port = htons(sport);
	memcpy(in + 8, &port, 2);
	port = htons(dport);
	memcpy(in + 10, &port, 2);
	return toeplitz(key, in, sizeof(in));
}

/* A TCP or UDP port number in @s, or -1. */
static int parse_port(const char *s)
{
	char *end;
	long v;

	v = strtol(s, &end, 10);
	if (end == s || *end || v < 1 || v > 65535)
		return -1;
	return v;
}

/* collide KEYHEX NBUCKETS SADDR DADDR SPORT DPORT */
static int collide(char **argv)
{
	struct in_addr saddr, daddr;
	unsigned char key[256];
	int keylen, sport, dport, p;
	unsigned long nb;
	__u32 hash, mask;
	char *end;

	keylen = parse_key(argv[0], key, sizeof(key));
	if (keylen < 16) {
		fprintf(stderr, "rxr_sock: bad key %s (16 bytes or more)\n",
			argv[0]);
		return 2;
	}
	nb = strtoul(argv[1], &end, 10);
	if (end == argv[1] || *end || !nb || nb > 65536 || nb & (nb - 1)) {
		fprintf(stderr, "rxr_sock: bad table size %s\n", argv[1]);
		return 2;
	}
	if (inet_pton(AF_INET, argv[2], &saddr) != 1 ||
	    inet_pton(AF_INET, argv[3], &daddr) != 1) {
		fprintf(stderr, "rxr_sock: bad IPv4 address %s or %s\n",
			argv[2], argv[3]);
		return 2;
	}
	sport = parse_port(argv[4]);
	dport = parse_port(argv[5]);
	if (sport < 0 || dport < 0) {
		fprintf(stderr, "rxr_sock: bad port %s or %s\n", argv[4],
			argv[5]);
		return 2;
	}
	mask = nb - 1;
	hash = rss_hash(key, &saddr, &daddr, sport, dport);
	printf("hash 0x%08x\nbucket %u\n", hash, hash & mask);
	for (p = 20000; p <= 60999; p++) {
		if (p == dport ||
		    ((rss_hash(key, &saddr, &daddr, sport, p) ^ hash) & mask))
			continue;
		printf("port %d\n", p);
		return 0;
	}
	fprintf(stderr, "rxr_sock: no port from 20000 to 60999 in bucket %u\n",
		hash & mask);
	return 1;
}

int main(int argc, char **argv)
{
	struct sockaddr_storage ss;
	int nonblock = 0, after = 0;
	socklen_t len;

	if (argc == 2 && !strcmp(argv[1], "errors"))
		return errors();
	if (argc == 3 && !strcmp(argv[1], "markn"))
		return markn(atoi(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "pair"))
		return pair(argv[2]);
	if (argc >= 4 && !strcmp(argv[1], "connect")) {
		if (!strcmp(argv[2], "-b") || !strcmp(argv[2], "-a")) {
			nonblock = argv[2][1] == 'b';
			after = argv[2][1] == 'a';
			argv++;
			argc--;
		}
		if (argc == 4) {
			len = parse(argv[2], atoi(argv[3]), &ss);
			return hold(&ss, len, nonblock, after);
		}
	}
	if (argc == 4 && !strcmp(argv[1], "serve"))
		return serve(atoi(argv[2]), strtoull(argv[3], NULL, 0));
	if (argc >= 4 && !strcmp(argv[1], "recv")) {
		int prio = 1, gate = 0, lport = 0;

		for (; argc > 4 && argv[2][0] == '-'; argv++, argc--) {
			if (!strcmp(argv[2], "-n")) {
				prio = 0;
			} else if (!strcmp(argv[2], "-g")) {
				gate = 1;
			} else if (!strcmp(argv[2], "-p") && argc > 5) {
				lport = parse_port(argv[3]);
				if (lport < 0)
					break;
				argv++;
				argc--;
			} else {
				break;
			}
		}
		if (argc == 4) {
			len = parse(argv[2], atoi(argv[3]), &ss);
			return recv_all(&ss, len, prio, gate, lport);
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
	if ((argc == 2 || argc == 3) && !strcmp(argv[1], "badopt"))
		return badopt(argc == 3 ? argv[2] : NULL);
	if (argc == 4 && !strcmp(argv[1], "write"))
		return write_file(argv[2], argv[3]);
	if (argc == 8 && !strcmp(argv[1], "collide"))
		return collide(argv + 2);
	if (argc >= 3 && !strcmp(argv[1], "ethnl"))
		return ethnl(argc - 2, argv + 2);
	fprintf(stderr,
		"usage: rxr_sock errors | pair ADDR | connect [-b | -a] ADDR PORT |\n"
		"       serve PORT BYTES |\n"
		"       recv [-n] [-g] [-p LPORT] ADDR PORT |\n"
		"       flood ADDR PORT SECONDS SIZE | udpsink PORT |\n"
		"       tcpsink PORT | xdp IFNAME on|off | say PORT TEXT |\n"
		"       badopt [ADDR] | write FILE TEXT |\n"
		"       collide KEYHEX NBUCKETS SADDR DADDR SPORT DPORT |\n"
		"       ethnl [-u] CMD TOKEN...\n");
	return 2;
}
