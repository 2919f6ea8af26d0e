#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ksft.sh TEST...: run kselftests from /kselftest and print TAP, as
# tools/testing/selftests/run_kselftest.sh does.  A test's exit code 4 is a
# skip (KSFT_SKIP); its output is printed as TAP comments.  Each test runs
# from its own directory under the timeout in that directory's "settings"
# file (default 300 s), times RXR_KSFT_SLOW (default 1: the debug kernel's
# guests are slower).

n=0
echo "TAP version 13"
echo "1..$#"
for t in "$@"; do
	n=$((n + 1))
	dir=/kselftest/$(dirname "$t")
	name=$(basename "$t")
	limit=300
	if [ -f "$dir/settings" ]; then
		limit=$(sed -n 's/^timeout=//p' "$dir/settings")
		[ -n "$limit" ] || limit=300
	fi
	limit=$((limit * ${RXR_KSFT_SLOW:-1}))
	if [ ! -x "$dir/$name" ]; then
		echo "not ok $n $t # missing from the guest image"
		continue
	fi
	echo "# running $t"
	start=$(date +%s)
	rm -f /tmp/.ksft-rc
	(cd "$dir" && timeout "$limit" "./$name" < /dev/null
	 echo $? > /tmp/.ksft-rc) 2>&1 | sed 's/^/# /'
	rc=$(cat /tmp/.ksft-rc 2>/dev/null)
	echo "# $t: exit $rc after $(( $(date +%s) - start )) s"
	case "$rc" in
	0) echo "ok $n $t" ;;
	4) echo "ok $n $t # SKIP" ;;
	124) echo "not ok $n $t # TIMEOUT ${limit}s" ;;
	*) echo "not ok $n $t # exit=$rc" ;;
	esac
done
