# SPDX-License-Identifier: GPL-2.0
#
# wqrt: one entry point. `make help` lists the targets.

SHELL := /bin/bash
TOP := $(abspath .)
BUILD := $(TOP)/build
export WQRT_BUILD := $(BUILD)

# The kernel the VM targets boot: test (patched, lockdep) or plain.
KERNEL ?= test
KDIR = $(BUILD)/kernel-$(KERNEL)
PREFIX ?= /usr/local
DESTDIR ?=
# -Werror in the project's own builds of the daemon (make daemon,
# daemon-test, check, the VMs); `make install` and `make deb` build without
# it, as a user's or a distribution's compiler may warn about more.
WERROR ?= 1

.PHONY: help all deps kernel kernel-plain kernel-tree kernel-export \
	checkpatch daemon daemon-test selftests vm-run vm-shell \
	vm-test vm-many-cpus check demo install clean distclean \
	kernel-each race-demo wake-irqs-demo rt-exit-repro rt-exit-demo rt-stress int3-repro flush-mutation mutation no-policy-demo e2e fuzz \
	board-kernel deps-graph

help:
	@echo "wqrt targets:"
	@echo "  make demo          build the patched kernel, boot it, show an RT profile at work"
	@echo "  make check         every test: daemon unit tests, VM tests on the patched kernel and Debian's RT one"
	@echo "  make deps          install the Debian packages wqrt needs (as root)"
	@echo "  make kernel        build the patched test kernel (KERNEL=plain: the baseline,"
	@echo "                    KERNEL=test-arm64: the test kernel for arm64)"
	@echo "  make board-kernel  a Debian board's kernel as .debs: linux-source-6.12 + the series +"
	@echo "                    Debian's RT config + board.config, make bindeb-pkg (BOARD_ARCH=arm64:"
	@echo "                    cross; BOARD_SRC, BOARD_CONFIG: your own; kernel/scripts/board-kernel.sh)"
	@echo "  make kernel-plain  build 6.12 with the stable fixes and none of the series (the baseline)"
	@echo "  make all           wqrtd, wqrtctl, the test kernel and the selftests"
	@echo "  make daemon        build wqrtd and wqrtctl (build/daemon/)"
	@echo "  make daemon-test   the daemon's unit and CLI tests, plain and under ASan/UBSan"
	@echo "  make selftests     build the kselftests against the test kernel"
	@echo "  make vm-test       the selftest suite in the VM (KERNEL=test|plain|test-arm64)"
	@echo "  make kernel-tree   lay kernel/series as git commits in build/linux"
	@echo "  make kernel-export write build/linux's commits back to kernel/patches"
	@echo "  make checkpatch    checkpatch.pl --strict on every patch"
	@echo "  make kernel-each   build, boot and test the kernel after each patch of the series"
	@echo "  make race-demo     show the idle-cull test catching the race without the claim patch"
	@echo "  make wake-irqs-demo show wq_nr_idle_extra counting wakeups issued with IRQs on without the IRQs-off window"
	@echo "  make rt-exit-repro wq_rt_exit 50 rounds per test: exiting RT workers vs a /proc reader (ROUNDS)"
	@echo "  make int3-repro    the Oops: int3 of QEMU's multi-threaded TCG, sched_switch flipped (KERNEL=debian-rt; INT3_HOLD=1)"
	@echo "  make rt-exit-demo  show wq_rt_exit catching an exiting SCHED_FIFO worker that starves a task"
	@echo "  make rt-stress     wqrtd_rtstress.sh STRESS_ROUNDS times (5), SECS seconds each (40): RT workers that come and go under hotplug, a FIFO hog, /proc readers"
	@echo "  make flush-mutation show wq_flush catching a lost flush wait without the color sync"
	@echo "  make no-policy-demo show the VM suite failing by name on a series without its policy attribute"
	@echo "  make e2e           the user's day in a Debian + systemd VM on the patched kernel"
	@echo "  make vm-run SCRIPT=path/to/script.sh   run a script in the VM"
	@echo "  make vm-shell      interactive shell in the VM (Ctrl-a x quits)"
	@echo "  make vm-many-cpus  the reserve tests on the test kernel with 64 possible CPUs, 2 online"
	@echo "  make bench         benchmarks: dispatch latency under load, enqueue throughput, flush rates, IMU over UART, wqrtd's reaction time (build/bench/)"
	@echo "  make bench-latency, bench-enqueue, bench-flush, bench-imu, bench-reaction: one of them"
	@echo "  make bench-burst   worker creation after the idle cull: a reserve or none, kworkers born FIFO or chrt'ed by name"
	@echo "  make bench-cost    what the series costs queue_work() and flushes: counts, then times, plain 6.12 vs the series"
	@echo "  make bench-reserve the memory one worker of a reserve (nr_idle_extra) costs, on the production-like kernel"
	@echo "  make bench-flush-sweep  flush counts by the number of possible CPUs, plain 6.12 vs the series"
	@echo "  make bench-price   the committed counts priced with published ranges, per machine (no VM)"
	@echo "  make bench-tables BASE=RESULT  a counts or host-clock run's tables made again from its committed files (no VM)"
	@echo "  make bench-gpu     vkms's composer workqueue: vblank to composition and late frames, default vs fifo"
	@echo "  make bench-gpu-submit  a drm_sched-shaped submit path at 20 Hz with RT tasks: dispatch over 1 ms, RT kthread_worker beside"
	@echo "  make install       install wqrtd, wqrtctl, the unit, man pages (DESTDIR, PREFIX)"
	@echo "  make uninstall     remove what make install installed (same DESTDIR, PREFIX)"
	@echo "  make deb           the Debian packages wqrtd, wqrt-selftests and wqrt-selftests-dkms"
	@echo "                     in build/deb/ (DEB_HOST_ARCH=arm64: cross-built into build/deb-arm64/;"
	@echo "                     DEB_BUILD_PROFILES=pkg.wqrt.noselftests: wqrtd alone, no kernel source)"
	@echo "  make fuzz          libFuzzer on wqrtd's parsers, FUZZ_SECONDS (600) per target"
	@echo "  make mutation      every mutant of daemon/tests/mutations.txt caught by the daemon's tests (report: daemon/tests/mutation-report.md)"
	@echo "  make deps-graph    which file of daemon/ uses which: floors, circles, uses against a folder's rule"
	@echo "  make clean         remove the builds but the kernels; make distclean: all of build/"

all: daemon kernel selftests

# Every target that needs packages depends on this; it installs what is
# missing when run as root and says what to install otherwise.
deps:
	@scripts/deps.sh

kernel: deps
	@kernel/scripts/build.sh $(KERNEL)

kernel-plain: deps
	@kernel/scripts/build.sh plain

# A Debian board's kernel as packages (kernel/scripts/board-kernel.sh:
# BOARD_ARCH, BOARD_SRC, BOARD_CONFIG, BOARD_OUT, BOARD_DRY_RUN). No `make
# deps`: on a board it needs only what it names.
board-kernel:
	@kernel/scripts/board-kernel.sh

kernel-tree: deps
	@kernel/scripts/tree.sh lay

kernel-export:
	@kernel/scripts/tree.sh export

checkpatch: deps
	@kernel/scripts/tree.sh checkpatch

daemon: deps
	@$(MAKE) --no-print-directory -C daemon O=$(BUILD)/daemon WERROR=$(WERROR) all

daemon-test: deps
	@$(MAKE) --no-print-directory -C daemon O=$(BUILD)/daemon WERROR=$(WERROR) test

# The include and call graph of daemon/ (scripts/deps-graph.sh)
deps-graph: deps
	@$(MAKE) --no-print-directory -C daemon O=$(BUILD)/daemon WERROR=$(WERROR) deps-graph

# libFuzzer targets (daemon/fuzz/): each runs FUZZ_SECONDS; a crash fails
# with its reproducer under build/fuzz/crashes/.
FUZZ_SECONDS ?= 600
fuzz: deps
	@$(MAKE) --no-print-directory -C daemon/fuzz O=$(BUILD)/fuzz run \
		FUZZ_SECONDS=$(FUZZ_SECONDS) $(if $(FUZZ_TARGETS),FUZZ_TARGETS="$(FUZZ_TARGETS)")

# Mutation testing of daemon/ (scripts/mutation.sh): outside make check,
# about half a minute a mutant; writes daemon/tests/mutation-report.md
mutation: deps
	@scripts/mutation.sh

VM := selftests/vm/vm.sh

selftests: kernel
	@$(MAKE) --no-print-directory -C selftests KDIR=$(KDIR)/obj \
		KSRC=$(KDIR)/src O=$(BUILD)/selftests/$(KERNEL)

# Every VM boot goes through selftests/vm/vm.sh, which builds wqrtd, the
# selftests against the kernel and the image, and boots it.
vm-test: kernel
	@$(VM) check $(KERNEL)

vm-run: kernel
	@test -n "$(SCRIPT)" || { echo "usage: make vm-run SCRIPT=path/to/script.sh" >&2; exit 2; }
	@$(VM) script $(KERNEL) $(SCRIPT)

vm-shell: kernel
	@$(VM) shell $(KERNEL)

# The test kernel with 64 possible CPUs, 2 online, as on a large machine:
# QEMU lists the CPUs it could hot-add as disabled MADT entries, which the
# test kernel counts as possible (kernel/variants/possible-cpus; 6.12 does
# not under TCG). No other kernel.
vm-many-cpus: kernel
	@WQRT_VM_SMP=2,maxcpus=64 \
		$(VM) script $(KERNEL) selftests/vm/many-cpus.sh

# The user's day in a Debian 12 VM with systemd as PID 1 on the test kernel.
e2e: kernel
	@$(VM) e2e $(KERNEL)

demo:
	@$(MAKE) --no-print-directory vm-run KERNEL=test SCRIPT=selftests/vm/demo.sh

# Each patch of the series on its own: build, boot, run the selftests.
# Incremental, in one tree of the cache; not part of `make check` (it
# takes about an hour from scratch).
# EACH="FIRST LAST" limits it to those prefixes.
kernel-each: deps daemon
	@kernel/scripts/each.sh series $(EACH)

# The series and the debug knobs (kernel/variants/debug-knobs), minus the
# claim of the kicked worker (kernel/variants/race): the idle-cull race test
# must catch stranded work there.
race-demo: deps daemon
	@kernel/scripts/each.sh race

# The series with IRQs enabled again between the unlock and the deferred
# wakeup of process_one_work() and of the reserve's refill
# (kernel/variants/wake-irqs-on): wq_nr_idle_extra's
# deferred_wakeups_keep_irqs_off must count wakeups issued with IRQs
# enabled. Built in the incremental tree of make kernel-each.
wake-irqs-demo: deps daemon
	@WQRT_TREE=$${WQRT_TREE:+$$WQRT_TREE-}each kernel/scripts/build.sh wake-irqs-on
	@$(VM) script wake-irqs-on selftests/vm/wake-irqs-demo.sh

# wq_rt_exit's rounds many times over (ROUNDS, 50 by default) on the test
# kernel: a SCHED_FIFO worker that exits while a SCHED_NORMAL task on its
# CPU is killing one of its /proc dentries must not starve that task.
ROUNDS ?= 50
rt-exit-repro: kernel
	@WQRT_VM_APPEND="wqrt.rt_exit_rounds=$(ROUNDS)" WQRT_VM_TIMEOUT=3600 \
		$(VM) script $(KERNEL) selftests/vm/rt-exit.sh

# The stress of RT workers coming and going (issue 49), longer than make
# check's one 40 s run: STRESS_ROUNDS rounds of SECS seconds in one boot.
STRESS_ROUNDS ?= 5
SECS ?= 40
rt-stress: kernel
	@WQRT_VM_APPEND="wqrt.rtstress_rounds=$(STRESS_ROUNDS) wqrt.rtstress_s=$(SECS)" \
		WQRT_VM_TIMEOUT=$$(( $(STRESS_ROUNDS) * ($(SECS) + 60) + 300 )) \
		$(VM) script $(KERNEL) selftests/vm/rt-stress.sh

# The "Oops: int3" of QEMU's multi-threaded TCG (docs/tests.md): sched_switch
# flipped on and off while both vCPUs switch tasks, on KERNEL (debian-rt:
# Debian's own, nothing of wqrt in the path), with no tracepoint held
# (selftests/lib/trace-hold.sh). Fails with the Oops under multi-threaded
# TCG; WQRT_VM_TCG_THREAD=single (far slower) or KVM do not meet it.
# INT3_HOLD=1 holds the tracepoints as every other VM run does: it passes.
INT3_TOGGLES ?= 2000
int3-repro: kernel
	@WQRT_VM_APPEND="wqrt.int3_toggles=$(INT3_TOGGLES) $(if $(INT3_HOLD),,wqrt.trace_hold=0)" \
		$(VM) script $(KERNEL) selftests/vm/int3-toggle.sh

# The series without the return of an exiting worker to SCHED_NORMAL
# (kernel/variants/rt-exit-nofix): wq_rt_exit must catch an exiting
# SCHED_FIFO worker starving a task on its CPU. The verdict is inverted in
# the script. Not part of make check.
rt-exit-demo: deps daemon
	@kernel/scripts/build.sh rt-exit-nofix
	@$(VM) script rt-exit-nofix selftests/vm/rt-exit-demo.sh

# The series with the work color sync of the flush tracking taken out
# (kernel/variants/flush-nosync): wq_flush must catch a flush returning
# before the work it must wait for. The verdict is inverted in the script.
# Built in the tree flush-nosync (or $$WQRT_TREE-nosync when set).
flush-mutation: deps daemon
	@WQRT_TREE=$${WQRT_TREE:+$$WQRT_TREE-nosync} kernel/scripts/build.sh flush-nosync
	@$(VM) script flush-nosync selftests/vm/flush-mutation.sh

# The series without its policy attribute in sysfs
# (kernel/variants/no-policy), judged as the test kernel: the VM suite must
# fail and name the programs that lost what they test. The verdict is
# inverted in the script. Not part of make check.
no-policy-demo: deps daemon
	@kernel/scripts/build.sh no-policy
	@selftests/vm/no-policy-demo.sh

# make check: everything that runs on a plain Linux machine as root. Each
# stage records "passed failed skipped" under build/results; the last line
# adds them up.
check:
	@rm -rf $(BUILD)/results && mkdir -p $(BUILD)/results
	@scripts/check.sh

# Building needs the daemon's libraries (pkg-config names what is
# missing), installing nothing more: no `make deps`, no apt-get here.
# CPPFLAGS, CFLAGS, LDFLAGS from the environment or the command line are
# used as given.
install:
	@$(MAKE) --no-print-directory -C daemon O=$(BUILD)/daemon-install \
		WERROR=0 DESTDIR=$(DESTDIR) PREFIX=$(PREFIX) install

uninstall:
	@$(MAKE) --no-print-directory -C daemon O=$(BUILD)/daemon-install \
		DESTDIR=$(DESTDIR) PREFIX=$(PREFIX) uninstall

# dpkg-buildpackage -us -uc -b on a copy of the tree; the .debs, .buildinfo
# and .changes land in build/deb/. Needs the build dependencies of
# debian/control (make deps installs them).
deb:
	@scripts/deb.sh

clean:
	rm -rf $(BUILD)/daemon $(BUILD)/daemon-install $(BUILD)/deb \
		$(BUILD)/selftests $(BUILD)/vm $(BUILD)/*.cpio \
		$(BUILD)/selftests-*.log \
		$(BUILD)/results

# Also forget the cached kernels of this checkout (the cache itself is
# shared and pruned by the build script).
distclean: clean
	rm -rf $(BUILD)

# Benchmarks: numbers, never tests. Tables and plots under build/bench/.
.PHONY: bench bench-latency bench-burst bench-enqueue bench-flush bench-imu bench-reaction bench-cost bench-reserve \
	bench-flush-sweep bench-gpu bench-gpu-submit bench-price bench-tables
bench: bench-latency bench-enqueue bench-flush bench-imu bench-reaction

# the base case, then the scenarios of issue 18.6 on prod and prod-plain
# (SCENARIOS="rt noisy drivers stock" by default; empty skips them), then
# worker creation (bench-burst)
bench-latency: deps
	@selftests/bench/run.sh latency
	@selftests/bench/run.sh latency-scenarios
	@selftests/bench/run.sh burst

# issue 32.4: bursts after the idle cull on prod, with and without a
# reserve, kworkers born FIFO (the series) or chrt'ed by name (the stock
# way), in the same boot (ROUNDS, POOLS, BURST_K: selftests/bench/burst/driver.sh)
bench-burst: deps
	@selftests/bench/run.sh burst

bench-enqueue: deps
	@selftests/bench/run.sh enqueue

bench-flush: deps
	@selftests/bench/run.sh flush

# issue 32.3: the memory of a reserve of idle workers, per worker, on the
# production-like kernel (ROUNDS boots, SIZES: selftests/bench/reserve/driver.sh)
bench-reserve: deps
	@selftests/bench/run.sh reserve

# issue 32.2: the GPU case with vkms as the stand-in: vblank to
# composition start on the ordered workqueue vkms_composer and the share
# of late frames, default vs fifo 50, under CPU and memory load (ROUNDS,
# RATES, DURATION, SIZE: selftests/bench/gpu/driver.sh)
bench-gpu: deps
	@selftests/bench/run.sh gpu

# issue 43.3: the seed's GPU case, a drm_sched-shaped submit path
# (selftests/bench/gpu-submit/: ROUNDS, FRAMES, SUBMIT_VARIANTS, RT_TASKS,
# SUBMIT_KERNEL, driver.sh)
bench-gpu-submit: deps
	@selftests/bench/run.sh gpu-submit

# issue 29, before a change to the workqueue patches: what the series
# adds to queue_work() and flushes, counted (host-independent) and timed,
# plain 6.12 against the series (COUNT_KERNELS, RUNS, ROUNDS, COUNTS=0,
# TIMES=0: selftests/bench/cost/driver.sh)
bench-cost: deps
	@selftests/bench/run.sh cost

# issue 32.3: the flush cases of bench-cost counted on prod-plain and prod
# booted with 8, 64, 192 and 255 possible CPUs (POSSIBLE, KERNELS, BASE,
# RUNS: selftests/bench/flush-sweep/driver.sh)
bench-flush-sweep: deps
	@selftests/bench/run.sh flush-sweep

# issue 44.3: the committed counts priced with published ranges
# (selftests/bench/cost/prices), per machine; and a counts run's tables
# made again from what it committed (BASE: a result's name; a run on the
# host's clock, one with BASE-times.raw.xz, gives its timed table); no
# build, no VM
bench-price:
	@selftests/bench/tables.sh price $(BASE)

bench-tables:
	@if [ -n "$(BASE)" ] && [ -f selftests/bench/results/$(BASE)-times.raw.xz ]; then \
		selftests/bench/tables.sh times $(BASE); \
	else \
		selftests/bench/tables.sh counts $(BASE); \
	fi

# seed 004 (issue 32.0-1): IMU frames through the 8250's flip buffer
# workqueue under load, late and lost frames and the longest gap per
# variant, one boot under -icount and one under plain TCG (MODES, ICOUNT,
# ROUNDS, COUNT frames per run, PERIOD_US, FRAME_LEN, LIMIT_US, SEED, TAG:
# selftests/bench/imu/driver.sh)
bench-imu: deps
	@selftests/bench/run.sh imu

# issue 18.7: wqrtd's fork -> verified time at 10, 100, 1000 new kworkers
# a second, its CPU time and peak RSS, plain kernel and patched
# (KERNELS, RATES, DURATION, LIFETIME_MS, ROUNDS, NICE: reaction.sh)
bench-reaction: deps
	@selftests/bench/reaction.sh
