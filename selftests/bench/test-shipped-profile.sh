#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# test-shipped-profile.sh: shipped-profile.sh, which the benchmarks'
# "shipped" variants use to set what a seed profile sets once a user
# uncomments it. TAP output; run by make check's harness stage.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib/ktap.sh"
sp=$top/selftests/bench/shipped-profile.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ktap_print_header
ktap_set_plan 4
cat >"$tmp/seed.conf" <<'CONF'
; a comment that mentions rtprio = 99
;
;[profile:other]
;policy = rr
;
;[profile:imu]
;policy = fifo
;rtprio=20
; a comment inside the profile
;nr_idle_extra = 1
;
;[wq:ttyS-serial_8250]
;profile = imu
;cpumask = irq:ttyS1
;
;[wq:ttyAMA-ttyAMA]
;profile = imu
CONF
ktap_test_result "the profile's keys in order, comments and other profiles left out, cpumask=irq from the port's section" \
	eval '[ "$("$sp" "$tmp/seed.conf" imu ttyS-serial_8250)" = "policy=fifo rtprio=20 nr_idle_extra=1 cpumask=irq" ]'
ktap_test_result "a section without an irq: binding adds no cpumask" \
	eval '[ "$("$sp" "$tmp/seed.conf" imu ttyAMA-ttyAMA)" = "policy=fifo rtprio=20 nr_idle_extra=1" ]'
ktap_test_result "a profile the file lacks: an error naming the file and the profile" \
	eval '! "$sp" "$tmp/seed.conf" gpu 2>"$tmp/err" && grep -q "seed.conf: no key in \[profile:gpu\]" "$tmp/err"'
ktap_test_result "the shipped 50-uart-imu.conf and 60-gpu-scheduler.conf each have a profile the benchmarks can read" \
	eval '"$sp" "$top/conf/conf.d/50-uart-imu.conf" uart-imu ttyS-serial_8250 | grep -q "^policy=" &&
		"$sp" "$top/conf/conf.d/60-gpu-scheduler.conf" gpu-submit | grep -q "^policy="'
ktap_finished
