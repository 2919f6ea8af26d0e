# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# ccache.sh, sourced by the kernel builds (mk/kernel.sh, mk/series-check.sh):
# sets cc to "ccache gcc" where ccache is installed, gcc otherwise.  ccache's
# base_dir is build/, so that trees of the same shape (build/KIND/linux and
# build/KIND/out) share cache entries for the files they have in common; the
# cache lives under $HOME, or build/ccache without one.

# shellcheck disable=SC2034 # used by the scripts that source this
cc=gcc
if command -v ccache > /dev/null; then
	cc="ccache gcc"
	CCACHE_BASEDIR=$(readlink -f "$BUILD")
	export CCACHE_BASEDIR
	[ -n "${HOME:-}" ] || export CCACHE_DIR=$CCACHE_BASEDIR/ccache
fi
