#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make demo: runs inside the VM booted on the patched kernel. Shows the
# test workqueue before, applies the example RT profile with wqrtd, and
# reads the result back from sysfs and from the kworker threads themselves.

# The shared helpers: beside this directory in the source tree, or where
# mkinitramfs.sh installs them.
for lib in "$(dirname "$0")/../lib" /usr/lib/wqrt/lib; do
	[ -f "$lib/task.sh" ] && break
done
. "$lib/task.sh"

wq=wqrt_test_unbound
dir=/sys/devices/virtual/workqueue/$wq

show_wq() {
	echo "--- $dir"
	for a in policy rtprio nice nr_idle_extra private cpumask \
		affinity_scope affinity_strict max_active pool_ids; do
		[ -e "$dir/$a" ] && printf '  %-16s %s\n' "$a" "$(cat "$dir/$a")"
	done
}

# The policy and priority of every kworker of the workqueue's pools, read
# from the threads (/proc/PID/stat fields 40 rt_priority and 41 policy).
show_kworkers() {
	for pid in $(wq_kworkers "$wq"); do
		task_read "$pid" || continue
		printf '  %-6s %-22s policy=%-6s rtprio=%s\n' "$pid" "$TASK_COMM" \
			"$(task_policy_name "$TASK_POLICY")" "$TASK_RTPRIO"
	done
}

if [ ! -d "$dir" ]; then
	echo "demo: $dir is missing: the test module did not load"
	exit 1
fi

echo "== The test workqueue on $(uname -r), as the driver created it"
show_wq
if [ ! -e "$dir/policy" ]; then
	echo "demo: this kernel has no 'policy' attribute (kernel without the wqrt series)"
	exit 0
fi

echo
echo "== The profile in /etc/wqrt.conf"
sed -n '/^\[profile:rt-critical\]/,/^$/p;/^\[wq:wqrt_test_unbound\]/,/^$/p' /etc/wqrt.conf

echo
echo "== wqrtd --check, then --dry-run (the plan), then --once (apply)"
wqrtd --check -c /etc/wqrt.conf || exit 1
wqrtd --dry-run -c /etc/wqrt.conf
wqrtd --once -c /etc/wqrt.conf || exit 1

echo
echo "== The workqueue after wqrtd"
show_wq
# A burst of blocking work makes the pool create new kworkers: they are
# born with the pool's policy.
if [ -e /sys/kernel/debug/wqrt_test/burst ]; then
	echo "wq=unbound n=8 hold_ms=200" >/sys/kernel/debug/wqrt_test/burst
	head -n 1 /sys/kernel/debug/wqrt_test/burst
fi
echo
echo "== Its kworkers, read from the threads"
show_kworkers

echo
echo "== wqrtctl status"
wqrtctl status -c /etc/wqrt.conf
exit 0
