#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# test-imu-feed.sh: the host-clock IMU's two ends on the host, with a pty
# for the guest's UART: imu_sender connects to a Unix socket as it would to
# QEMU's serial backend, a relay writes what it gets into the pty, imu_uart
# -R reads the frames there. Checked: every frame read in order, none lost,
# corrupt or out of order; a frame the relay drops is counted lost; the
# gaps are there, one per frame. No timing is asserted. TAP output; run by
# make check's harness stage (as root: imu_uart's reader is SCHED_FIFO).
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/selftests/lib/ktap.sh"
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT

ktap_print_header
if [ "$(id -u)" != 0 ]; then
	ktap_skip_all "imu_uart's reader needs SCHED_FIFO (root)"
	exit 0
fi
ktap_set_plan 12
gcc -O2 -Wall -Wextra -Werror -pthread -o "$tmp/imu_uart" "$top/selftests/bench/imu/imu_uart.c" &&
	gcc -O2 -Wall -Wextra -Werror -o "$tmp/imu_sender" "$top/selftests/bench/imu/imu_sender.c" ||
	{ ktap_exit_fail_msg "imu_uart or imu_sender does not build"; }

# relay SOCKET LINK [DROP]: accept one connection on SOCKET, write what
# comes into a new pty whose slave LINK names; DROP: leave out frame DROP
# (8-byte frames) of the stream
relay() {
	python3 - "$@" <<'PY' &
import os, socket, sys
path, link = sys.argv[1], sys.argv[2]
drop = int(sys.argv[3]) if len(sys.argv) > 3 else -1
master, slave = os.openpty()
os.symlink(os.ttyname(slave), link)
srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
srv.bind(path)
srv.listen(1)
conn, _ = srv.accept()
pos = 0
while True:
    b = conn.recv(4096)
    if not b:
        break
    out = bytes(x for i, x in enumerate(b, pos) if not (drop >= 0 and drop * 8 <= i < drop * 8 + 8))
    pos += len(b)
    os.write(master, out)
PY
}

run() { # NAME [DROP]: sender and reader through a relay; reader's lines in $tmp/NAME
	relay "$tmp/$1.sock" "$tmp/$1.tty" ${2:+"$2"}
	for _ in $(seq 50); do [ -e "$tmp/$1.tty" ] && [ -S "$tmp/$1.sock" ] && break; sleep 0.1; done
	"$tmp/imu_uart" -R -n 200 -p 1000 -t "$1 1" "$tmp/$1.tty" >"$tmp/$1" 2>"$tmp/$1.err" &
	reader=$!
	sleep 0.3
	"$tmp/imu_sender" -n 400 -p 1000 -w 5 "$tmp/$1.sock" 2>"$tmp/$1.sender"
	wait "$reader"
}

run clean
ktap_test_result "200 frames read, in order: none lost, corrupt or out of order" \
	eval '[ "$(grep -c "^G clean 1 " "$tmp/clean")" = 200 ] &&
	      grep -q "^X clean 1 frames 200 received 200 lost 0 corrupt 0 dup 0 " "$tmp/clean" &&
	      awk "\$1 == \"G\" && \$4 > 0 { if (\$5 != p + 1) bad++ } \$1 == \"G\" { p = \$5 } END { exit bad > 0 }" "$tmp/clean"'
ktap_test_result "a gap for every frame but the first, none negative" \
	eval 'awk "\$1 == \"G\" { n++; if (\$4 == 0 ? \$6 != -1 : \$6 < 0) bad++ } END { exit !(n == 200 && !bad) }" "$tmp/clean"'
ktap_test_result "the sender says what it sent" grep -q '^S sent [0-9]* dropped 0 late_over_period [0-9]* late_max_ns [0-9]*$' "$tmp/clean.sender"

# a backend that stops reading for a second, as QEMU does while the guest
# does not read its UART: the frames due meanwhile are dropped by the
# sender (a real IMU's frames lost to an overrun), not queued to reach the
# next reader seconds late
python3 - "$tmp/stall.sock" <<'PY' &
import socket, sys, time
srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
srv.bind(sys.argv[1])
srv.listen(1)
conn, _ = srv.accept()
time.sleep(1.0)
while conn.recv(4096):
    pass
PY
for _ in $(seq 50); do [ -S "$tmp/stall.sock" ] && break; sleep 0.1; done
"$tmp/imu_sender" -n 1500 -p 1000 -w 5 "$tmp/stall.sock" 2>"$tmp/stall.sender"
wait
ktap_test_result "a backend that stops reading: the frames due meanwhile dropped, every frame sent or dropped" \
	eval 'read -r _ _ sent _ dropped _ <"$tmp/stall.sender" &&
	      [ "$dropped" -gt 500 ] && [ $((sent + dropped)) = 1500 ]'

run dropped 150
ktap_test_result "a frame the line lost: counted lost, the rest in order" \
	grep -q "^X dropped 1 frames 200 received 200 lost 1 corrupt 0 dup 0 " "$tmp/dropped"
# make bench-imu's tables of a host-clock mode, from these lines
{ sed 's/^/host /' "$tmp/clean"; sed 's/^/host /' "$tmp/dropped"; } >"$tmp/raw"
MODES=host VARIANTS="clean dropped" python3 "$top/selftests/bench/imu/imu-stats.py" "$tmp/raw" "$tmp" >"$tmp/md" 2>"$tmp/md.err"
ktap_test_result "imu-stats.py: the gap table, frames read, lost and out of order per variant" \
	eval 'grep -q "^| clean | 1 | 200 | 0 | 0 | " "$tmp/md" && grep -q "^| dropped | 1 | 200 | 1 | 0 | " "$tmp/md"'

# the writer (-e: no loopback, a relay echoes what it writes back, as a
# loopback plug would): every frame back, each F line with how long its
# write() took, and the X line with the writer's sleeps that did not
# sleep (none here: it slept every period)
python3 - "$tmp/echo.tty" <<'PY' &
import os, select, sys, time
master, slave = os.openpty()
os.symlink(os.ttyname(slave), sys.argv[1])
end = time.time() + 10
while time.time() < end:
    if select.select([master], [], [], 0.5)[0]:
        os.write(master, os.read(master, 4096))
PY
for _ in $(seq 50); do [ -e "$tmp/echo.tty" ] && break; sleep 0.1; done
"$tmp/imu_uart" -e -n 200 -p 1000 -t "echo 1" "$tmp/echo.tty" >"$tmp/echo" 2>"$tmp/echo.err"
ktap_test_result "the writer: every frame back, its write() time on each F line, no sleep cut short" \
	eval 'grep -q "^X echo 1 frames 200 received 200 lost 0 .* sleep_eintr 0 sleep_early 0$" "$tmp/echo" &&
	      [ "$(awk "\$1 == \"F\" && NF == 7 && \$7 >= 0" "$tmp/echo" | wc -l)" = 200 ]'

# the loopback modes' headline counts write() -> read(): a writer that
# woke 3 ms late (the guest's timer floor) is no late frame; a frame read
# 3 ms after its write() is, whatever the writer did. 100 frames a run:
# "slow-writer" every frame's writer 3 ms late, path 0.5 ms; "slow-path"
# frames 0-9 path 3 ms, the rest 0.5 ms, the writer on time
# stats NAME: imu-stats.py on the loopback runs of $tmp/NAME.raw, the
# tables in $tmp/NAME.md
stats() {
	MODES=tcg VARIANTS="slow-writer slow-path" BOOT=50 BOOT_Q=20 \
		python3 "$top/selftests/bench/imu/imu-stats.py" "$tmp/$1.raw" "$tmp" >"$tmp/$1.md" 2>"$tmp/$1.err"
}
awk 'BEGIN {
	for (k = 0; k < 100; k++) {
		printf "tcg F slow-writer 1 %d 3000000 3500000\n", k
		printf "tcg F slow-path 1 %d 0 %d\n", k, k < 10 ? 3000000 : 500000
	}
	print "tcg X slow-writer 1 frames 100 received 100 lost 0"
	print "tcg X slow-path 1 frames 100 received 100 lost 0"
}' >"$tmp/loop.raw"
stats loop
ktap_test_result "imu-stats.py: a writer's own late wake-up is not a late frame at the reader" \
	grep -q "^| slow-writer | 1 | 100 | 0 | 0.00 " "$tmp/loop.md"
ktap_test_result "imu-stats.py: a frame read over 2 ms after its write() is late, p99 write -> read 3000 us" \
	eval 'grep -q "^| slow-path | 1 | 100 | 0 | 10.00 .* | 3000 (3000) | " "$tmp/loop.md"'
# the late starts: one whose worker was woken 97 ms after the queueing
# (the workqueue's), one woken at once but asleep 18.9 ms after (blocked),
# one preempted 28.9 ms (the scheduler's), one woken at once onto a CPU
# that sat idle 39 of the 40 ms it waited (a wakeup that did not reach it)
{
	cat "$tmp/loop.raw"
	echo "tcg D slow-path 1 98000000 97000000 97100000 kworker/u9:1-55 100000 0 0 0"
	echo "tcg D slow-path 1 20000000 100000 19000000 kworker/u9:1-55 0 18900000 0 0"
	echo "tcg D slow-path 1 30000000 100000 29000000 kworker/u9:1-55 28900000 0 0 0"
	echo "tcg D slow-path 1 41000000 100000 40100000 kworker/u9:1-55 0 0 40000000 39000000"
} >"$tmp/late.raw"
stats late
ktap_test_result "imu-stats.py: late starts split into woken late, asleep, preempted and waiting on an idle CPU" \
	grep -q "^| slow-path | 1 | 4 | 1 | 1 | 1 | 1 (1) | 0 | 30.0 / 98.0 |" "$tmp/late.md"
# SWITCHES=all: what ran on the late starts' CPU, summed over the run's
# B lines: a nice-0 hog 97 + 15 ms, a FIFO 40 writer 1 + 4 ms, the rest
{
	cat "$tmp/late.raw"
	echo "tcg B slow-path 1 98000000 0 hog-600,120,97000000 writer-700,59,1000000"
	echo "tcg B slow-path 1 20000000 0 hog-600,120,15000000 writer-700,59,4000000 other,-,1000000"
} >"$tmp/ran.raw"
stats ran
ktap_test_result "imu-stats.py: what ran on the late starts' CPU, longest first, with its policy" \
	grep -qF "| slow-path | 1 | 2 | 118.0 | hog-600 (nice 0) 112.0, 95 %; writer-700 (rt 40) 5.0, 4 %; other (the rest) 1.0, 1 % |" "$tmp/ran.md"
# and where the ticks found the writer in those windows, summed: 5 + 2
# in a polled transmit, 1 in user space
{
	cat "$tmp/ran.raw"
	echo "tcg S slow-path 1 98000000 imu_uart-700 io_serial_in<wait_for_lsr<serial8250_tx_chars,5 user,1"
	echo "tcg S slow-path 1 20000000 imu_uart-700 io_serial_in<wait_for_lsr<serial8250_tx_chars,2"
} >"$tmp/ticks.raw"
stats ticks
ktap_test_result "imu-stats.py: where the ticks found imu_uart's threads, summed over the windows" \
	grep -qF "| slow-path | 1 | imu_uart-700 | 8 | io_serial_in < wait_for_lsr < serial8250_tx_chars: 7; user: 1 |" "$tmp/ticks.md"
ktap_finished
