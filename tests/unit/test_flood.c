// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the bench's traffic generator (tests/bench/src/flood.c):
 * option checking, the payload size walk and the pacing schedule.  TAP out.
 */
#define FLOOD_NO_MAIN
#include <stdarg.h>
#include "../bench/src/flood.c"

static int test_n, test_failed;

static void check(bool ok, const char *name)
{
	test_n++;
	if (!ok)
		test_failed++;
	printf("%sok %d %s\n", ok ? "" : "not ", test_n, name);
}

static int parse(struct flood_cfg *cfg, char *err, ...)
{
	char *argv[32] = { "flood" };
	va_list ap;
	int argc = 1;

	va_start(ap, err);
	while ((argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	return flood_parse_args(argc, argv, cfg, err, 128);
}

int main(void)
{
	struct flood_cfg cfg;
	unsigned long seq;
	char err[128];
	bool ok;

	printf("TAP version 13\n1..14\n");
	check(!parse(&cfg, err, "-d", "192.0.2.2", "-p", "9,5001", "-r",
		     "50000", "-s", "64:1400", "-n", "8", "-t", "5", NULL) &&
	      cfg.nports == 2 && cfg.ports[1] == 5001 && cfg.pps == 50000 &&
	      cfg.min_size == 64 && cfg.max_size == 1400 && cfg.sockets == 8 &&
	      cfg.seconds == 5 && cfg.dst.ss_family == AF_INET,
	      "a full IPv4 command line parses");
	check(!parse(&cfg, err, "-d", "2001:db8::2", "-p", "9", NULL) &&
	      cfg.dst.ss_family == AF_INET6 && cfg.pps == 0 &&
	      cfg.seconds == 10, "IPv6 and the defaults (unpaced, 10 s)");
	check(parse(&cfg, err, "-p", "9", NULL) &&
	      strstr(err, "-d ADDR and -p PORT are required"),
	      "a missing destination is refused");
	check(parse(&cfg, err, "-d", "192.0.2.256", "-p", "9", NULL) &&
	      strstr(err, "bad value '192.0.2.256' for -d"),
	      "a bad address is refused and named");
	check(parse(&cfg, err, "-d", "192.0.2.2", "-p", "0", NULL) &&
	      parse(&cfg, err, "-d", "192.0.2.2", "-p", "65536", NULL) &&
	      parse(&cfg, err, "-d", "192.0.2.2", "-p", "9,,x", NULL),
	      "ports outside 1..65535 or malformed are refused");
	check(parse(&cfg, err, "-d", "192.0.2.2", "-p",
		    "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17", NULL),
	      "more than 16 ports are refused");
	check(parse(&cfg, err, "-d", "192.0.2.2", "-p", "9", "-s", "1400:64",
		    NULL) &&
	      parse(&cfg, err, "-d", "192.0.2.2", "-p", "9", "-s", "0", NULL) &&
	      parse(&cfg, err, "-d", "192.0.2.2", "-p", "9", "-s", "65001",
		    NULL),
	      "sizes: min above max, 0 and over 65000 are refused");
	check(parse(&cfg, err, "-d", "192.0.2.2", "-p", "9", "-r", "-5",
		    NULL) &&
	      parse(&cfg, err, "-d", "192.0.2.2", "-p", "9", "-t", "0", NULL) &&
	      parse(&cfg, err, "-d", "192.0.2.2", "-p", "9", "-n", "65", NULL) &&
	      parse(&cfg, err, "-d", "192.0.2.2", "-p", "9", "-c",
		    "99999999999999999999999", NULL),
	      "negative rate, zero duration, too many sockets, overflow");
	check(parse(&cfg, err, "-d", "192.0.2.2", "-p", "9", "-x", NULL) &&
	      strstr(err, "unknown option -x"), "an unknown option is named");
	check(parse(&cfg, err, "-d", "192.0.2.2", "-p", "9", "extra", NULL) &&
	      strstr(err, "unexpected argument 'extra'"),
	      "a stray argument is named");

	parse(&cfg, err, "-d", "192.0.2.2", "-p", "9", "-s", "64:1400", NULL);
	ok = true;
	for (seq = 0; seq < 100000; seq++) {
		unsigned int sz = flood_size(&cfg, seq);

		ok &= sz >= 64 && sz <= 1400;
	}
	check(ok, "payload sizes stay within [min, max]");
	ok = false;
	for (seq = 0; seq < 5000; seq++)
		ok |= flood_size(&cfg, seq) == 1400;
	check(ok && flood_size(&cfg, 0) == 64, "the size walk reaches both ends");

	cfg.pps = 20000;
	check(flood_due_ns(&cfg, 1000, 0) == 1000 &&
	      flood_due_ns(&cfg, 1000, 20000) == 1000 + 1000000000ull &&
	      flood_due_ns(&cfg, 0, 1) == 50000,
	      "paced: packet n is due n/pps seconds after the first");
	cfg.pps = 0;
	check(flood_due_ns(&cfg, 777, 123456) == 777,
	      "unpaced: every packet is due at once");
	return test_failed ? 1 : 0;
}
