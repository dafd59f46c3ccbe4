#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# wqrtctl try's trial never becomes permanent (issue 46.1, 46.2, 46.5,
# 46.6), on a fake root with a fake tracing directory (wqrtctl-faketrace,
# as cli-trace.sh): alone it holds wqrtd's lock and leaves nothing;
# through wqrtd it is a file of the runtime directory laid over the
# profile without a reload, taken out when the try ends or is killed,
# and removed by the next wqrtd when its process is gone. TAP output.
# Usage: cli-try.sh BUILDDIR
B=${1:?usage: cli-try.sh BUILDDIR}
. "$(dirname "$0")/../../selftests/lib/ktap.sh"
. "$(dirname "$0")/fake-root.sh"
make_fake_root try
# named wqrtctl: wqrtd's rescan takes out the tracefs instances of
# processes of another name as leftovers (tracedir.c)
cp "$B/tests/wqrtctl-faketrace" "$T/wqrtctl"
C=$T/wqrtctl
make_fake_tracefs
mkdir -p "$T/run/wqrtd"
R=$T/run/wqrtd
# a rescan every 30 s: a killed try is seen by its pidfd, not by a rescan
printf '[global]\nrescan_interval = 30\n[wq:tty_flip]\nnice = -4\n' > "$T/wqrt.conf"

trials() { ls -a "$R" | grep -c 'trial-[0-9]'; }
strict_is() { [ "$(cat "$W/affinity_strict")" = "$1" ]; }

ktap_print_header
ktap_set_plan 21

# --- alone ---
"$C" try --root "$T" --json --for 0.2 tty_flip nice=-5 > "$T/out" 2> "$T/err"
RC=$?
sed 's/^/# /' "$T/err"
ktap_test_result "try alone: exit 0, through alone, put back (got $RC)" \
	sh -c "[ $RC -eq 0 ] && grep -q '\"through\": \"alone\"' '$T/out' && grep -q '\"put_back\": true' '$T/out'"
ktap_test_result "...nice 0 again, no originals, no trial file left" \
	sh -c "[ \"\$(cat '$W/nice')\" = 0 ] && [ ! -e '$R/originals' ] && [ \$(ls -a '$R' | grep -c 'trial-') -eq 0 ]"

# a put-back that fails: said, exit 74, the original kept for restore
"$C" try --root "$T" --for 2 tty_flip nice=-5 > "$T/out" 2>&1 &
P=$!
within5 nice_is -5
chmod 0444 "$W/nice"
wait $P
RC=$?
chmod 0644 "$W/nice"
sed 's/^/# /' "$T/out"
ktap_test_result "a value try cannot put back: exit 74, named (got $RC)" \
	sh -c "[ $RC -eq 74 ] && grep -q 'NOT put back as found' '$T/out' && grep -q 'nice: -5, was 0' '$T/out' && grep -q 'nice 0' '$R/originals'"
"$B/wqrtctl" restore --root "$T" > /dev/null 2>&1
ktap_test_result "...and wqrtctl restore puts it back" nice_is 0

# an attribute someone else changed meanwhile: every attribute is
# compared at the end, and the difference said, exit 74
"$C" try --root "$T" --for 2 tty_flip nice=-5 > "$T/out" 2>&1 &
P=$!
within5 nice_is -5
echo 100 > "$W/max_active"
wait $P
RC=$?
echo 256 > "$W/max_active"
ktap_test_result "an attribute changed by another meanwhile: exit 74, named (got $RC)" \
	sh -c "[ $RC -eq 74 ] && grep -q 'max_active: 100, was 256' '$T/out' && [ \"\$(cat '$W/nice')\" = 0 ]"

# a trial file that cannot be removed: said with its path, exit 74
WQRT_FAKE_UNLINK_FAIL=.trial- "$C" try --root "$T" --for 0.2 tty_flip nice=-5 > "$T/out" 2>&1
RC=$?
sed 's/^/# /' "$T/out"
ktap_test_result "a trial file try cannot remove: exit 74, its path said (got $RC)" \
	sh -c "[ $RC -eq 74 ] && grep -q '^wqrtctl: $R/.trial-[0-9]*-[0-9]*.conf: Operation not permitted' '$T/out'"
rm -f "$R"/.trial-*

# the lock held (wqrtd --once, wqrtctl restore): refused before measuring
flock "$R/lock" sleep 3 &
F=$!
within5 sh -c "! flock -n '$R/lock' true"
"$C" try --root "$T" --for 0.2 tty_flip nice=-5 > "$T/out" 2>&1
RC=$?
wait $F
sed 's/^/# /' "$T/out"
ktap_test_result "try alone while another holds wqrtd's lock: exit 75 before measuring (got $RC)" \
	sh -c "[ $RC -eq 75 ] && grep -q 'nothing measured or changed' '$T/out' && ! grep -q 'as found, for' '$T/out' && [ \"\$(cat '$W/nice')\" = 0 ]"

# originals an earlier run left (wqrtd --once, a killed try): refused
# before measuring, the file kept for wqrtctl restore
printf 'wqrtd-originals 2\nwq tty_flip nice 0\n' > "$R/originals"
"$C" try --root "$T" --for 0.2 tty_flip nice=-5 > "$T/out" 2>&1
RC=$?
sed 's/^/# /' "$T/out"
ktap_test_result "try alone over an earlier run's originals: exit 75 before measuring, the file kept (got $RC)" \
	sh -c "[ $RC -eq 75 ] && grep -q 'wqrtctl restore first' '$T/out' && ! grep -q 'as found, for' '$T/out' && grep -q 'tty_flip nice 0' '$R/originals'"
rm -f "$R/originals"

# a bad key: refused before measuring, nothing left
"$C" try --root "$T" --for 0.2 tty_flip rtpri=5 > "$T/out" 2>&1
RC=$?
ktap_test_result "a bad key: exit 78 before measuring, no file left (got $RC)" \
	sh -c "[ $RC -eq 78 ] && ! grep -q 'as found, for' '$T/out' && [ \$(ls -a '$R' | grep -c 'trial-') -eq 0 ]"

# --- through wqrtd ---
"$B/wqrtd" --foreground -c "$T/wqrt.conf" --root "$T" 2> "$T/dlog" &
D=$!
within5 nice_is -4
within5 test -e "$R/daemon"
# an edit wqrtd was not told of: the trial must not apply it
sed -i 's/nice = -4/nice = -6/' "$T/wqrt.conf"
"$C" try --root "$T" --json --for 1 tty_flip affinity_strict=1 > "$T/out" 2> "$T/err" &
P=$!
within5 strict_is 1
NICE="$(cat "$W/nice") $(cat "$W/affinity_strict")"
# in force: the trial file alone, renamed into place, nothing pending
FILES=$(ls -a "$R" | grep 'trial-' | tr '\n' ' ')
wait $P
RC=$?
sed 's/^/# /' "$T/err"
ktap_test_result "over wqrtd's profile: exit 0, through wqrtd (got $RC)" \
	sh -c "[ $RC -eq 0 ] && grep -q '\"through\": \"wqrtd\"' '$T/out' && grep -q '\"put_back\": true' '$T/out'"
ktap_test_result "...only the key given: affinity_strict 1 with nice the profile's -4, not the pending -6 (nice, strict: $NICE)" \
	[ "$NICE" = "-4 1" ]
ktap_test_result "...its file in force alone, none pending (${FILES:-none})" \
	sh -c "echo '$FILES' | grep -q '^trial-$P-[0-9]*.conf trial-held $' || echo '$FILES' | grep -q '^trial-held trial-$P-[0-9]*.conf $'"
ktap_test_result "...then the profile back, affinity_strict 0, no trial file" \
	sh -c "[ \"\$(cat '$W/nice')\" = -4 ] && [ \"\$(cat '$W/affinity_strict')\" = 0 ] && [ \$(ls -a '$R' | grep -c 'trial-') -eq 0 ]"
sed -i 's/nice = -6/nice = -4/' "$T/wqrt.conf"
# wqrtd holds the trial but cannot make it so (a write refused): try
# does not measure a profile that is not in force (20 s: its wait)
chmod 0444 "$W/affinity_strict"
"$C" try --root "$T" --for 0.2 tty_flip affinity_strict=1 > "$T/out" 2>&1
RC=$?
chmod 0644 "$W/affinity_strict"
sed 's/^/# /' "$T/out"
ktap_test_result "a trial wqrtd cannot put in force: exit 74, not measured with it (got $RC)" \
	sh -c "[ $RC -eq 74 ] && grep -q 'did not apply the trial' '$T/out' && ! grep -q 'with affinity_strict=1, for' '$T/out'"
# where to keep it: the section in the file a person edits
"$C" try --root "$T" --for 0.2 tty_flip nice=-7 > "$T/out" 2>&1
ktap_test_result "...and says where to keep it: [wq:tty_flip] of $T/wqrt.conf" \
	grep -qF "set these keys in [wq:tty_flip] ($T/wqrt.conf:3," "$T/out"

# killed: wqrtd sees its pidfd and puts the profile back, while the try
# is still a zombie (its parent, a sleep, does not reap it: a pidfd says
# EPOLLIN then, EPOLLHUP only once it is reaped)
( "$C" try --root "$T" --for 3 tty_flip nice=-9 > "$T/out" 2>&1 &
	echo $! > "$T/try.pid"
	exec sleep 30 ) &
PARENT=$!
within5 test -s "$T/try.pid"
P=$(cat "$T/try.pid")
within5 nice_is -9 || within5 nice_is -9
"$C" try --root "$T" --for 0.2 tty_flip nice=-8 > "$T/out2" 2>&1
RC=$?
sed 's/^/# /' "$T/out2"
ktap_test_result "a second try meanwhile: exit 75 before measuring, names the first (got $RC)" \
	sh -c "[ $RC -eq 75 ] && grep -q 'another wqrtctl try (pid $P)' '$T/out2' && ! grep -q 'as found, for' '$T/out2'"
kill -KILL $P
within5 nice_is -4
ktap_test_result "a SIGKILLed try, not yet reaped: the profile back within 5 s, its file removed" \
	sh -c "[ \"\$(cat '$W/nice')\" = -4 ] && [ \$(ls -a '$R' | grep -c 'trial-') -eq 0 ]"
kill -TERM $PARENT
wait $PARENT 2> /dev/null
ktap_test_result "...and wqrtd says why" grep -q 'its wqrtctl try ended or is gone' "$T/dlog"
kill -TERM $D
wait $D

# a trial of a process that is gone, and one pending: the next start
# removes both and applies only the profile
sh -c 'exit 0' &
G=$!
wait $G
START=$(awk '{ print $22 }' /proc/self/stat)
printf '[wq:tty_flip]\nnice = -9\n' > "$R/trial-$G-$START.conf"
printf '[wq:tty_flip]\nnice = -9\n' > "$R/.trial-$G-$START.conf"
"$B/wqrtd" --foreground -c "$T/wqrt.conf" --root "$T" 2> "$T/dlog" &
D=$!
within5 nice_is -4
within5 sh -c "[ \$(ls -a '$R' | grep -c 'trial-') -eq 0 ]"
ktap_test_result "wqrtd's start: a gone process's trial removed, the profile applied" \
	sh -c "[ \"\$(cat '$W/nice')\" = -4 ] && [ \$(ls -a '$R' | grep -c 'trial-') -eq 0 ] && grep -q 'trial-$G-$START.conf: its wqrtctl try is gone' '$T/dlog'"
kill -TERM $D
wait $D
ktap_test_result "...and its stop puts the original back" nice_is 0
ktap_test_result "nothing of any trial reached the configuration's directory" \
	sh -c "[ ! -e '$T/wqrt.conf.d' ]"
ktap_finished
