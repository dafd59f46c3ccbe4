#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# dump.sh TEST ROUND: what run.sh's watchdog prints when TEST stalls
echo "# STALL in $1 round $2 after 120 s:"
sed 's/^/#   /' /tmp/v.out
for p in /proc/[0-9]*; do
	w=$(cat "$p/wchan" 2>/dev/null)
	case "$w" in
	worker_thread | smpboot_thread_fn | kthreadd | rescuer_thread | irq_thread | rcu_gp_kthread | do_wait | 0 | "") continue ;;
	esac
	echo "# $(awk '{ print $3 }' "$p/stat" 2>/dev/null) ${p#/proc/} $(cat "$p/comm") wchan=$w"
	sed 's/^/#    /' "$p/stack" 2>/dev/null
done
echo w >/proc/sysrq-trigger
dmesg | tail -300 | sed 's/^/# k: /'
echo "not ok 999 stalled"
echo o >/proc/sysrq-trigger
