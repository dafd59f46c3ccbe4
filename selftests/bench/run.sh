#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh BENCHMARK: the VM benchmarks behind make bench-* (the Makefile
# names which), one folder each under selftests/bench/: BENCHMARK/driver.sh
# builds what it needs, boots its guest script and makes its tables,
# with what lib.sh shares (the VM, the lock, the quiet host and its record,
# the rounds). Numbers, not tests: every timed figure is measured side by
# side in one run, the variants interleaved (not the operation counts, one
# boot a kernel, nor the possible-CPU sweep or the IMU run's modes, one
# after the other), and reported as a table (markdown) and a plot (PNG)
# under build/bench/, a copy under selftests/bench/results/.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
benchmarks="latency latency-scenarios burst enqueue flush reserve cost flush-sweep gpu gpu-submit imu"
what=${1:-}
case " $benchmarks " in
*" ${what:-none} "*) ;;
*)
	echo "usage: run.sh BENCHMARK, one of: $benchmarks" >&2
	exit 2
	;;
esac
. "$top/selftests/bench/lib.sh"
. "$top/selftests/bench/$what/driver.sh"
