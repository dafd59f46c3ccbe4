#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Issue 30.7: every policy wqrtd sets carries SCHED_FLAG_RESET_ON_FORK
# (chrt -p shows it), as rtkit's do: a task that takes a reused pid in
# the window and forks passes no real-time policy on. Issue 30.8: once
# the proc connector is subscribed and the buffers are sized, the
# running daemon holds no CAP_NET_ADMIN, and still CAP_SYS_NICE. Valid
# on the plain and the patched kernel.
. "$(dirname "$0")/lib.sh"
ktap_print_header

command -v wqrtd > /dev/null || skip_all "wqrtd is not on PATH"
command -v chrt > /dev/null || skip_all "no chrt"
RESCUER=$(kthreads kworker/R-mm_percpu_wq)
[ -n "$RESCUER" ] || skip_all "no kworker/R-mm_percpu_wq"

ktap_set_plan 5
cat > "$CONF" <<CONF
[kworker:kworker/R-mm_percpu_wq]
policy = fifo
rtprio = 3
CONF
start_wqrtd
ktap_test_result "wqrtd makes kworker/R-mm_percpu_wq FIFO 3" \
	wait_for 20 all_sched "1 3" "$RESCUER"
chrt -p "$RESCUER" > "$TMPD/chrt" 2>&1
sed 's/^/#   /' "$TMPD/chrt"
ktap_test_result "...with SCHED_RESET_ON_FORK (chrt -p)" \
	grep -q 'SCHED_FIFO|SCHED_RESET_ON_FORK' "$TMPD/chrt"

# CapEff, CapPrm of the running daemon: hex, CAP_NET_ADMIN is bit 12,
# CAP_SYS_NICE bit 23
cap_set() { # FIELD BIT: is the capability in the set?
	_v=$(sed -n "s/^$1:[[:space:]]*//p" "/proc/$DPID/status")
	[ $(((0x$_v >> $2) & 1)) = 1 ]
}
grep '^Cap' "/proc/$DPID/status" | sed 's/^/#   /'
no_cap() { ! cap_set "$@"; }
ktap_test_result "the running wqrtd has no CAP_NET_ADMIN (CapEff)" \
	no_cap CapEff 12
ktap_test_result "...nor can it take it back (CapPrm)" no_cap CapPrm 12
ktap_test_result "...and still has CAP_SYS_NICE" cap_set CapEff 23
finish
