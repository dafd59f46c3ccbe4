#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# wqrtd against what only the real kernel does (the patched kernel):
#  - a write the kernel refuses with ERANGE (a reserve over the cap of 64
#    idle workers across the workqueue's pods): logged with its errno, that
#    workqueue left as it was, drift in wqrtctl status, the rest applied;
#  - SIGHUP with a file that no longer covers a workqueue: that workqueue
#    goes back to its original values, the one still covered keeps its
#    profile; SIGTERM then puts everything back.
. "$(dirname "$0")/lib.sh"
ktap_print_header

MOD=${WQRT_TEST_KO:-/lib/wqrt/wqrt_test.ko}
CAPPED=wqrt_test_cull
KEPT=wqrt_test_twin

command -v wqrtd > /dev/null || skip_all "wqrtd is not on PATH"
command -v wqrtctl > /dev/null || skip_all "wqrtctl is not on PATH"
[ "$(series_expected)" = 1 ] ||
	skip_all "kernel without the workqueue RT series (wqrt.series=0, or no policy attribute)"
# the ERANGE of nr_idle_extra is what this tests
reserve_expected ||
	skip_all "a prefix of the series without nr_idle_extra (its patch 9)"
[ -d "$WQDIR/$CAPPED" ] || insmod "$MOD" ||
	skip_all "no $MOD to create $CAPPED and $KEPT"
NCPU=$(nproc)
[ "$NCPU" -ge 2 ] || skip_all "needs 2 CPUs for a reserve that fits one pod and not all"

# 40 fits one pod (64 at most); over the per-CPU scope's pods it does not
cat > "$CONF" <<CONF
[global]
log_level = debug
restore_on_exit = yes
rescan_interval = 0

[wq:$CAPPED]
affinity_scope = cpu
nr_idle_extra = 40
nice = -2

[wq:$KEPT]
nice = -4
CONF

ktap_set_plan 12
snap() { for a in affinity_scope nr_idle_extra nice; do cat "$WQDIR/$1/$a"; done | xargs; }
ORIG_CAPPED=$(snap $CAPPED)
ORIG_KEPT=$(cat "$WQDIR/$KEPT/nice")
ktap_print_msg "$CAPPED before: affinity_scope nr_idle_extra nice = $ORIG_CAPPED"

start_wqrtd
wait_ready
ktap_test_result "the kernel's ERANGE is logged for $CAPPED with its errno" \
	sh -c "grep -F '$CAPPED' '$LOG' | grep -qF 'Numerical result out of range'"
ktap_test_result "...and $CAPPED is left as it was ($ORIG_CAPPED)" \
	[ "$(snap $CAPPED)" = "$ORIG_CAPPED" ]
ktap_test_result "...while $KEPT gets its profile (nice -4)" attr_is $KEPT nice -4
ktap_test_result "...and wqrtd keeps running" alive
wqrtctl status > "$TMPD/status" 2>&1
ktap_test_result "wqrtctl status exits 10: drift on $CAPPED" [ $? -eq 10 ]
sed 's/^/#   /' "$TMPD/status"

# a reload that drops $CAPPED and changes $KEPT
cat > "$CONF" <<CONF
[global]
log_level = debug
restore_on_exit = yes
rescan_interval = 0

[wq:$KEPT]
nice = -5
CONF
kill -HUP "$DPID"
ktap_test_result "SIGHUP: $KEPT gets its new profile (nice -5)" \
	wait_for 5 attr_is $KEPT nice -5
ktap_test_result "...$CAPPED, no longer covered, is as it was ($ORIG_CAPPED)" \
	[ "$(snap $CAPPED)" = "$ORIG_CAPPED" ]

# one more: the file drops $KEPT too; it goes back to its original nice
printf '[global]\nrestore_on_exit = yes\nrescan_interval = 0\n' > "$CONF"
kill -HUP "$DPID"
ktap_test_result "SIGHUP without $KEPT: its original nice is put back ($ORIG_KEPT)" \
	wait_for 5 attr_is $KEPT nice "$ORIG_KEPT"
ktap_test_result "...and wqrtctl status: no drift" \
	sh -c 'wqrtctl status > /dev/null 2>&1'

# and a reload that covers it again, then SIGTERM puts it back
printf '[global]\nrestore_on_exit = yes\nrescan_interval = 0\n[wq:%s]\nnice = -6\n' $KEPT > "$CONF"
kill -HUP "$DPID"
ktap_test_result "SIGHUP covering $KEPT again applies it (nice -6)" \
	wait_for 5 attr_is $KEPT nice -6
stop_wqrtd
ktap_test_result "SIGTERM: wqrtd exits 0" [ $? -eq 0 ]
ktap_test_result "SIGTERM: $KEPT back to nice $ORIG_KEPT, $CAPPED as it was" \
	sh -c "[ \"\$(cat '$WQDIR/$KEPT/nice')\" = '$ORIG_KEPT' ] && [ \"\$(for a in affinity_scope nr_idle_extra nice; do cat '$WQDIR/$CAPPED/'\$a; done | xargs)\" = '$ORIG_CAPPED' ]"
finish
