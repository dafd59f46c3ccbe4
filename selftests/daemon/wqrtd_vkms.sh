#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The GPU case of seeds/004 on vkms: vkms_composer, an ordered workqueue
# whose driver did not ask for WQ_SYSFS, is in sysfs because the kernel
# command line says workqueue.sysfs=...,vkms_composer (run-vm.sh). wqrtd
# makes it fifo 20 on CPU 0; vkms composes frames (CRC capture, one
# vkms_composer_worker per vblank), and every one of those work items ran
# in a kworker that was SCHED_FIFO 20, on CPU 0. With that profile, the
# display survives 400 blank/unblank cycles under capture: 6.12's vkms
# waited for its vblank timer's callback under the locks that callback
# takes, and the guest hung within the first 50 (kernel/stable/0002). With
# the composer worker made to hold its lock long (a test knob), no work is
# queued on a composer state that a commit has freed (kernel/stable/0004).
# SIGTERM puts the workqueue back.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/wqrt_trace.sh"

ktap_print_header

WQ=vkms_composer
PARAM=/sys/module/workqueue/parameters/sysfs
CRC=$(helper vkms_crc || helper selftests/vkms_crc)

command -v wqrtd > /dev/null || skip_all "wqrtd is not on PATH"
[ "$(series_expected)" = 1 ] ||
	skip_all "kernel without the workqueue RT series (wqrt.series=0, or no policy attribute)"
[ -e "$PARAM" ] || skip_all "kernel without workqueue.sysfs= (no $PARAM)"
case ",$(cat $PARAM)," in
*,$WQ,*) ;;
*) skip_all "booted without $WQ in workqueue.sysfs= ($(cat $PARAM))" ;;
esac
[ -d "$WQDIR/$WQ" ] || skip_all "no $WQ in sysfs: kernel without vkms?"
[ -e /dev/fb0 ] || skip_all "no /dev/fb0 (CONFIG_FB_DEVICE) to light vkms's CRTC"
[ -n "$CRC" ] || skip_all "no vkms_crc helper"
command -v taskset > /dev/null || skip_all "no taskset to run the blank cycles on CPU 0"
trace_ready || skip_all "no workqueue trace events in tracefs"

cat > "$CONF" <<CONF
[global]
log_level = debug
restore_on_exit = yes
rescan_interval = 2

# ordered, no WQ_SYSFS: in sysfs through workqueue.sysfs=$WQ
[wq:$WQ]
policy = fifo
rtprio = 20
cpumask = 0
CONF

ktap_set_plan 11
ktap_test_result "$WQ (ordered, no WQ_SYSFS) is in sysfs through workqueue.sysfs=" \
	test -e "$WQDIR/$WQ/policy"
ktap_test_result "...with max_active read-only" \
	[ "$(stat -c %a "$WQDIR/$WQ/max_active")" = 444 ]
ORIG_CPUMASK=$(cat "$WQDIR/$WQ/cpumask")

start_wqrtd
# ready: the first scan applied the whole profile (policy first, then
# rtprio and cpumask)
wait_ready
ktap_test_result "wqrtd applies fifo to $WQ" attr_is $WQ policy fifo
ktap_test_result "...rtprio 20" attr_is $WQ rtprio 20
ktap_test_result "...cpumask CPU 0" \
	[ "$(printf '%d' "0x$(cat "$WQDIR/$WQ/cpumask")")" -eq 1 ]
if trace_run "$TMPD/trace" "$CRC" 30 > "$TMPD/crc" 2>&1; then
	ktap_test_pass "vkms composes 30 frames (CRC capture)"
else
	ktap_test_fail "vkms composes 30 frames (CRC capture)"
	sed 's/^/#   /' "$TMPD/crc"
fi
ktap_test_result "every vkms_composer_worker ran in a fifo 20 kworker on CPU 0" \
	trace_all_rt "$TMPD/trace" $WQ vkms_composer_worker "1 20" 0
# From CPU 0, where the FIFO 20 composer preempts the blanking task while
# it holds the vblank locks: the window the deadlock needed.
if taskset 1 "$CRC" --cycles 400 > "$TMPD/cycles" 2>&1; then
	ktap_test_pass "vkms survives 400 blank/unblank cycles under capture"
else
	ktap_test_fail "vkms survives 400 blank/unblank cycles under capture"
	sed 's/^/#   /' "$TMPD/cycles"
fi

# The composer state's lifetime: the vblank timer's callback picks
# output->composer_state, then queues that state's work; a commit that
# blanks the output replaces the state, flushes the old state's work and
# frees it. On PREEMPT_RT the callback runs in a thread that the FIFO
# composer worker or any RT task can preempt between the two, and the
# blanking commit then frees the state before its work is queued: a crash
# in compose_active_planes() in make check. The test knob
# vkms.debug_vblank_queue_delay_us (kernel/variants/debug-knobs) holds the
# callback 8 ms there at every frame; a work queued on a freed state shows
# as an ODEBUG report or an oops (which the VM runner fails on too).
KNOB=/sys/module/vkms/parameters/debug_vblank_queue_delay_us
reports() { dmesg | grep -cE 'ODEBUG|general protection|BUG:|Oops|WARNING:'; }
composer_state_lifetime() {
	_before=$(reports)
	echo 8000 > "$KNOB" || return 1
	taskset 1 "$CRC" --cycles 200 > "$TMPD/late" 2>&1
	_rc=$?
	echo 0 > "$KNOB"
	_after=$(reports)
	ktap_print_msg "200 cycles with the vblank callback held 8 ms before it queues: exit $_rc, $((_after - _before)) new kernel report(s)"
	[ "$_rc" = 0 ] && [ "$_after" = "$_before" ]
}
if [ -w "$KNOB" ]; then
	ktap_test_result "vkms queues no composer work on a state a commit freed (200 cycles, callback held 8 ms)" \
		composer_state_lifetime
else
	ktap_test_skip "vkms queues no composer work on a state a commit freed" \
		"no $KNOB (a kernel without the test knobs of kernel/variants/debug-knobs)"
fi

stop_wqrtd
ktap_test_result "SIGTERM: wqrtd exits 0" [ $? -eq 0 ]
ktap_test_result "SIGTERM: $WQ back to normal, rtprio 0, cpumask $ORIG_CPUMASK" \
	[ "$(cat "$WQDIR/$WQ/policy" "$WQDIR/$WQ/rtprio" "$WQDIR/$WQ/cpumask" | xargs)" = "normal 0 $ORIG_CPUMASK" ]
finish
