#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The user's day on the board, in the systemd VM: the three packages
# installed with apt install ./*.deb (what they need besides comes from
# the image's apt cache: the VM has no network), wqrtd started by the
# package with the shipped /etc/wqrt.conf; edit it, restart, check what
# it did, reload, stop; then, with wqrtd running the shipped file again,
# the kselftests from the package with run_kselftest.sh, as a board user
# runs them. Run at boot by wqrt-e2e.service; TAP on stdout (the unit
# sends it to the runner's serial port).

set -u
wq=wqrt_test_unbound
dir=/sys/devices/virtual/workqueue/$wq
conf=/etc/wqrt.conf
# the kselftests as the wqrt-selftests package installs them
ksft=/usr/lib/wqrt-selftests

# The shared helpers: beside this directory in the source tree, or where
# mkimage.sh installs them.
for lib in "$(dirname "$0")/../lib" /usr/lib/wqrt/lib; do
	[ -f "$lib/ktap.sh" ] && break
done
. "$lib/ktap.sh"
. "$lib/task.sh"
. "$lib/e2e.sh"

attr() { cat "$dir/$1"; }

# Every kworker of the workqueue's pools (pool_ids) runs POLICY PRIO.
kworkers_are() {
	local want="$1 $2" pid got seen=0
	for pid in $(wq_kworkers "$wq"); do
		seen=$((seen + 1))
		got=$(task_sched_name "$pid") || continue
		if [ "$got" != "$want" ]; then
			echo "kworker pid $pid ($(task_comm "$pid")): $got, want $want"
			return 1
		fi
	done
	[ $seen -gt 0 ] || { echo "no kworker found for pools $(cat "$dir/pool_ids")"; return 1; }
}

wq_is() { # POLICY RTPRIO NR_IDLE_EXTRA PRIVATE
	[ "$(attr policy) $(attr rtprio) $(attr nr_idle_extra) $(attr private)" = "$*" ]
}

# sample_rt OUT: until OUT.stop exists, every 10 ms, the workqueue's
# policy attribute and the policy of every kworker of its pools (looked
# up again when pool_ids changes); then "SAMPLES NON_RT" in OUT, and one
# line per sample that was not SCHED_FIFO in OUT.bad. read builtins, and
# read -t on a pipe that never speaks for the 10 ms: no fork per sample.
sample_rt() {
	local out=$1 n=0 bad=0 ids= pids= pid line pol fd
	: >"$out.bad"
	exec {fd}<> <(:)
	while [ ! -e "$out.stop" ]; do
		read -r line <"$dir/pool_ids"
		if [ "$line" != "$ids" ]; then
			ids=$line
			pids=$(wq_kworkers "$wq")
		fi
		read -r pol <"$dir/policy"
		if [ "$pol" != fifo ]; then
			bad=$((bad + 1))
			echo "sample $n: $wq policy $pol" >>"$out.bad"
		fi
		for pid in $pids; do
			read -r line 2>/dev/null <"/proc/$pid/stat" || continue
			# field 41, the policy: the 39th after the comm
			set -- ${line##*) }
			if [ "${39}" != 1 ]; then
				bad=$((bad + 1))
				echo "sample $n: pid $pid policy ${39}" >>"$out.bad"
			fi
		done
		n=$((n + 1))
		read -r -t 0.01 -u "$fd"
	done
	exec {fd}<&-
	echo "$n $bad" >"$out"
}

# rt_throughout DESCRIPTION COMMAND...: COMMAND succeeds, with every
# sample of sample_rt, from before it until wqrtd runs again (a new main
# pid, READY=1: after its first scan), SCHED_FIFO
rt_throughout() {
	local d=$1 s=/tmp/sample old rc samples bad
	shift
	rm -f "$s" "$s.stop" "$s.bad"
	old=$(systemctl show -p MainPID --value wqrtd)
	sample_rt "$s" &
	"$@" >/tmp/rt.out 2>&1
	rc=$?
	within 90 bash -c "p=\$(systemctl show -p MainPID --value wqrtd)
		[ \"\$p\" != $old ] && [ \"\$p\" != 0 ] && systemctl is-active -q wqrtd"
	touch "$s.stop"
	wait
	read -r samples bad <"$s"
	echo "# $*: rc $rc, $samples samples every 10 ms, $bad not SCHED_FIFO; pid $old -> $(systemctl show -p MainPID --value wqrtd)"
	sed 's/^/#   /' /tmp/rt.out | tail -n 5
	head -n 5 "$s.bad" | sed 's/^/#   /'
	ktap_test_result "$d ($samples samples, $bad not RT)" \
		test "$rc" = 0 -a "$bad" = 0 -a "${samples:-0}" -ge 10
}

ktap_print_header
ktap_set_plan 54
ktap_print_msg "kernel $(uname -r), systemd $(systemctl --version | head -n 1 | cut -d' ' -f2)"

# The test module as DKMS installs it on a board: modprobe finds it.
check "modprobe wqrt_test loads the test module the package installed" \
	modprobe wqrt_test
orig="$(attr policy) $(attr rtprio) $(attr nr_idle_extra) $(attr private)"

# Issue 33: apt install ./*.deb, as on a fresh board: dkms, libnl-3-200
# and libiniparser1 (not in the image) come from its apt cache.
installed() { # PACKAGE...: each is installed and configured
	local p
	for p in "$@"; do
		[ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" = installed ] ||
			{ echo "$p: $(dpkg-query -W -f='${db:Status-Status}' "$p" 2>&1)"; return 1; }
	done
}
apt_install() {
	(cd /root/wqrt-debs && DEBIAN_FRONTEND=noninteractive apt install -y ./*.deb) \
		>/tmp/apt.out 2>&1
	local rc=$?
	grep -E '^(Need to get|Setting up (wqrt|dkms|libnl|libiniparser))|^[EW]: ' /tmp/apt.out
	[ $rc = 0 ] && installed wqrtd wqrt-selftests wqrt-selftests-dkms \
		dkms libnl-3-200 libiniparser1
}
check "apt install ./*.deb installs the three packages, dkms, libnl-3-200 and libiniparser1, offline" \
	apt_install
check "/etc/wqrt.conf is a conffile of wqrtd" \
	bash -c "dpkg-query -W -f='\${Conffiles}' wqrtd | grep -q ' /etc/wqrt.conf '"
check "the package enabled and started wqrtd" \
	within 10 bash -c '[ "$(systemctl is-enabled wqrtd)" = enabled ] && systemctl is-active -q wqrtd'
# DKMS has the modules' source; it builds them for no kernel here: the
# VM's has no headers, and Debian's 6.1 ones (dkms recommends them) are
# not a 6.12 (BUILD_EXCLUSIVE_KERNEL)
dkms_added() {
	dkms status wqrt-selftests
	dkms status wqrt-selftests | grep -q '^wqrt-selftests/[^,]*: added' &&
		! ls /lib/modules/6.1.*/updates/dkms/wqrt_test.ko 2>/dev/null
}
check "DKMS holds wqrt-selftests, built for no kernel without 6.12 headers" dkms_added
check "wqrtctl check-kernel: the series is there (sysfs mode), exit 0 or 66" \
	bash -c 'wqrtctl check-kernel >/tmp/kc.out 2>&1; rc=$?; cat /tmp/kc.out;
		grep -qE "^ok +policy +required" /tmp/kc.out && { [ $rc = 0 ] || [ $rc = 66 ]; }'
check "the example /etc/wqrt.conf is installed and valid" \
	wqrtctl check "$conf"
# The shipped serial-port profile (the package's seed; /etc/wqrt.conf
# points at it) names the 8250's flip buffer workqueue as this kernel
# does, and as mainline does since 7.1: uncommented, it applies.
seed=/usr/lib/wqrt/conf.d/50-uart-imu.conf
uart_wq=$(sed -n 's/^;\[wq:\(ttyS-[^]]*\)\].*/\1/p' "$seed" | head -n 1)
check "the seed's UART section [wq:$uart_wq] ($seed) names this kernel's 8250 flip workqueue" \
	bash -c "[ '$uart_wq' = ttyS-serial_8250 ] &&
		[ -d /sys/devices/virtual/workqueue/$uart_wq ]"
# Issue 17.5: wqrtd with the shipped file leaves the tests' workqueue as
# the module created it.
check "with the shipped file wqrtd leaves $wq alone ($orig)" \
	wq_is normal 0 0 0

# The user's edit: the test workqueue gets the example profile (fifo, a
# reserve of 2, pools of its own) at rtprio 40.
cp "$conf" /tmp/wqrt.conf.orig
printf '\n[wq:%s]\nprofile = rt-critical\nrtprio = 40\n' "$wq" >>"$conf"
grep -A3 "^\[wq:$wq\]" "$conf" | sed 's/^/# conf: /'
check "the edited file passes wqrtd --check" wqrtd --check -c "$conf"

check "systemctl restart wqrtd succeeds" systemctl restart wqrtd
# Issue 30.8: the running service holds CAP_SYS_NICE and nothing else
# (CAP_NET_ADMIN was for its netlink sockets: dropped once they are set up)
caps_of_service() {
	local p
	p=$(systemctl show -p MainPID --value wqrtd)
	grep '^Cap' "/proc/$p/status"
	[ "$(sed -n 's/^CapEff:\t//p' "/proc/$p/status")" = 0000000000800000 ] &&
		[ "$(sed -n 's/^CapPrm:\t//p' "/proc/$p/status")" = 0000000000800000 ]
}
check "the unit is Type=notify and active (running) after READY=1" \
	bash -c '[ "$(systemctl show -p Type --value wqrtd)" = notify ] &&
		[ "$(systemctl show -p ActiveState --value wqrtd)" = active ] &&
		[ "$(systemctl show -p SubState --value wqrtd)" = running ] &&
		[ -n "$(systemctl show -p StatusText --value wqrtd)" ]'
systemctl status --no-pager wqrtd | sed 's/^/# status: /'
check "journalctl -u wqrtd names the workqueue it profiled" \
	bash -c "journalctl -u wqrtd --no-pager | grep -q $wq"
check "sysfs reads back fifo 40, nr_idle_extra 2, private 1" \
	within 3 wq_is fifo 40 2 1
check "every kworker of the workqueue's pools is SCHED_FIFO 40" \
	within 3 kworkers_are fifo 40
# its exit status is the verdict (10 on drift); the output only says more
status_names() { # WHAT: wqrtctl status exits 0 and its output names WHAT
	local rc
	wqrtctl status >/tmp/status.out 2>&1
	rc=$?
	cat /tmp/status.out
	[ $rc = 0 ] || { echo "wqrtctl status exited $rc"; return 1; }
	grep -q -- "$1" /tmp/status.out
}
check "the running service holds CAP_SYS_NICE alone (/proc/PID/status)" \
	caps_of_service
check "wqrtctl status shows the workqueue without drift" status_names "$wq"

modprobe -r wqrt_test
modprobe wqrt_test
check "a workqueue created after start (module reloaded) is profiled within 1 s" \
	within 1 wq_is fifo 40 2 1

# A broken edit: reload keeps the unit running and the old profile.
cp "$conf" /tmp/wqrt.conf.good
sed -i "/^\[wq:$wq\]/,/^\[/{s/^rtprio = .*/rtpri = 45/}" "$conf"
systemctl reload wqrtd
# the error as wqrtd reports it (file:line: [section] key = value: why),
# which nothing but the reload of the broken file writes to the journal
reload_error() {
	journalctl -u wqrtd --no-pager |
		grep -E "$conf:[0-9]+: \[wq:$wq\] rtpri = 45: unknown key"
}
check "reload with a broken file: the journal names the error" \
	within 10 reload_error
check "reload with a broken file: the unit is still active" \
	systemctl is-active wqrtd
check "reload with a broken file: the old profile stays in force" \
	wq_is fifo 40 2 1

sed -i "/^\[wq:$wq\]/,/^\[/{s/^rtpri = .*/rtprio = 45/}" "$conf"
systemctl reload wqrtd
check "reload with the fixed file applies rtprio 45" within 3 wq_is fifo 45 2 1

check "the watchdog is armed (WatchdogUSec > 0)" \
	bash -c '[ "$(systemctl show -p WatchdogUSec --value wqrtd)" != 0 ] &&
		[ "$(systemctl show -p WatchdogUSec --value wqrtd)" != infinity ]'
pid=$(systemctl show -p MainPID --value wqrtd)
kill -STOP "$pid"
echo "# wqrtd ($pid) stopped with SIGSTOP; waiting for the watchdog"
check "a hung wqrtd is restarted by the watchdog" \
	within 90 bash -c "p=\$(systemctl show -p MainPID --value wqrtd);
		[ -n \"\$p\" ] && [ \"\$p\" != 0 ] && [ \"\$p\" != $pid ] &&
		systemctl is-active -q wqrtd"

# Issue 16.1: the hardened unit. Its exposure score, and from inside the
# service's mount namespace: the kernel's tunables are read-only, the
# workqueue attributes are not.
systemd-analyze security --no-pager wqrtd 2>&1 | sed 's/^/# security: /' |
	grep -E 'Overall exposure|ProtectKernelTunables|CapabilityBoundingSet|RestrictSUIDSGID'
check "the unit protects the kernel tunables, has no CAP_DAC_OVERRIDE, RestrictSUIDSGID" \
	bash -c '[ "$(systemctl show -p ProtectKernelTunables --value wqrtd)" = yes ] &&
		[ "$(systemctl show -p RestrictSUIDSGID --value wqrtd)" = yes ] &&
		! systemctl show -p CapabilityBoundingSet --value wqrtd | grep -q cap_dac_override'
pid=$(systemctl show -p MainPID --value wqrtd)
# rewrite FILE with what it holds, in wqrtd's mount namespace
rewrite_in_wqrtd() {
	nsenter -t "$pid" -m sh -c 'v=$(cat "$1") && printf "%s\n" "$v" > "$1"' sh "$1"
}
readonly_in_wqrtd() {
	! rewrite_in_wqrtd "$1" 2>/tmp/rewrite.err &&
		grep -q 'Read-only file system' /tmp/rewrite.err
	rc=$?
	cat /tmp/rewrite.err
	return $rc
}
# core_pattern needs CONFIG_COREDUMP; any other file of /proc/sys shows
# the same
for tunable in /proc/sys/kernel/core_pattern /proc/sys/kernel/sched_rt_runtime_us; do
	[ -e "$tunable" ] && break
done
check "in wqrtd's namespace a write to $tunable fails (read-only)" \
	readonly_in_wqrtd "$tunable"
# /sys/kernel/uevent_helper needs CONFIG_UEVENT_HELPER; any other tunable
# of /sys shows the same
for tunable in /sys/kernel/uevent_helper /sys/module/printk/parameters/time; do
	[ -e "$tunable" ] && break
done
check "in wqrtd's namespace a write to $tunable fails (read-only)" \
	readonly_in_wqrtd "$tunable"
check "in wqrtd's namespace the workqueue attributes stay writable" \
	rewrite_in_wqrtd "$dir/max_active"

# Issue 30.6: a restart, and an upgrade of the package, keep the profiles
# in force: the stopping wqrtd leaves them, the new one takes the
# originals over; stop still puts them back (below).
rt_throughout "systemctl restart wqrtd keeps $wq SCHED_FIFO throughout" \
	systemctl restart wqrtd
newer=/usr/lib/wqrt/e2e/wqrtd-newer.deb
newer_ver=$(dpkg-deb -f "$newer" Version)
rt_throughout "dpkg -i of a newer wqrtd ($newer_ver) keeps $wq SCHED_FIFO throughout" \
	dpkg -i "$newer"
check "the newer wqrtd is installed and runs" \
	bash -c "[ \"\$(dpkg-query -W -f='\${Version}' wqrtd)\" = '$newer_ver' ] &&
		systemctl is-active -q wqrtd"

check "systemctl stop wqrtd succeeds" systemctl stop wqrtd
check "stop restores the original attributes ($orig)" wq_is $orig
# Issue 30.3: with restore_on_exit = no, a stop for good keeps the
# originals in /run/wqrtd (RuntimeDirectoryPreserve=yes), and wqrtctl
# restore puts them back
mkdir -p /etc/wqrt.conf.d
printf '[global]\nrestore_on_exit = no\n' >/etc/wqrt.conf.d/40-keep.conf
systemctl start wqrtd
within 3 wq_is fifo 45 2 1
systemctl stop wqrtd
check "restore_on_exit = no: the stop leaves fifo 45 and /run/wqrtd/originals" \
	bash -c "[ \"\$(cat $dir/policy)\" = fifo ] && [ -s /run/wqrtd/originals ]"
rm /etc/wqrt.conf.d/40-keep.conf
check "...which wqrtctl restore puts back ($orig)" \
	bash -c "wqrtctl restore && [ \"\$(cat $dir/policy) \$(cat $dir/rtprio) \$(cat $dir/nr_idle_extra) \$(cat $dir/private)\" = '$orig' ]"
# Issue 16.15: a broken file makes reload fail visibly, and a start with
# it fails with 78 and is not restarted (RestartPreventExitStatus= sees
# the main process only).
cp "$conf" /tmp/wqrt.conf.good
systemctl start wqrtd
printf '[wq:%s]\nrtpri = 45\n' "$wq" >"$conf"
check "reload with a broken file: systemctl reload fails" \
	bash -c '! systemctl reload wqrtd'
systemctl stop wqrtd
systemctl reset-failed wqrtd 2>/dev/null
systemctl start wqrtd
start_refused() {
	[ "$(systemctl show -p ExecMainStatus --value wqrtd)" = 78 ] &&
		[ "$(systemctl show -p ActiveState --value wqrtd)" = failed ]
}
# A unit that will be restarted waits in activating (auto-restart), not in
# failed: failed with 78 and no restart counted is the end of it.
refused_for_good() {
	within 10 start_refused &&
		[ "$(systemctl show -p NRestarts --value wqrtd)" = 0 ] &&
		! systemctl is-active -q wqrtd
}
check "start with a broken file: exit 78, not restarted" refused_for_good
systemctl reset-failed wqrtd 2>/dev/null
cp /tmp/wqrt.conf.good "$conf"
check "man wqrtd works" bash -c "man -P cat wqrtd 2>/dev/null | grep -q wqrtd"

# Issue 17.8: a drop-in adds a profile without an edit of the user's file:
# here for the block layer's writeback workqueue, a real driver's.
bdi=/sys/devices/virtual/workqueue/writeback
bdi_is() { [ "$(cat $bdi/policy) $(cat $bdi/rtprio)" = "$*" ]; }
mkdir -p /etc/wqrt.conf.d
printf '[wq:writeback]\npolicy = fifo\nrtprio = 15\n' >/etc/wqrt.conf.d/50-board.conf
check "wqrtd --check validates the main file with the drop-in" wqrtd --check
systemctl start wqrtd
check "a drop-in in /etc/wqrt.conf.d profiles writeback: fifo 15" \
	within 3 bdi_is fifo 15
check "wqrtctl status names the drop-in the daemon holds" status_names 50-board.conf
systemctl stop wqrtd
check "stop puts writeback back: normal 0" bdi_is normal 0

# Issue 17.6: wqrtd --once keeps the originals, wqrtctl restore puts every
# attribute and kworker back.
once_applied() { wqrtd --once && wq_is fifo 45 2 1 && bdi_is fifo 15; }
check "wqrtd --once applies the profiles (fifo 45 on $wq, fifo 15 on writeback)" \
	once_applied
check "...and every kworker of $wq's pools is SCHED_FIFO 45" \
	within 3 kworkers_are fifo 45
restored() { wqrtctl restore && wq_is $orig && bdi_is normal 0; }
check "wqrtctl restore after --once: $wq back to $orig, writeback to normal 0" \
	restored
check "...and every kworker of $wq's pools is SCHED_OTHER again" \
	within 3 kworkers_are normal 0
rm -f /etc/wqrt.conf.d/50-board.conf

cp /tmp/wqrt.conf.orig "$conf"

# Issue 17.5: the kselftests, as a board user runs them (the package's
# run_kselftest.sh, the module found by modprobe), with wqrtd running the
# shipped file, which must not fight them over the test workqueues.
systemctl restart wqrtd
# the file is the one dpkg shipped (the conffile's md5) and wqrtd runs
shipped_conf_active() {
	local sum
	sum=$(dpkg-query -W -f='${Conffiles}' wqrtd | awk '$1 == "/etc/wqrt.conf" {print $2}')
	echo "dpkg's md5: $sum, $conf: $(md5sum <"$conf")"
	[ -n "$sum" ] && [ "$(md5sum <"$conf" | cut -d' ' -f1)" = "$sum" ] &&
		systemctl is-active -q wqrtd
}
check "wqrtd runs with the shipped /etc/wqrt.conf" shipped_conf_active
modprobe -r wqrt_test 2>/dev/null
"$ksft/run_kselftest.sh" >/tmp/ksft.out 2>&1
rc=$?
sed 's/^/#   /' /tmp/ksft.out
n=$(wc -l <"$ksft/kselftest-list.txt")
ok=$(grep -c '^ok [0-9]* selftests: wqrt: ' /tmp/ksft.out)
skip=$(grep -c '^ok [0-9]* selftests: wqrt: .*# SKIP' /tmp/ksft.out)
good=no
[ "$rc" = 0 ] && [ "$ok" = "$n" ] && [ "$skip" = 0 ] && [ "$n" -ge 6 ] && good=yes
ktap_test_result "run_kselftest.sh: all $n wqrt kselftests pass with wqrtd running (rc $rc, $ok ok, $skip skipped)" \
	[ $good = yes ]
# the output above is long: what failed, again, where a log's tail shows it
if [ $good != yes ]; then
	grep -E '^not ok|^ok .*# SKIP|^# +(not ok|FAIL)|^# +# .*(Expected|FAIL|TIMEOUT)' /tmp/ksft.out |
		sed 's/^/#   failed: /' | tail -n 20
	dmesg | grep -E 'BUG|WARNING|Call Trace|INFO: |stall' | sed 's/^/#   kernel: /' | tail -n 10
fi
check "the kselftests that take CPUs offline say they are not for a board in production" \
	grep -q "not for a board in production" /tmp/ksft.out

# Issue 43.5: the board benchmark from the package, as a board user runs
# it, here on the VM's third 16550 (ttyS2) in its internal loopback and
# wqrt_submit from the DKMS package; tiny runs: what is checked is that
# the one command makes the tables and puts everything back, no timing
bench=$ksft/bench/wqrt-bench-board
flip=/sys/devices/virtual/workqueue/ttyS-serial_8250
flip_attrs() { for a in policy rtprio nice nr_idle_extra private cpumask; do printf '%s=%s ' $a "$(cat "$flip/$a")"; done; }
refuses_beside_wqrtd() {
	systemctl is-active -q wqrtd || systemctl start wqrtd
	! "$bench" --uart /dev/ttyS2 imu >/tmp/bb-refused.log 2>&1 &&
		grep -q "wqrtd is running" /tmp/bb-refused.log
}
check "wqrt-bench-board refuses to run beside wqrtd, and says so" refuses_beside_wqrtd
systemctl stop wqrtd
flip_before=$(flip_attrs)
bench_board() {
	"$bench" --uart /dev/ttyS2 --rounds 1 --count 300 --frames 20 --force \
		--variants "default shipped" --out /tmp/bb all >/tmp/bb.log 2>&1
	local rc=$?
	sed 's/^/#   /' /tmp/bb.log | grep -E '^#   (\||wqrt-bench-board|  round|- )' | head -n 40
	[ $rc = 0 ] &&
		grep -q '^| default | 1 | 300 | 0 | ' /tmp/bb/imu.md &&
		grep -q '^| shipped | 1 | 300 | 0 | ' /tmp/bb/imu.md &&
		grep -q '^| default | 20 (' /tmp/bb/gpu-submit.md &&
		grep -q '^| shipped | 20 (' /tmp/bb/gpu-submit.md &&
		grep -q '^board F shipped 1 ' /tmp/bb/imu.raw &&
		grep -q '^- kernel: Linux ' /tmp/bb/board.txt
}
check "wqrt-bench-board all: the IMU and GPU tables of every variant, the raw lines, the board's record" \
	bench_board
check "...and ttyS-serial_8250 as it was, wqrt_submit unloaded (before: $flip_before)" \
	eval '[ "$(flip_attrs)" = "$flip_before" ] && ! grep -q "^wqrt_submit " /proc/modules'
# as the board user does after the benchmark
systemctl start wqrtd

# Taking it off again as a user does: remove stops the service and keeps
# the administrator's file, purge takes that too.
removed() {
	dpkg -r wqrtd >/tmp/dpkg-r.out 2>&1 || { cat /tmp/dpkg-r.out; return 1; }
	! systemctl is-active -q wqrtd && [ ! -e /usr/sbin/wqrtd ] &&
		[ ! -e /lib/systemd/system/wqrtd.service ] && [ -f "$conf" ]
}
check "dpkg -r wqrtd stops it, removes the programs and the unit, keeps /etc/wqrt.conf" removed
check "dpkg --purge wqrtd removes /etc/wqrt.conf" \
	bash -c "dpkg --purge wqrtd >/dev/null 2>&1 && [ ! -e $conf ] &&
		! systemctl is-enabled -q wqrtd 2>/dev/null"
ktap_finished
