#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A board user's first hour on Debian's own RT kernel (issue 47), in the
# systemd VM booted with linux-image-6.12-rt-amd64 from the archive: no
# kernel built, no series. docs/board.md's step 0 as a user runs it:
# only wqrtd_*.deb installed with apt (offline: what it needs comes from
# the image's apt cache), check-kernel, who and latency on the 8250's flip
# work (ttyS2 in loopback), a [kworker:kworker/u*] profile with the price
# wqrtctl check states, the measurement again, then stop and remove put
# every kworker back. Run at boot by wqrt-e2e.service; TAP on stdout.

set -u
conf=/etc/wqrt.conf
dropin=/etc/wqrt.conf.d/50-uart-fallback.conf
wqdir=/sys/devices/virtual/workqueue
uart=/dev/ttyS2
# the test's own tools, not a package's: the UART loopback helper
loop=/usr/lib/wqrt/e2e/uart_loop

for lib in "$(dirname "$0")/../lib" /usr/lib/wqrt/lib; do
	[ -f "$lib/ktap.sh" ] && break
done
. "$lib/ktap.sh"
. "$lib/task.sh"
. "$lib/e2e.sh"

# every unbound kworker (kworker/uPOOL:N) runs POLICY PRIO; at least one
unbound_kworkers_are() {
	local want="$1 $2" pid got n=0
	for pid in $(kthreads kworker/u); do
		got=$(task_sched_name "$pid") || continue # exited meanwhile
		n=$((n + 1))
		if [ "$got" != "$want" ]; then
			echo "pid $pid $(task_comm "$pid"): $got, want $want"
			return 1
		fi
	done
	echo "$n unbound kworkers, all $want"
	[ $n -gt 0 ]
}

# run_with_traffic BYTES OUT COMMAND...: COMMAND (a wqrtctl that traces)
# with BYTES through the UART in loopback once it says it is watching
run_with_traffic() {
	local bytes=$1 out=$2 pid rc
	shift 2
	"$@" >"$out" 2>"$out.err" &
	pid=$!
	within 60 grep -qE 'watching|measuring' "$out.err"
	"$loop" "$uart" "$bytes" >"$out.loop" 2>&1 || echo "# uart_loop: $(cat "$out.loop")"
	wait $pid
	rc=$?
	sed 's/^/#   /' "$out.err" "$out"
	return $rc
}

# json_num FILE KEY: the first "KEY": N of FILE
json_num() { sed -n "s/.*\"$2\": \([0-9][0-9]*\).*/\1/p" "$1" | head -n 1; }

# latency_row FILE: latency's JSON row of the flip work names events_unbound
# (6.12 queues the tty flip work there) with items counted
latency_row() {
	grep '"workqueue": "events_unbound", "function": "flush_to_ldisc"' "$1" >"$1.row" &&
		[ "$(json_num "$1.row" count)" -gt 0 ]
}

ktap_print_header
ktap_set_plan 13
ktap_print_msg "kernel $(uname -r) ($(uname -v)), systemd $(systemctl --version | head -n 1 | cut -d' ' -f2)"

debian_rt() {
	uname -r
	cat /sys/kernel/realtime
	case "$(uname -r)" in *-rt-amd64) ;; *) return 1 ;; esac
	[ "$(cat /sys/kernel/realtime)" = 1 ] && [ -d $wqdir/writeback ] &&
		[ ! -e $wqdir/writeback/policy ]
}
check "the VM runs Debian's PREEMPT_RT kernel, without the series (writeback has no policy)" \
	debian_rt

# The quickstart's production install: wqrtd alone, with the two
# libraries it needs; none of the test packages, no compiler.
installed() { # PACKAGE...: each is installed and configured
	local p
	for p in "$@"; do
		[ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" = installed ] ||
			{ echo "$p: not installed"; return 1; }
	done
}
apt_install_wqrtd() {
	(cd /root/wqrt-debs && DEBIAN_FRONTEND=noninteractive apt install -y ./wqrtd_*.deb) \
		>/tmp/apt.out 2>&1
	local rc=$?
	grep -E '^(Need to get|Setting up )|^[EW]: ' /tmp/apt.out
	[ $rc = 0 ] && installed wqrtd libnl-3-200 libiniparser1 &&
		! installed dkms && ! installed wqrt-selftests && ! installed gcc
}
check "apt install ./wqrtd_*.deb installs wqrtd, libnl-3-200 and libiniparser1, and no test package or compiler" \
	apt_install_wqrtd
started_fallback() {
	systemctl is-active -q wqrtd &&
		journalctl -u wqrtd --no-pager | grep -q 'fallback mode'
}
check "the package started wqrtd, which says it runs in fallback mode" \
	within 20 started_fallback

kernel_checked() {
	local rc o
	wqrtctl check-kernel >/tmp/kc.out 2>&1
	rc=$?
	cat /tmp/kc.out
	[ $rc = 0 ] || return 1
	grep -q 'in fallback mode' /tmp/kc.out || return 1
	for o in PREEMPT_RT EVENT_TRACING SYNTH_EVENTS HIST_TRIGGERS PROC_EVENTS; do
		grep -qE "^ok +CONFIG_$o " /tmp/kc.out || { echo "CONFIG_$o not ok"; return 1; }
	done
}
check "wqrtctl check-kernel: exit 0, fallback mode, the RT and tracing options there" \
	kernel_checked

# Measure before any change: which workqueue runs the UART's flip work,
# and how late its items start.
if [ ! -c "$uart" ] || [ ! -x "$loop" ]; then
	ktap_print_msg "no $uart or no $loop: the UART steps fail"
fi
run_with_traffic 512 /tmp/who wqrtctl who --duration 6 flush_to_ldisc
who_rc=$?
check "wqrtctl who flush_to_ldisc: exit 0, the flip work queued on events_unbound, said once why it is not in sysfs" \
	test $who_rc = 0 -a -n "$(grep '^  workqueue events_unbound: [0-9]* work item' /tmp/who)" \
	-a "$(grep -o 'not in sysfs' /tmp/who | wc -l)" = 1
check "...and the kworkers that ran it: unbound ones, SCHED_OTHER before any profile" \
	grep -qE '^    pid [0-9]+ kworker/u[0-9]+:[0-9]+[^ ]* \((unbound pool [0-9]+, normal 0)' /tmp/who

run_with_traffic 4096 /tmp/before wqrtctl latency --json --duration 5 --deadline 2000 flush_to_ldisc
before_rc=$?
check "wqrtctl latency (the baseline): exit 0, the flip work's starts counted" \
	eval '[ $before_rc = 0 ] && latency_row /tmp/before'

# The fallback profile, and the price wqrtctl check states for it.
mkdir -p "${dropin%/*}"
printf '[kworker:kworker/u*]\npolicy = fifo\nrtprio = 20\n' >"$dropin"
priced() {
	wqrtctl check >/tmp/check-conf.out 2>&1
	cat /tmp/check-conf.out
	grep -q "warning: \[kworker:kworker/u\*\] makes the unbound pools' kworkers real-time, and with them every unbound work item of the system" /tmp/check-conf.out &&
		grep -q 'writeback' /tmp/check-conf.out
}
check "wqrtctl check warns that [kworker:kworker/u*] makes every unbound work item RT, writeback's named" \
	priced

systemctl restart wqrtd
check "after systemctl restart wqrtd every unbound kworker is SCHED_FIFO 20" \
	within 10 unbound_kworkers_are fifo 20

# a new pool (writeback at another nice) makes kthreadd fork kworkers:
# wqrtd sees them through the proc connector
before_pids=" $(kthreads kworker/u | xargs) "
nice_was=$(cat $wqdir/writeback/nice)
echo -5 >$wqdir/writeback/nice
new_kworker_rt() {
	local pid n=0
	for pid in $(kthreads kworker/u); do
		case "$before_pids" in *" $pid "*) continue ;; esac
		n=$((n + 1))
		[ "$(task_sched_name "$pid")" = "fifo 20" ] ||
			{ echo "new pid $pid: $(task_sched_name "$pid")"; return 1; }
	done
	echo "$n new unbound kworker(s), all fifo 20"
	[ $n -gt 0 ]
}
check "a kworker/u* forked after the start (writeback at nice -5) is SCHED_FIFO 20 within 3 s" \
	within 3 new_kworker_rt
echo "$nice_was" >$wqdir/writeback/nice

# Measure again, the same way: the user's comparison (its numbers are
# shown, not judged: a VM's are not a board's).
run_with_traffic 4096 /tmp/after wqrtctl latency --json --duration 5 --deadline 2000 flush_to_ldisc
after_rc=$?
check "wqrtctl latency (with the profile): exit 0, the flip work's starts counted" \
	eval '[ $after_rc = 0 ] && latency_row /tmp/after'
ktap_print_msg "flush_to_ldisc p99 start delay: $(json_num /tmp/before.row p99_us) us before, $(json_num /tmp/after.row p99_us) us with [kworker:kworker/u*] fifo 20"

stopped() { systemctl stop wqrtd && within 5 unbound_kworkers_are normal 0; }
check "systemctl stop wqrtd puts every unbound kworker back to SCHED_OTHER" stopped

removed() {
	systemctl start wqrtd && within 10 unbound_kworkers_are fifo 20 || return 1
	DEBIAN_FRONTEND=noninteractive apt remove -y wqrtd >/tmp/remove.out 2>&1 ||
		{ cat /tmp/remove.out; return 1; }
	! systemctl is-active -q wqrtd && [ ! -e /usr/sbin/wqrtd ] && [ -f "$conf" ] &&
		within 5 unbound_kworkers_are normal 0
}
check "apt remove wqrtd (running, profile in force): the kworkers back to SCHED_OTHER, /etc/wqrt.conf kept" \
	removed
ktap_finished
