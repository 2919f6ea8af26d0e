# SPDX-License-Identifier: GPL-2.0
#
# rx-reserve: build a patched and a vanilla Linux 6.12 from Debian's
# linux-source-6.12, and test both in QEMU guests.  `make help` lists targets.

# The one place the kernel source version is pinned.
LINUX_DEB_VERSION := 6.12.118-1~deb12u1
# The one place the QEMU of the guests is pinned: bookworm-backports' QEMU 10,
# whose virtio-net RSS runs in the host's tun (eBPF), unpacked by mk/qemu.sh.
QEMU_DEB_VERSION := 1:10.0.2+ds-2+deb13u1~bpo12+1
SEABIOS_DEB_VERSION := 1.16.3-2~bpo12+1
# The NFS tools of the guest image (mk/nfs.sh): bookworm's nfs-utils.
NFS_UTILS_DEB_VERSION := 1:2.6.2-4+deb12u1

BUILD ?= $(CURDIR)/build
export BUILD LINUX_DEB_VERSION QEMU_DEB_VERSION SEABIOS_DEB_VERSION \
	NFS_UTILS_DEB_VERSION


# Guest knobs for `make boot` / `make demo`.
KERNEL ?= patched
NIC ?= virtio-mq
QUEUES ?= 4
CMD ?=

.PHONY: all help deps source tree kernel vanilla kernels initramfs host-tools \
	ethtool nfs debug modules norxr \
	test test-tools test-kunit test-selftests test-upstream test-debug \
	boot demo bench bench-read patches checkpatch series-check w1 clean distclean FORCE

all: kernels modules initramfs host-tools

help:
	@awk '/^### Make targets/ { on = 1; next } /^### / { on = 0 } on' README.md

deps:
	@mk/deps.sh
	@mk/qemu.sh

source: deps
	@mk/source.sh

# The overlay and patches alone, laid over build/linux.
tree: source
	@mk/tree.sh

kernel: tree
	@mk/kernel.sh patched

vanilla: source
	@mk/kernel.sh vanilla

kernels: kernel vanilla

# The patched kernel with config/debug.config on top (KASAN, lockdep,
# kmemleak, ...), in build/debug/out.
debug: tree
	@mk/kernel.sh debug

# The patched kernel with config/modules.config on top (the NIC drivers
# as modules), in build/modules/out; its modules in
# build/modules/modules.cpio.gz for the guests.
modules: tree
	@mk/kernel.sh modules

# The drivers and the core's callers as modules with CONFIG_RX_RESERVE
# off, in build/norxr/out; fails on any warning.
norxr: tree
	@mk/norxr.sh

# The overlay's C files built alone with W=1; fails on any warning.
w1: kernel
	@mk/w1.sh

# The bench's own programs, run on the peer side.
HOST_TOOLS := $(BUILD)/bin/flood $(BUILD)/bin/rxr_sock $(BUILD)/bin/memload
host-tools: $(HOST_TOOLS)

# memload runs in the guests: static, so it needs nothing of the image.
$(BUILD)/bin/memload: tests/bench/src/memload.c
	@mkdir -p $(dir $@)
	gcc -O2 -static -Wall -Wextra -Werror -o $@ $<

$(BUILD)/bin/rxr_sock: tools/testing/selftests/drivers/net/rx_reserve/rxr_sock.c
	@mkdir -p $(dir $@)
	gcc -O2 -Wall -Wextra -Werror -o $@ $<

$(BUILD)/bin/%: tests/bench/src/%.c
	@mkdir -p $(dir $@)
	gcc -O2 -Wall -Wextra -Werror -o $@ $<

# Debian's ethtool 6.1 with tools/ethtool/*.patch, for the guest image.
ethtool: deps
	@mk/ethtool.sh

# bookworm's nfs-utils unpacked, for the guest image.
nfs: deps
	@mk/nfs.sh

initramfs: deps tree ethtool nfs $(BUILD)/bin/memload
	@mk/initramfs.sh

# The whole suite: builds what it needs, prints TAP, a timing line per phase
# and a closing "N passed, N failed, N skipped" line.
test:
	@tests/run.sh all

test-tools:
	@tests/run.sh tools

test-kunit:
	@tests/run.sh kunit

test-selftests:
	@tests/run.sh selftests

test-upstream:
	@tests/run.sh upstream

# Every KUnit suite and kselftest on the debug kernel; any splat fails it.
test-debug:
	@tests/run.sh debug

# make boot [KERNEL=patched|vanilla|modules] [NIC=none|e1000e|virtio|virtio-mq]
#           [QUEUES=N] [CMD='shell command run in the guest']
boot: all
	@tests/bench/qemu-run.sh --kernel $(KERNEL) --nic $(NIC) \
		--queues $(QUEUES) --verbose -- $(CMD)

# The most telling cell, vanilla then patched, with a progress display.
demo: all
	@tests/demo.sh

# Swap over NBD and iSCSI under OOM and flood, vanilla against patched: the
# table, targets and plots under build/results/bench-*.  BENCH_* variables
# (tests/bench/bench.sh) pick the cells; the whole default matrix takes
# about 5 hours here.
bench: all
	@tests/bench/bench.sh

# Storage read throughput without pressure or flood: vanilla, patched and
# patched with rx_reserve=off (tests/bench/read.sh; about 20 minutes).
bench-read: all
	@tests/bench/read.sh

patches: tree
	@mk/patches.sh

checkpatch: patches
	@mk/checkpatch.sh

# The series one patch at a time: each step builds, with no W=1 warning in
# the files it touches (SERIES_FIRST, SERIES_LAST pick a range).  Slow: not
# in make test.
series-check: patches
	@mk/series-check.sh

clean:
	rm -rf $(BUILD)/patched/out $(BUILD)/vanilla/out $(BUILD)/initramfs* \
		$(BUILD)/series $(BUILD)/results $(BUILD)/runs

distclean:
	rm -rf $(BUILD)

FORCE:
