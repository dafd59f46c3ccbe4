#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# [kworker:GLOB] sections (the fallback for kernels without the series,
# valid on both): current unbound kworkers get the policy, new ones get it
# from the proc connector alone (no rescans), SIGTERM puts them back.
. "$(dirname "$0")/lib.sh"
ktap_print_header

command -v wqrtd > /dev/null || skip_all "wqrtd is not on PATH"
[ -e "$WQDIR/writeback/nice" ] || skip_all "no $WQDIR/writeback"

cat > "$CONF" <<CONF
[global]
log_level = debug
restore_on_exit = yes
; netlink events only: prove the proc connector path
rescan_interval = 0

[kworker:kworker/u*]
policy = fifo
rtprio = 3
CONF

ktap_set_plan 6
BEFORE=$(kthreads kworker/u)
start_wqrtd
# the mode the kernel must give, as the runner declares it
if [ "$(series_expected)" = 1 ]; then M="sysfs mode"; else M="fallback mode"; fi
ready_says() { wait_ready && logged "$1"; }
ktap_test_result "wqrtd is ready and says $M" ready_says "$M"
ktap_test_result "existing unbound kworkers are fifo 3" \
	all_sched "1 3" $BEFORE

# a new pool for writeback (another nice) makes kthreadd fork kworkers
new_kworkers() {
	NEW=
	for p in $(kthreads kworker/u); do
		case " $(echo $BEFORE) " in *" $p "*) ;; *) NEW="$NEW $p" ;; esac
	done
	[ -n "$NEW" ]
}
OLDNICE=$(cat $WQDIR/writeback/nice)
echo -7 > $WQDIR/writeback/nice
# the new pool's first worker, made for it at once
wait_for 5 new_kworkers
if [ -n "$NEW" ]; then
	ktap_test_result "new unbound kworkers ($(echo $NEW)) are fifo 3" \
		wait_for 5 all_sched "1 3" $NEW
else
	ktap_test_fail "changing writeback's nice created no new kworker"
fi
echo "$OLDNICE" > $WQDIR/writeback/nice
ktap_test_result "wqrtd is still running" alive

stop_wqrtd
ktap_test_result "SIGTERM: wqrtd exits 0" [ $? -eq 0 ]
ktap_test_result "SIGTERM: kworkers back to SCHED_OTHER" all_sched "0 0" $BEFORE $NEW
finish
