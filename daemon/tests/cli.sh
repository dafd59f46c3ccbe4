#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# wqrtd and wqrtctl as a user runs them, against a fake root: exit codes,
# messages, --dry-run changing nothing, --once applying. TAP output.
# Usage: cli.sh BUILDDIR
B=${1:?usage: cli.sh BUILDDIR}
. "$(dirname "$0")/../../selftests/lib/ktap.sh"
. "$(dirname "$0")/../../selftests/lib/task.sh"
. "$(dirname "$0")/fake-root.sh"
make_fake_root cli
cat > "$T/good.conf" <<'CONF'
[profile:rt]
policy = fifo
rtprio = 50
[wq:tty_flip]
profile = rt
rtprio = 20
CONF
printf '[wq:tty_flip]\npolicy = fifo\nrtpri = 20\n' > "$T/bad.conf"

ktap_print_header
ktap_set_plan 85
out=$("$B/wqrtd" --check -c "$T/good.conf" 2>&1)
ktap_test_result "--check accepts a good file" [ $? -eq 0 ]
out=$("$B/wqrtd" --check -c "$T/bad.conf" 2>&1)
rc=$?
ktap_test_result "--check exits 78 on a bad file" [ $rc -eq 78 ]
ktap_test_result "the error names file, line, key and a hint" \
	sh -c "echo '$out' | grep -qF '$T/bad.conf:3: [wq:tty_flip] rtpri = 20: unknown key (did you mean \`rtprio\`?)'"
out=$("$B/wqrtd" --dry-run -c "$T/good.conf" --root "$T" 2>/dev/null)
ktap_test_result "--dry-run prints a diff" sh -c "echo '$out' | grep -qx '+policy = fifo'"
ktap_test_result "--dry-run changes nothing" [ "$(cat "$W/policy")" = normal ]
"$B/wqrtctl" status -c "$T/good.conf" --root "$T" > /dev/null
ktap_test_result "wqrtctl status exits 10 on drift" [ $? -eq 10 ]
"$B/wqrtd" --once -c "$T/good.conf" --root "$T" 2> "$T/log"
ktap_test_result "--once applies and exits 0" [ $? -eq 0 ]
ktap_test_result "the workqueue is fifo 20" \
	[ "$(cat "$W/policy") $(cat "$W/rtprio")" = "fifo 20" ]
ktap_test_result "the rescuer is fifo 20 (stat fields 40, 41)" \
	[ "$(TASK_PROC=$T/proc task_sched 102)" = "1 20" ]
ktap_test_result "the mode is said" grep -q "sysfs mode" "$T/log"
"$B/wqrtctl" status --json -c "$T/good.conf" --root "$T" > "$T/json"
ktap_test_result "wqrtctl status exits 0 with no drift" [ $? -eq 0 ]
ktap_test_result "json has the rescuer" grep -q '"owner": "rescuer of tty_flip"' "$T/json"
chmod 0444 "$W/nice"
printf '[wq:tty_flip]\nnice = 5\n' > "$T/nice.conf"
"$B/wqrtd" --once -c "$T/nice.conf" --root "$T" 2> /dev/null
ktap_test_result "--once exits 74 (EX_IOERR) when a write fails" [ $? -eq 74 ]
"$B/wqrtctl" check "$T/bad.conf" > /dev/null 2>&1
ktap_test_result "wqrtctl check exits 78 on a bad file" [ $? -eq 78 ]


# Issue 16.4: the configuration must be a root-owned regular file that
# no one else can write
out=$("$B/wqrtd" --check -c /tmp 2>&1)
rc=$?
ktap_test_result "--check -c /tmp: refused with 78" [ $rc -eq 78 ]
ktap_test_result "...saying it is not a regular file" \
	sh -c "echo '$out' | grep -qF '/tmp: not a regular file'"
chmod 0666 "$T/good.conf"
"$B/wqrtd" --check -c "$T/good.conf" > /dev/null 2>&1
ktap_test_result "--check refuses a file others can write" [ $? -eq 78 ]
chmod 0644 "$T/good.conf"
# Issue 30.9: a FIFO is refused at once, not waited on
mkfifo "$T/fifo.conf"
out=$(timeout 10 "$B/wqrtd" --check -c "$T/fifo.conf" 2>&1)
rc=$?
ktap_test_result "--check -c FIFO: refused with 78 at once (not 124: timeout)" [ $rc -eq 78 ]
timeout 10 "$B/wqrtctl" check "$T/fifo.conf" > /dev/null 2>&1
ktap_test_result "wqrtctl check FIFO: refused with 78 at once" [ $? -eq 78 ]
rm "$T/fifo.conf"
# Issue 30.9: ... and so is a file in a directory others can write
mkdir -m 0777 "$T/open"
cp "$T/good.conf" "$T/open/good.conf"
out=$("$B/wqrtd" --check -c "$T/open/good.conf" 2>&1)
rc=$?
ktap_test_result "--check: a file in a directory others can write is refused (78)" \
	sh -c "[ $rc -eq 78 ] && echo '$out' | grep -qF '$T/open: group or others can write it (mode 0777)'"
rm -r "$T/open"

# Issue 16.18: a root that is not there is a failure
"$B/wqrtd" --once -c "$T/good.conf" --root /nonexistent > /dev/null 2>&1
ktap_test_result "--once --root /nonexistent fails" [ $? -ne 0 ]

# Issue 16.15: RELOADING=1 comes with MONOTONIC_USEC=
python3 - "$T/notify" "$T/notify.log" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(10)
with open(sys.argv[2], "w") as f:
    try:
        while True:
            f.write(s.recv(4096).decode().replace("\n", " ") + "\n")
            f.flush()
    except socket.timeout:
        pass
PY
PY_PID=$!
# up to 5 s for COMMAND to succeed
within5() {
	i=0
	until "$@" 2>/dev/null || [ $i -ge 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}
within5 test -S "$T/notify"
NOTIFY_SOCKET=$T/notify "$B/wqrtd" --foreground -c "$T/good.conf" \
	--root "$T" 2> /dev/null &
D_PID=$!
within5 grep -q READY=1 "$T/notify.log"
kill -HUP $D_PID
within5 grep -q RELOADING=1 "$T/notify.log"
kill -TERM $D_PID
wait $D_PID
ktap_test_result "SIGHUP: wqrtd sends RELOADING=1" grep -q RELOADING=1 "$T/notify.log"
ktap_test_result "...with MONOTONIC_USEC= in the same message" \
	grep -qE 'RELOADING=1.*MONOTONIC_USEC=[0-9]+|MONOTONIC_USEC=[0-9]+.*RELOADING=1' \
	"$T/notify.log"
kill $PY_PID 2>/dev/null
wait $PY_PID 2>/dev/null

# Issue 13: wqrtctl list, and sections that match nothing
mkdir -p "$T/proc/103" "$T/proc/104"
echo "103 (kworker/u9:0-netns) S 2 0 0 0 -1 2097216 0 0 0 0 0 0 0 0 20 0 1 0 78 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0" \
	> "$T/proc/103/stat"
echo "104 (kworker/0:2-events) S 2 0 0 0 -1 2097216 0 0 0 0 0 0 0 0 20 0 1 0 79 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0" \
	> "$T/proc/104/stat"
out=$("$B/wqrtctl" list -c "$T/good.conf" --root "$T")
ktap_test_result "list exits 0" [ $? -eq 0 ]
ktap_test_result "list: tty_flip, unbound, its section, its policy" \
	sh -c "echo '$out' | grep -qE '^tty_flip +unbound +\[wq:tty_flip\] +policy=[a-z]+ rtprio=[0-9]+ nice='"
ktap_test_result "list: without --all, nothing out of reach" \
	sh -c "! echo '$out' | grep -q netns"
"$B/wqrtctl" list --all -c "$T/good.conf" --root "$T" > "$T/list"
ktap_test_result "list --all: netns, not in sysfs, and what to do" \
	grep -qE '^netns +unbound +- +not in sysfs: boot with workqueue.sysfs=netns' "$T/list"
ktap_test_result "list --all: events is per-cpu" \
	grep -qE '^events +per-cpu +- +per-cpu: ' "$T/list"
"$B/wqrtctl" list --json --all -c "$T/good.conf" --root "$T" > "$T/list.json"
ktap_test_result "list --json is JSON with a schema version" \
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['schema'] == 1; assert any(w['name'] == 'netns' and not w['reachable'] for w in d['workqueues'])" "$T/list.json"
"$B/wqrtctl" list --bogus > /dev/null 2>&1
ktap_test_result "list --bogus: usage error 64" [ $? -eq 64 ]
printf '[wq:tty_flip]\nnice = 1\n\n[wq:gpu_submit*]\nnice = 2\n' > "$T/nomatch.conf"
out=$("$B/wqrtd" --check -c "$T/nomatch.conf" --root "$T" 2>&1)
rc=$?
ktap_test_result "--check: a section matching nothing is no error" [ $rc -eq 0 ]
ktap_test_result "...but a warning naming file, line and section" \
	sh -c "echo '$out' | grep -qF 'warning: $T/nomatch.conf:4: [wq:gpu_submit*]: matches no workqueue'"
out=$("$B/wqrtctl" status -c "$T/nomatch.conf" --root "$T" 2>&1)
ktap_test_result "status warns about it too" \
	sh -c "echo '$out' | grep -qF '[wq:gpu_submit*]: matches no workqueue'"
"$B/wqrtd" --once -c "$T/nomatch.conf" --root "$T" > /dev/null 2> "$T/log"
ktap_test_result "so does the daemon at start" grep -qF '[wq:gpu_submit*]: matches no workqueue' "$T/log"

# Issue 17.8: drop-ins, validated with the main file, every error named
mkdir -p "$T/good.conf.d"
printf '[wq:other]\nprofile = rt\n' > "$T/good.conf.d/10-a.conf"
printf '[wq:x]\nnice = 99\n[wq:y]\nrtpri = 1\n' > "$T/good.conf.d/20-b.conf"
out=$("$B/wqrtd" --check -c "$T/good.conf" --root "$T" 2>&1)
rc=$?
ktap_test_result "--check: an error in a drop-in is 78" [ $rc -eq 78 ]
ktap_test_result "...naming the drop-in and the line of each error" \
	sh -c "echo '$out' | grep -qF '$T/good.conf.d/20-b.conf:2: [wq:x] nice = 99' &&
	       echo '$out' | grep -qF '$T/good.conf.d/20-b.conf:4: [wq:y] rtpri = 1'"
rm "$T/good.conf.d/20-b.conf"
out=$("$B/wqrtd" --check -c "$T/good.conf" --root "$T" 2>/dev/null)
ktap_test_result "--check: a drop-in using the main file's profile" \
	[ "$out" = "$T/good.conf: ok (with 1 drop-in(s) from $T/good.conf.d)" ]
rm -r "$T/good.conf.d"

# Issue 17.6: --once saves the originals, wqrtctl restore puts them back
rm -rf "$T/run"
echo normal > "$W/policy"; echo 0 > "$W/rtprio"; echo 0 > "$W/nice"; chmod 0644 "$W/nice"
echo "102 (kworker/R-tty_f) S 2 0 0 0 -1 2097216 0 0 0 0 0 0 0 0 20 0 1 0 77 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0" \
	> "$T/proc/102/stat"
"$B/wqrtd" --once -c "$T/good.conf" --root "$T" 2> /dev/null
ktap_test_result "--once: applied" [ "$(cat "$W/policy") $(cat "$W/rtprio")" = "fifo 20" ]
ktap_test_result "--once: the originals are saved" \
	grep -qx "wq tty_flip policy normal" "$T/run/wqrtd/originals"
# Issue 30.9: an originals file others could have written is not trusted
chmod 0666 "$T/run/wqrtd/originals"
"$B/wqrtctl" restore --root "$T" > "$T/out" 2>&1
rc=$?
ktap_test_result "restore refuses an originals file others can write (65)" \
	sh -c "[ $rc -eq 65 ] && grep -qF 'originals: group or others can write it' '$T/out'"
ktap_test_result "...and puts nothing back" [ "$(cat "$W/policy") $(cat "$W/rtprio")" = "fifo 20" ]
chmod 0600 "$T/run/wqrtd/originals"
out=$("$B/wqrtctl" restore --root "$T" 2>&1)
rc=$?
ktap_test_result "restore exits 0" [ $rc -eq 0 ]
ktap_test_result "restore: the workqueue is back to normal 0" \
	[ "$(cat "$W/policy") $(cat "$W/rtprio")" = "normal 0" ]
ktap_test_result "restore: the rescuer is back to SCHED_OTHER" \
	[ "$(TASK_PROC=$T/proc task_sched 102)" = "0 0" ]
ktap_test_result "restore: says what it did" \
	sh -c "echo '$out' | grep -qF 'restored the originals of 1 workqueue(s) and 1 kworker(s)'"
ktap_test_result "restore: nothing left to put back" [ ! -e "$T/run/wqrtd/originals" ]
out=$("$B/wqrtctl" restore --root "$T" 2>&1)
ktap_test_result "restore again: nothing to do, exit 0" \
	sh -c "[ $? -eq 0 ] && echo '$out' | grep -q 'nothing to restore'"
# Issue 30.1: nor beside another holder of the originals (wqrtd --once)
touch "$T/hold"
flock -o "$T/run/wqrtd/lock" sh -c "while [ -e '$T/hold' ]; do sleep 0.1; done" &
F_PID=$!
within5 sh -c "! flock -n '$T/run/wqrtd/lock' true"
"$B/wqrtctl" restore --root "$T" > /dev/null 2>&1
ktap_test_result "restore while another holds the originals: refused (75)" [ $? -eq 75 ]
rm "$T/hold"
wait $F_PID
# Issue 30.2: originals that cannot be saved: --once changes nothing, 74
mkdir "$T/run/wqrtd/originals.new"
"$B/wqrtd" --once -c "$T/good.conf" --root "$T" 2> "$T/log"
rc=$?
ktap_test_result "--once when the originals cannot be saved: exit 74" [ $rc -eq 74 ]
ktap_test_result "...nothing applied" [ "$(cat "$W/policy") $(cat "$W/rtprio")" = "normal 0" ]
ktap_test_result "...and it says why" grep -qF "cannot save the originals" "$T/log"
rmdir "$T/run/wqrtd/originals.new"

# Issue 17.7: status asks the running daemon
cp "$T/good.conf" "$T/held.conf"
"$B/wqrtd" --foreground -c "$T/held.conf" --root "$T" 2> "$T/dlog" &
D_PID=$!
within5 test -e "$T/run/wqrtd/daemon"
"$B/wqrtctl" status --root "$T" > "$T/st" 2>&1
rc=$?
ktap_test_result "status: the daemon runs, with its pid" \
	grep -qx "wqrtd: running (pid $D_PID), holding $T/held.conf as loaded .*" "$T/st"
ktap_test_result "status: no drift against what it holds, exit 0" [ $rc -eq 0 ]
ktap_test_result "status: names the files it holds" \
	grep -qx "configuration: what wqrtd holds, from $T/held.conf" "$T/st"
printf '[wq:tty_flip]\npolicy = fifo\nrtprio = 33\n' > "$T/held.conf"
"$B/wqrtctl" status --root "$T" > "$T/st" 2>&1
rc=$?
ktap_test_result "status after an edit, no reload: still no drift" [ $rc -eq 0 ]
ktap_test_result "...and it says the file changed since" \
	grep -qF "note: $T/held.conf changed since wqrtd loaded it" "$T/st"
"$B/wqrtctl" status -c "$T/held.conf" --root "$T" > "$T/st" 2>&1
ktap_test_result "status -c previews the edited file: drift (10)" [ $? -eq 10 ]
"$B/wqrtctl" status --json --root "$T" > "$T/st.json" 2>&1
ktap_test_result "status --json: the daemon's pid, files and load time" \
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); r=d['daemon']; assert r['running'] and r['pid'] == int(sys.argv[2]) and r['files'] == [sys.argv[3]] and isinstance(r['loaded'], int) and r['changed_since_load'] == [sys.argv[3]] and d['preview'] is False" \
	"$T/st.json" "$D_PID" "$T/held.conf"
"$B/wqrtctl" restore --root "$T" > /dev/null 2>&1
ktap_test_result "restore while wqrtd runs: refused (75)" [ $? -eq 75 ]
# Issue 30.1: one instance holds the originals
"$B/wqrtd" --once -c "$T/good.conf" --root "$T" > "$T/once" 2>&1
rc=$?
ktap_test_result "--once while wqrtd runs: refused (75)" [ $rc -eq 75 ]
ktap_test_result "...saying which wqrtd holds them" \
	grep -qF "pid $D_PID (wqrtd) holds $T/run/wqrtd" "$T/once"
"$B/wqrtd" --dry-run -c "$T/good.conf" --root "$T" > /dev/null 2>&1
ktap_test_result "--dry-run while wqrtd runs: 0" [ $? -eq 0 ]
"$B/wqrtd" --check -c "$T/good.conf" --root "$T" > /dev/null 2>&1
ktap_test_result "--check while wqrtd runs: 0" [ $? -eq 0 ]
kill -HUP $D_PID
within5 sh -c "'$B/wqrtctl' status --root '$T' | grep -q 'desired 33'"
"$B/wqrtctl" status --root "$T" > "$T/st" 2>&1
ktap_test_result "status after the reload: what it holds now" \
	sh -c "grep -q 'rtprio  *desired 33' '$T/st' && ! grep -q '^note:' '$T/st'"
kill -TERM $D_PID
wait $D_PID
"$B/wqrtctl" status --root "$T" > "$T/st" 2>&1
ktap_test_result "status after it stopped: not running" grep -qx "wqrtd: not running" "$T/st"
ktap_test_result "...and it left nothing published" [ ! -e "$T/run/wqrtd/daemon" ]
# Issue 17.10: a daemon's stderr without journald reads as a log
ktap_test_result "--foreground: stderr lines carry the time and wqrtd[PID]" \
	grep -qE "^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8}\.[0-9]{3} wqrtd\[$D_PID\]: tty_flip: rtprio = 33$" "$T/dlog"

# Issue 17.9: bash completion for both tools
C=$(dirname "$0")/../../conf/bash-completion
complete_line() { # SCRIPT FUNCTION WORD...: what TAB offers after the words
	bash -c '. "$1"; f=$2; shift 2; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); $f; echo "${COMPREPLY[*]}"' \
		sh "$@"
}
ktap_test_result "completion: wqrtctl li<TAB> is list" \
	[ "$(complete_line "$C/wqrtctl" _wqrtctl wqrtctl li)" = list ]
ktap_test_result "completion: wqrtctl la<TAB> is latency" \
	[ "$(complete_line "$C/wqrtctl" _wqrtctl wqrtctl la)" = latency ]
ktap_test_result "completion: wqrtctl try WQ rt<TAB> is rtprio=" \
	[ "$(complete_line "$C/wqrtctl" _wqrtctl wqrtctl try ttyS-serial_8250 rt)" = rtprio= ]
ktap_test_result "completion: wqrtctl status --j<TAB> is --json" \
	[ "$(complete_line "$C/wqrtctl" _wqrtctl wqrtctl status --j)" = --json ]
ktap_test_result "completion: wqrtctl list --root <dir>" \
	[ "$(complete_line "$C/wqrtctl" _wqrtctl wqrtctl list --root "$T/pro")" = "$T/proc" ]
ktap_test_result "completion: wqrtd --dr<TAB> is --dry-run" \
	[ "$(complete_line "$C/wqrtd" _wqrtd wqrtd --dr)" = --dry-run ]

# Issue 31: wqrtctl latency, who and try refuse bad input before they
# touch tracefs or a workqueue
"$B/wqrtctl" latency --duration 0 > "$T/lat" 2>&1
RC=$?
ktap_test_result "latency --duration 0: exit 64, says what a duration is" \
	eval '[ $RC -eq 64 ] && grep -q "duration 0: seconds, more than 0" "$T/lat"'
"$B/wqrtctl" latency no_such_wq_or_function_31 > "$T/lat" 2>&1
RC=$?
ktap_test_result "latency NAME that is neither: exit 64, names it" \
	eval '[ $RC -eq 64 ] && grep -q "no_such_wq_or_function_31. is neither a workqueue" "$T/lat"'
"$B/wqrtctl" who > "$T/lat" 2>&1
RC=$?
ktap_test_result "who without a function: exit 64, usage" \
	eval '[ $RC -eq 64 ] && grep -q "Usage: wqrtctl latency" "$T/lat"'
"$B/wqrtctl" try no_such_wq_31 policy=fifo > "$T/lat" 2>&1
RC=$?
ktap_test_result "try on a workqueue not in sysfs: exit 64, says so" \
	eval '[ $RC -eq 64 ] && grep -q "no_such_wq_31: no such workqueue in sysfs" "$T/lat"'

# Issue 31: what a SIGKILLed latency left in tracefs goes with the next
# run, on whatever kernel this is (in a mount namespace of its own, so
# that the tracefs mount is this test's)
stale_test() {
	unshare -m sh -c '
		d=/sys/kernel/tracing
		[ -d "$d/instances" ] || mount -t tracefs nodev "$d" 2>/dev/null ||
			exit 4
		[ -d "$d/instances" ] || exit 4
		mkdir "$d/instances/wqrtctl-999999" "$d/instances/wqrtctl-other" || exit 4
		"$1/wqrtctl" latency --duration 0.1 > /dev/null 2>&1
		[ ! -e "$d/instances/wqrtctl-999999" ] && [ -e "$d/instances/wqrtctl-other" ]
		rc=$?
		rmdir "$d/instances/wqrtctl-999999" "$d/instances/wqrtctl-other" 2>/dev/null
		exit $rc' sh "$B"
}
stale_test
case $? in
0) ktap_test_pass "latency removes the tracefs instance a killed run left, and only that" ;;
4) ktap_test_skip "latency removes a killed run's instance: no tracefs here" ;;
*) ktap_test_fail "latency removes the tracefs instance a killed run left, and only that" ;;
esac

# Issue 17.1: wqrtctl check-kernel
mkdir -p "$T/proc/sys/kernel" "$T/boot"
echo 6.12.48-wqrt > "$T/proc/sys/kernel/osrelease"
printf 'CONFIG_SYSFS=y\nCONFIG_PREEMPT_RT=y\nCONFIG_CONNECTOR=y\nCONFIG_PROC_EVENTS=y\n' |
	gzip > "$T/proc/config.gz"
"$B/wqrtctl" check-kernel --root "$T" > "$T/kc"
ktap_test_result "check-kernel: all there, exit 0" [ $? -eq 0 ]
ktap_test_result "check-kernel: read /proc/config.gz" \
	grep -qx "kernel 6.12.48-wqrt, configuration from $T/proc/config.gz" "$T/kc"
ktap_test_result "check-kernel: the series' policy attribute found" \
	grep -qE '^ok +policy +required ' "$T/kc"
rm "$T/proc/config.gz"
printf 'CONFIG_SYSFS=y\n# CONFIG_PREEMPT_RT is not set\n' > "$T/boot/config-6.12.48-wqrt"
"$B/wqrtctl" check-kernel --root "$T" > "$T/kc"
ktap_test_result "check-kernel: PREEMPT_RT missing, wqrtd works: exit 0 (issue 33)" [ $? -eq 0 ]
ktap_test_result "...read from /boot/config-RELEASE, and named" \
	sh -c "grep -q 'configuration from $T/boot/config-6.12.48-wqrt' '$T/kc' &&
	       grep -qE '^MISSING +CONFIG_PREEMPT_RT +recommended .*is not set' '$T/kc' &&
	       grep -qE '^MISSING +CONFIG_PROC_EVENTS +recommended ' '$T/kc'"
rm -r "$T/boot"

# Issue 17.9: every exit status is documented
M=$(dirname "$0")/../../man
ktap_test_result "wqrtctl(8) documents drift (10) and each sysexits code used" \
	sh -c "for c in 10 64 65 66 69 70 72 74 75 78; do grep -q \"^\\.It \$c\" '$M/wqrtctl.8' || exit 1; done"
ktap_test_result "wqrtd(8) documents each sysexits code used" \
	sh -c "for c in 0 64 65 71 73 74 75 78; do grep -q \"^\\.It \$c\" '$M/wqrtd.8' || exit 1; done"

ktap_finished
