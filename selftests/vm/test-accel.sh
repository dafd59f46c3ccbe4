#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# test-accel.sh: host-side tests of the accelerator choice (accel.sh),
# with a fake /proc/cpuinfo, a fake /dev/kvm and a fake QEMU. Part of
# `make check`; needs qemu-system-x86_64 for the one real probe (TCG).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/ktap.sh"
. "$here/accel.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'processor\t: 0\nflags\t\t: fpu sse2 hypervisor\n' >"$tmp/cpuinfo-novirt"
printf 'processor\t: 0\nflags\t\t: fpu sse2 vmx ept\n' >"$tmp/cpuinfo-vmx"
printf 'processor\t: 0\nflags\t\t: fpu sse2 svm npt\n' >"$tmp/cpuinfo-svm"
: >"$tmp/kvm"
# A QEMU that exits as a guest that ran to the end would make it (3), and
# one that aborts the way KVM without vmx does (134).
printf '#!/bin/sh\nexit 3\n' >"$tmp/qemu-runs"
printf '#!/bin/sh\necho "failed to set MSR 0x10a" >&2\nexit 134\n' >"$tmp/qemu-aborts"
chmod +x "$tmp"/qemu-*

# expect NAME WANT_RC WANT_ACCEL REASON_PATTERN [VAR=VALUE...]
expect() {
	local name=$1 want_rc=$2 want_accel=$3 pattern=$4 rc
	shift 4
	(
		export WQRT_VM_ACCEL=auto WQRT_KVM_DEV="$tmp/kvm" \
			WQRT_CPUINFO="$tmp/cpuinfo-vmx" WQRT_QEMU="$tmp/qemu-runs"
		[ $# -eq 0 ] || export "$@"
		choose_accel
		rc=$?
		echo "$rc|$ACCEL|$ACCEL_REASON"
	) >"$tmp/out"
	IFS='|' read -r rc accel reason <"$tmp/out"
	if [ "$rc" = "$want_rc" ] && [ "$accel" = "$want_accel" ] &&
		[[ "$reason" == *$pattern* ]]; then
		ktap_test_pass "$name"
	else
		ktap_print_msg "got rc=$rc accel='$accel' reason='$reason'"
		ktap_test_fail "$name"
	fi
}

ktap_print_header
ktap_set_plan 10
expect "no /dev/kvm: TCG" 0 tcg "there is no" WQRT_KVM_DEV="$tmp/none"
expect "/dev/kvm without vmx/svm: TCG, and says so" 0 tcg "no vmx/svm" \
	WQRT_CPUINFO="$tmp/cpuinfo-novirt"
expect "vmx but the probe guest aborts: TCG" 0 tcg "probe guest did not run" \
	WQRT_QEMU="$tmp/qemu-aborts"
expect "vmx and the probe guest runs: KVM" 0 kvm "probe guest ran"
expect "svm and the probe guest runs: KVM" 0 kvm "probe guest ran" \
	WQRT_CPUINFO="$tmp/cpuinfo-svm"
expect "forced tcg on a KVM-capable host: TCG" 0 tcg "forced" WQRT_VM_ACCEL=tcg
expect "forced kvm without vmx/svm: an error naming the cause" 1 "" \
	"cannot run here: $tmp/kvm exists but the CPU advertises no vmx/svm" \
	WQRT_VM_ACCEL=kvm WQRT_CPUINFO="$tmp/cpuinfo-novirt"
expect "forced kvm whose probe aborts: an error" 1 "" "probe guest did not run" \
	WQRT_VM_ACCEL=kvm WQRT_QEMU="$tmp/qemu-aborts"
expect "unknown WQRT_VM_ACCEL: an error naming the value" 1 "" "not 'hvf'" \
	WQRT_VM_ACCEL=hvf
# The probe itself, for real, under TCG: it must tell a guest that ran.
ktap_test_result "the probe guest really runs under TCG" probe_guest tcg max
ktap_finished
