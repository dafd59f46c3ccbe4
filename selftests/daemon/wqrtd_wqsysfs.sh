#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# workqueue.sysfs=: workqueues whose driver did not ask for WQ_SYSFS, put
# in sysfs by the boot parameter (run-vm.sh boots every test VM with
# "workqueue.sysfs=netns,kvfree_rcu_reclaim,vkms_composer,events,wqrt_reach_*").
#  - early-boot ones (netns, ordered; kvfree_rcu_reclaim, unbound) are
#    registered once sysfs is up, a module's as soon as it is allocated;
#  - their max_active is read-only: the driver chose it;
#  - a driver that applies attributes afterwards (at probe, after its
#    init) keeps what was written in sysfs, and sets the rest;
#  - a driver that also registers its workqueue itself, before or after
#    applying, during its init or after, gets 0 and takes it over
#    (max_active writable, its applies set everything, as with WQ_SYSFS);
#  - a WQ_SYSFS workqueue allocated under cpus_read_lock() and destroyed,
#    with the sysfs files written, leaves no lockdep report: the lock
#    order of kernel/workqueue.c's wq_sysfs_mutex;
#  - a matching per-cpu workqueue (events, wqrt_reach_percpu) is refused
#    with a warning naming it;
#  - a name already taken in sysfs (the second wqrt_reach_twin) warns and
#    leaves the later workqueue out of sysfs, allocated and working;
#  - destroying a workqueue frees its name (rmmod, insmod again);
#  - wqrtd makes netns fifo 20 on CPU 0, and every cleanup_net work item
#    (one per network namespace that goes away) runs in such a kworker.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/wqrt_trace.sh"

ktap_print_header

PARAM=/sys/module/workqueue/parameters/sysfs
MOD=${WQRT_REACH_KO:-/lib/wqrt/wqrt_reach.ko}
WQ=netns

[ -e "$PARAM" ] || skip_all "kernel without workqueue.sysfs= (no $PARAM)"
GLOBS=$(cat $PARAM)
case ",$GLOBS," in
*,netns,*) ;;
*) skip_all "booted without netns in workqueue.sysfs= ($GLOBS)" ;;
esac

mode_is() { [ "$(stat -c %a "$WQDIR/$1/$2")" = "$3" ]; }
# the kernel log since mark_log
mark_log() { LOGMARK=$(dmesg | wc -l); }
logged_kernel() { dmesg | tail -n +$((LOGMARK + 1)) | grep -qF "$1"; }
not_logged_kernel() { ! logged_kernel "$1"; }
absent() { [ ! -e "$WQDIR/$1" ]; }
# the driver's calls, see selftests/modules/wqrt_reach.c
PROBE=/sys/module/wqrt_reach/parameters/probe
probe() { echo "$1" 2>/dev/null > "$PROBE"; }
attrs_are() { # WQ "FILE=VALUE..."
	_wq=$1; shift
	for _kv in "$@"; do
		[ "$(cat "$WQDIR/$_wq/${_kv%%=*}")" = "${_kv#*=}" ] || {
			ktap_print_msg "$_wq: ${_kv%%=*} is $(cat "$WQDIR/$_wq/${_kv%%=*}"), not ${_kv#*=}"
			return 1
		}
	done
}
ALL_CPUS=$(cat "$WQDIR/cpumask")
reach_wqs() { ls -d "$WQDIR"/wqrt_reach_* 2>/dev/null | sed 's|.*/||' | xargs; }

# writing max_active fails, and changes nothing
max_active_fixed() {
	_v=$(cat "$WQDIR/$1/max_active")
	! echo 1 2>/dev/null > "$WQDIR/$1/max_active" &&
		[ "$(cat "$WQDIR/$1/max_active")" = "$_v" ]
}

ktap_set_plan 34
ktap_print_msg "workqueue.sysfs=$GLOBS"
ktap_test_result "netns (ordered, allocated before sysfs) is in sysfs" test -d "$WQDIR/netns"
ktap_test_result "...with max_active read-only, as an ordered workqueue" \
	mode_is netns max_active 444
ktap_test_result "kvfree_rcu_reclaim (unbound, allocated before sysfs) is in sysfs" \
	test -e "$WQDIR/kvfree_rcu_reclaim/policy"
ktap_test_result "...with max_active read-only: its driver chose it" \
	mode_is kvfree_rcu_reclaim max_active 444
ktap_test_result "...and a write fails, max_active unchanged" \
	max_active_fixed kvfree_rcu_reclaim
ktap_test_result "events (per-cpu) matches but is not in sysfs" absent events

if [ -e "$MOD" ]; then
	mark_log
	ktap_test_result "wqrt_reach.ko: every workqueue allocated and ran" insmod "$MOD"
	ktap_test_result "wqrt_reach_unbound is in sysfs" \
		test -e "$WQDIR/wqrt_reach_unbound/policy"
	ktap_test_result "...with max_active read-only" \
		mode_is wqrt_reach_unbound max_active 444
	ktap_test_result "wqrt_reach_ordered is in sysfs, max_active read-only" \
		mode_is wqrt_reach_ordered max_active 444
	ktap_test_result "unbound, ordered and selfreg were in sysfs as soon as allocated" \
		[ "$(cat /sys/module/wqrt_reach/parameters/in_sysfs_at_alloc)" = 3 ]
	ktap_test_result "wqrt_reach_percpu is not" absent wqrt_reach_percpu
	ktap_test_result "...and the log says why" \
		logged_kernel "wqrt_reach_percpu: matches workqueue.sysfs= but is per-cpu"
	ktap_test_result "one wqrt_reach_twin in sysfs, the second one warned about" \
		logged_kernel "wqrt_reach_twin: name already taken in sysfs"
	ktap_test_result "no backtrace from sysfs for the taken name" \
		not_logged_kernel "cannot create duplicate filename"
	if [ "$(cat /sys/module/wqrt_reach/parameters/selfreg_err)" = -95 ]; then
		for t in "selfreg in init" "probe: in sysfs at once" \
			 "probe: apply keeps what was written" \
			 "probe: apply sets the rest" "probe: register after apply" \
			 "probe: max_active writable" "probe: taken over" \
			 "probe: free" "probe: register before apply" \
			 "lock order"; do
			ktap_test_skip "$t" "the kernel exports neither apply_workqueue_attrs() nor workqueue_sysfs_register() (the test kernels' debug knobs do)"
		done
	else
		ktap_test_result "wqrt_reach_selfreg, applied then registered by its driver in init: 0, in sysfs once, max_active writable" \
			eval '[ "$(cat /sys/module/wqrt_reach/parameters/selfreg_err)" = 0 ] &&
			      not_logged_kernel "wqrt_reach_selfreg: name already taken" &&
			      mode_is wqrt_reach_selfreg max_active 644'
		# at probe, after the init: the administrator writes first
		probe alloc
		ktap_test_result "probe after init: wqrt_reach_probe in sysfs at once, max_active read-only" \
			mode_is wqrt_reach_probe max_active 444
		echo -5 > "$WQDIR/wqrt_reach_probe/nice"
		echo 1 > "$WQDIR/wqrt_reach_probe/cpumask"
		ktap_test_result "...the driver's apply (nice 5, strict, every CPU) succeeds and keeps the written nice -5, cpumask 1" \
			eval 'probe apply && attrs_are wqrt_reach_probe nice=-5 cpumask=1'
		ktap_test_result "...and sets what was not written: affinity_strict 1" \
			attrs_are wqrt_reach_probe affinity_strict=1
		mark_log
		ktap_test_result "...its workqueue_sysfs_register() after that: 0, no 'name already taken'" \
			eval 'probe register && not_logged_kernel "wqrt_reach_probe: name already taken"'
		ktap_test_result "...max_active writable: the driver took it over" \
			eval 'mode_is wqrt_reach_probe max_active 644 && echo 4 > "$WQDIR/wqrt_reach_probe/max_active"'
		ktap_test_result "...and its next apply sets every attribute, as with WQ_SYSFS" \
			eval 'probe apply && attrs_are wqrt_reach_probe nice=5 cpumask="$ALL_CPUS"'
		probe free
		ktap_test_result "...free: it left sysfs" absent wqrt_reach_probe
		mark_log
		ktap_test_result "register right after alloc, before any apply: 0, once, then free" \
			eval 'probe alloc && probe register && test -d "$WQDIR/wqrt_reach_probe" &&
			      not_logged_kernel "wqrt_reach_probe: name already taken" && probe free'
		# a writer of the files of a workqueue's directory, then a WQ_SYSFS
		# allocation under cpus_read_lock() and its destruction
		echo 0 > "$WQDIR/wqrt_reach_unbound/nice"
		mark_log
		if grep -qs 'debug_locks: *1' /proc/lockdep_stats; then
			ktap_test_result "WQ_SYSFS workqueue allocated under cpus_read_lock() and destroyed: no lockdep report" \
				eval 'probe locked && not_logged_kernel "possible circular locking dependency" &&
				      absent wqrt_reach_locked'
		else
			ktap_test_skip "lock order" "lockdep is not on (no debug_locks: 1 in /proc/lockdep_stats)"
		fi
	fi
	rmmod wqrt_reach
	ktap_test_result "rmmod: every wqrt_reach_* left sysfs" [ -z "$(reach_wqs)" ]
	insmod "$MOD"
	ktap_test_result "insmod again: the same ones are back" \
		[ "$(reach_wqs)" = "wqrt_reach_ordered wqrt_reach_selfreg wqrt_reach_twin wqrt_reach_unbound" ]
	rmmod wqrt_reach
else
	# the image always has it (mkinitramfs.sh): missing is a failure
	for t in "insmod" "unbound" "unbound max_active" "ordered" \
		 "at alloc" "percpu" "percpu log" "twin" "no backtrace" \
		 "selfreg in init" "probe: in sysfs at once" \
		 "probe: apply keeps what was written" "probe: apply sets the rest" \
		 "probe: register after apply" "probe: max_active writable" \
		 "probe: taken over" "probe: free" "probe: register before apply" \
		 "lock order" "rmmod" "insmod again"; do
		ktap_test_fail "wqrt_reach.ko: $t (no $MOD)"
	done
fi

if ! command -v wqrtd > /dev/null || ! trace_ready ||
   ! unshare -n true 2> /dev/null; then
	for t in policy rtprio cpumask cleanup_net rescuer sigterm restore; do
		ktap_test_skip "wqrtd on netns: $t" "needs wqrtd, trace events and unshare -n"
	done
	finish
fi

cat > "$CONF" <<CONF
[global]
log_level = debug
restore_on_exit = yes
rescan_interval = 2

# ordered, no WQ_SYSFS: in sysfs through workqueue.sysfs=netns
[wq:$WQ]
policy = fifo
rtprio = 20
cpumask = 0
CONF

ORIG_CPUMASK=$(cat "$WQDIR/$WQ/cpumask")
start_wqrtd
# ready: the first scan applied the whole profile (policy first, then
# rtprio and cpumask)
wait_ready
ktap_test_result "wqrtd applies fifo to $WQ" attr_is $WQ policy fifo
ktap_test_result "...rtprio 20" attr_is $WQ rtprio 20
ktap_test_result "...cpumask CPU 0" \
	[ "$(printf '%d' "0x$(cat "$WQDIR/$WQ/cpumask")")" -eq 1 ]
netns_churn() {
	for _ in 1 2 3 4 5; do unshare -n true || return 1; done
}
trace_run "$TMPD/trace" netns_churn
ktap_test_result "every cleanup_net (5 namespaces gone) ran in a fifo 20 kworker on CPU 0" \
	trace_all_rt "$TMPD/trace" $WQ cleanup_net "1 20" 0
# netns is WQ_MEM_RECLAIM (create_singlethread_workqueue): it always has
# a rescuer, none found is a failure
R=$(kthreads kworker/R-netns)
# shellcheck disable=SC2086 # one pid a word
ktap_test_result "the rescuer of netns ($R) is fifo 20" all_sched "1 20" $R
stop_wqrtd
ktap_test_result "SIGTERM: wqrtd exits 0" [ $? -eq 0 ]
ktap_test_result "SIGTERM: $WQ back to normal, rtprio 0, cpumask $ORIG_CPUMASK" \
	[ "$(cat "$WQDIR/$WQ/policy" "$WQDIR/$WQ/rtprio" "$WQDIR/$WQ/cpumask" | xargs)" = "normal 0 $ORIG_CPUMASK" ]
finish
