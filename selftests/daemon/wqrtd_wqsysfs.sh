#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# workqueue.sysfs=: workqueues whose driver did not ask for WQ_SYSFS, put
# in sysfs by the boot parameter (run-vm.sh boots every test VM with
# "workqueue.sysfs=netns,kvfree_rcu_reclaim,vkms_composer,events,wqrt_reach_*").
#  - early-boot ones (netns, ordered; kvfree_rcu_reclaim, unbound) are
#    registered once the boot is over, a module's once its init is: after
#    their driver set them up;
#  - their max_active is read-only: the driver chose it;
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
reach_wqs() { ls -d "$WQDIR"/wqrt_reach_* 2>/dev/null | sed 's|.*/||' | xargs; }

# writing max_active fails, and changes nothing
max_active_fixed() {
	_v=$(cat "$WQDIR/$1/max_active")
	! echo 1 2>/dev/null > "$WQDIR/$1/max_active" &&
		[ "$(cat "$WQDIR/$1/max_active")" = "$_v" ]
}

ktap_set_plan 24
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
	ktap_test_result "neither was in sysfs while wqrt_reach's init set them up" \
		[ "$(cat /sys/module/wqrt_reach/parameters/in_sysfs_during_init)" = 0 ]
	ktap_test_result "wqrt_reach_percpu is not" absent wqrt_reach_percpu
	ktap_test_result "...and the log says why" \
		logged_kernel "wqrt_reach_percpu: matches workqueue.sysfs= but is per-cpu"
	ktap_test_result "one wqrt_reach_twin in sysfs, the second one warned about" \
		logged_kernel "wqrt_reach_twin: name already taken in sysfs"
	ktap_test_result "no backtrace from sysfs for the taken name" \
		not_logged_kernel "cannot create duplicate filename"
	rmmod wqrt_reach
	ktap_test_result "rmmod: every wqrt_reach_* left sysfs" [ -z "$(reach_wqs)" ]
	insmod "$MOD"
	ktap_test_result "insmod again: the same ones are back" \
		[ "$(reach_wqs)" = "wqrt_reach_ordered wqrt_reach_twin wqrt_reach_unbound" ]
	rmmod wqrt_reach
else
	# the image always has it (mkinitramfs.sh): missing is a failure
	for t in "insmod" "unbound" "unbound max_active" "ordered" \
		 "after init" "percpu" "percpu log" "twin" "no backtrace" \
		 "rmmod" "insmod again"; do
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
