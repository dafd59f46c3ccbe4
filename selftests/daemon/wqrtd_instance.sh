#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Issue 30.1: one wqrtd at a time holds the originals. The reproduction:
# a service-like wqrtd --foreground holds a profile that made writeback's
# rescuer FIFO 33 (a [wq:] section on a kernel without the series, which
# sets the rescuer with sched_setattr(); with the series, which gives the
# rescuer the workqueue's sysfs policy itself, a [kworker:] section does
# the same). A quick wqrtd --once with another file took the service's
# originals as a previous run's, put the rescuer back and saved its own;
# the service applied FIFO 33 again and never saved; after a kill -9 of
# the service, wqrtctl restore put back no kworker and the rescuer stayed
# FIFO 33 for good. Now --once refuses (75) while the service runs, and
# the restore after the crash puts the rescuer back.
. "$(dirname "$0")/lib.sh"
ktap_print_header

command -v wqrtd > /dev/null || skip_all "wqrtd is not on PATH"
command -v wqrtctl > /dev/null || skip_all "wqrtctl is not on PATH"
[ -e "$WQDIR/writeback/nice" ] || skip_all "no $WQDIR/writeback"
# writeback is WQ_MEM_RECLAIM: its rescuer's name is cut to 15 bytes
RESCUER=$(kthreads kworker/R-write)
[ -n "$RESCUER" ] || skip_all "no rescuer of writeback"

ktap_set_plan 7
ORIG=$(task_sched "$RESCUER")
NICE=$(cat "$WQDIR/writeback/nice")
rm -f /run/wqrtd/originals
if [ -e "$WQDIR/writeback/policy" ]; then
	SECTION="kworker:kworker/R-write*"
else
	SECTION="wq:writeback"
fi
# a rescan a second: the service applies its profile again after --once
cat > "$CONF" <<CONF
[global]
rescan_interval = 1
[$SECTION]
policy = fifo
rtprio = 33
CONF
printf '[wq:writeback]\nnice = -3\n' > "$TMPD/other.conf"

start_wqrtd
ktap_test_result "the service ([$SECTION]) makes the rescuer FIFO 33" \
	wait_for 20 all_sched "1 33" "$RESCUER"
wqrtd --once -c "$TMPD/other.conf" > "$TMPD/once.log" 2>&1
rc=$?
sed 's/^/#   once: /' "$TMPD/once.log"
ktap_test_result "wqrtd --once beside it: refused (75)" [ $rc -eq 75 ]
ktap_test_result "...naming the wqrtd that holds the originals" \
	grep -qF "pid $DPID (wqrtd) holds /run/wqrtd" "$TMPD/once.log"
unchanged() { attr_is writeback nice "$NICE" && all_sched "1 33" "$RESCUER"; }
ktap_test_result "...and changing nothing" unchanged

# (what --once put back, the service's next scan sets again)
wait_for 10 all_sched "1 33" "$RESCUER"
# the service dies without putting anything back
kill -9 "$DPID"
wait "$DPID" 2> /dev/null
DPID=
ktap_test_result "after kill -9 the rescuer is still FIFO 33" all_sched "1 33" "$RESCUER"
wqrtctl restore > "$TMPD/restore.log" 2>&1
rc=$?
sed 's/^/#   restore: /' "$TMPD/restore.log"
ktap_test_result "wqrtctl restore exits 0" [ $rc -eq 0 ]
ktap_test_result "the rescuer is back to its original policy ($ORIG)" \
	all_sched "$ORIG" "$RESCUER"
finish
