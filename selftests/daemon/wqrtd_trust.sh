#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Issue 30.7: every policy wqrtd sets carries SCHED_FLAG_RESET_ON_FORK
# (chrt -p shows it), as rtkit's do: a task that takes a reused pid in
# the window and forks passes no real-time policy on. Valid on the plain
# and the patched kernel.
. "$(dirname "$0")/lib.sh"
ktap_print_header

command -v wqrtd > /dev/null || skip_all "wqrtd is not on PATH"
command -v chrt > /dev/null || skip_all "no chrt"
RESCUER=$(kthreads kworker/R-mm_percpu_wq)
[ -n "$RESCUER" ] || skip_all "no kworker/R-mm_percpu_wq"

ktap_set_plan 2
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

finish
