#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# build.sh FLAVOUR [NPATCHES]
#
# Bring one kernel flavour up to date and point build/kernel-FLAVOUR at it
# (the build model and the flavour table are in common.sh):
#
#   test        the series and kernel/variants/debug-knobs; wqrt + systemd +
#               debug (lockdep) fragments: the kernel every VM test boots,
#               busybox and systemd alike
#   plain       no series, same configuration: the baseline, and the
#               "kernel without the series" case of the tests
#   test-kasan  test plus kasan.config: the lifetime tests under KASAN
#   no-policy   test plus kernel/variants/no-policy (no policy attribute):
#               the VM suite, judged as on test, must fail by name
#   race        test plus kernel/variants/race (no claim of the kicked
#               worker): the idle-cull test must catch it
#   perf        the series, wqrt + perf fragments: benchmarks only
#   perf-plain  no series, same configuration as perf
#   perf-alt    perf plus kernel/variants/wake-q
#   prod        the series, wqrt + prod fragments (-O2, HZ=1000, no lock
#               debugging, the timerlat/osnoise tracers): latency benchmarks
#   prod-plain  no series, same configuration as prod
#   prod-alt    prod plus kernel/variants/wake-q (patch 3's alternative,
#               for the enqueue A/B on the production-like configuration)
#   prod-flush, prod-flush-plain
#               other names for prod and prod-plain (the same trees), which
#               carry kernel/variants/possible-cpus and NR_CPUS 512: booted
#               with -smp 2,maxcpus=N, make bench-cost's and make
#               bench-flush-sweep's flushes with many possible CPUs
#   debian-rt   no build: Debian's own linux-image-6.12-rt-amd64 from the
#               archive, what a board runs before it builds anything
#               (debian-kernel.sh): the "kernel without the series" suite
#
# NPATCHES applies only the first N patches of the series. WQRT_TREE=NAME
# builds in the tree NAME instead of the flavour's own (kernel-each uses one
# tree for every prefix of the series).

. "$(dirname "$0")/common.sh"

[ "${1:-}" != debian-rt ] || exec "$(dirname "$0")/debian-kernel.sh"

build_kernel "${1:?usage: build.sh FLAVOUR [NPATCHES]}" "${2:-}"
