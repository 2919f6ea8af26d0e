# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# apt-own.sh, sourced: apt state of the build's own, so that packages from
# another suite or source packages can be fetched without touching the
# host's apt configuration.

# apt_own DIR ENTRY: DIR holds the lists and the cache, ENTRY (a sources.list
# line) is the only source; sets apt_opts, the options for apt-get.
apt_own()
{
	mkdir -p "$1/lists/partial" "$1/cache/archives/partial"
	echo "$2" > "$1/sources.list"
	# shellcheck disable=SC2034 # the caller's
	apt_opts=(-o "Dir::Etc::SourceList=$1/sources.list"
		  -o "Dir::Etc::SourceParts=/dev/null"
		  -o "Dir::State::Lists=$1/lists"
		  -o "Dir::Cache=$1/cache"
		  -o "APT::Sandbox::User=root")
}
