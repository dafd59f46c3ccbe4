#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# wqrtd on the patched kernel (sysfs mode): a workqueue created after the
# daemon started (module load) gets its profile, its kworkers run with the
# policy, drift is corrected, SIGHUP with a broken file keeps the profile,
# a good one is applied, SIGTERM puts the originals back.
. "$(dirname "$0")/lib.sh"

WQ=wqrt_test_unbound
MOD=${WQRT_TEST_KO:-/lib/wqrt/wqrt_test.ko}

command -v wqrtd > /dev/null || skip_all "wqrtd is not on PATH"
[ -e "$WQDIR/writeback/policy" ] ||
	skip_all "kernel without the workqueue RT series (no policy attribute)"
[ -e "$MOD" ] || [ -d "$WQDIR/$WQ" ] ||
	skip_all "no $MOD to create $WQ"

cat > "$CONF" <<CONF
[global]
log_level = debug
restore_on_exit = yes
rescan_interval = 2

[profile:rt-critical]
policy = fifo
rtprio = 20
nr_idle_extra = 2
private = yes

[wq:$WQ]
profile = rt-critical

# WQ_MEM_RECLAIM: has the rescuer the test looks at
[wq:wqrt_test_reclaim]
profile = rt-critical
CONF

plan 16
start_wqrtd
check "wqrtd starts in sysfs mode" wait_for 10 logged "sysfs mode"
[ -d "$WQDIR/$WQ" ] || insmod "$MOD"
check "the test module creates $WQ" wait_for 5 test -d "$WQDIR/$WQ"
check "$WQ gets policy fifo (uevent)" wait_for 10 attr_is $WQ policy fifo
check "$WQ gets rtprio 20" attr_is $WQ rtprio 20
# nr_idle_extra comes last in the series: without it wqrtd says so and
# applies the rest of the profile.
if [ -e "$WQDIR/$WQ/nr_idle_extra" ]; then
	check "$WQ gets nr_idle_extra 2" attr_is $WQ nr_idle_extra 2
	attrs="policy rtprio nr_idle_extra private" originals="normal 0 0 0"
else
	check "$WQ: wqrtd warns that the kernel has no nr_idle_extra" \
		logged "$WQ: no nr_idle_extra attribute on this workqueue; skipped"
	attrs="policy rtprio private" originals="normal 0 0"
fi
check "$WQ gets private 1" attr_is $WQ private 1
check "every kworker of its pools is fifo 20" \
	wait_for 5 all_sched "1 20" $(pool_kworkers $WQ)
# The comm of a rescuer is cut to 15 bytes ("kworker/R-wqrt_"): the only
# wqrt_* workqueue with a rescuer is wqrt_test_reclaim, profiled above.
R=$(kworkers "kworker/R-wqrt_")
if [ -n "$R" ]; then
	check "the rescuer of wqrt_test_reclaim is fifo 20" \
		wait_for 5 all_sched "1 20" $R
else
	skip "the rescuer of wqrt_test_reclaim is fifo 20" "no rescuer found"
fi
wqrtctl status -c "$CONF" > "$TMPD/status"
check "wqrtctl status shows no drift" [ $? -eq 0 ]

# someone moves a pool worker back to SCHED_OTHER: the rescan fixes it
K=$(pool_kworkers $WQ | head -n 1)
if command -v chrt > /dev/null && [ -n "$K" ] && chrt -o -p 0 "$K"; then
	check "a kworker changed behind wqrtd's back is corrected" \
		wait_for 6 all_sched "1 20" "$K"
else
	skip "a kworker changed behind wqrtd's back is corrected" \
		"no chrt, or no pool kworker to change"
fi

printf '[wq:%s]\npolicy = fifo\nrtpri = 30\n' $WQ > "$CONF"
kill -HUP "$DPID"
check "SIGHUP with a broken file is reported" \
	wait_for 5 logged "the old profiles stay in force"
check "...and the old profile stays (rtprio 20)" attr_is $WQ rtprio 20
check "...and wqrtd keeps running" alive

printf '[wq:%s]\npolicy = fifo\nrtprio = 30\n' $WQ > "$CONF"
kill -HUP "$DPID"
check "SIGHUP with a good file applies it (rtprio 30)" \
	wait_for 5 attr_is $WQ rtprio 30

stop_wqrtd
check "SIGTERM: wqrtd exits 0" [ $? -eq 0 ]
now=$(for a in $attrs; do cat "$WQDIR/$WQ/$a"; done | xargs)
check "SIGTERM: originals back ($attrs: $originals)" [ "$now" = "$originals" ]
finish
