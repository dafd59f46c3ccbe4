#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# What a run leaves behind, whatever ends it (issue 46), against a fake
# root: the lock names the process that holds it, a put-back that fails
# at stop says so in the exit status, an originals file restore cannot
# read is kept and refused loudly. TAP output.
# Usage: cli-leftovers.sh BUILDDIR
B=${1:?usage: cli-leftovers.sh BUILDDIR}
. "$(dirname "$0")/../../selftests/lib/ktap.sh"
. "$(dirname "$0")/fake-root.sh"
make_fake_root leftovers
printf '[wq:tty_flip]\nnice = -4\n' > "$T/nice.conf"
R=$T/run/wqrtd

alive() { kill -0 "$1" 2>/dev/null; }
dead() { ! kill -0 "$1" 2>/dev/null; }

ktap_print_header
ktap_set_plan 10

# --- the lock names who holds it, after daemon() too ---
"$B/wqrtd" -c "$T/nice.conf" --root "$T" 2> "$T/dlog"
ktap_test_result "wqrtd without --foreground detaches, exit 0" [ $? -eq 0 ]
within5 test -e "$R/daemon"
DPID=$(sed -n 's/^pid=//p' "$R/daemon")
ktap_test_result "its lock file names the process that holds it ($DPID), not the parent that exited" \
	sh -c "[ -n '$DPID' ] && [ \"\$(cat '$R/lock')\" = '$DPID' ]"
# whoever is refused names the holder by its name
"$B/wqrtd" --once -c "$T/nice.conf" --root "$T" > "$T/out" 2>&1
ktap_test_result "a second wqrtd is refused (75), naming the holder: pid $DPID (wqrtd)" \
	sh -c "[ $? -eq 75 ] && grep -qF 'pid $DPID (wqrtd) holds' '$T/out'"
kill -TERM "$DPID"
within5 dead "$DPID"

# --- a put-back that fails at stop: not exit 0 ---
"$B/wqrtd" --foreground -c "$T/nice.conf" --root "$T" 2> "$T/dlog" &
D=$!
within5 nice_is -4
chmod 0444 "$W/nice"
kill -TERM "$D"
wait "$D"
RC=$?
chmod 0644 "$W/nice"
ktap_test_result "a put-back that fails at stop exits 74, not 0 (got $RC)" [ "$RC" -eq 74 ]
ktap_test_result "...says what is left, and where" \
	grep -qF "1 original(s) could not be put back; $R/originals keeps them" "$T/dlog"
"$B/wqrtctl" restore --root "$T" > /dev/null 2>&1
ktap_test_result "...which wqrtctl restore puts back" nice_is 0

# --- an originals file with a line that cannot be read ---
printf 'wqrtd-originals 2\nwq tty_flip nice 0\nwq tty_flip rtprio 500\n' > "$R/originals"
cp "$R/originals" "$T/orig.before"
echo -4 > "$W/nice"
"$B/wqrtctl" restore --root "$T" > "$T/out" 2>&1
RC=$?
sed 's/^/# /' "$T/out"
ktap_test_result "restore of a file with an out-of-range value: 65, naming file and line" \
	sh -c "[ $RC -eq 65 ] && grep -qF '$R/originals:3: ' '$T/out'"
ktap_test_result "...the file kept as it was, nothing put back" \
	sh -c "cmp -s '$R/originals' '$T/orig.before' && [ \"\$(cat '$W/nice')\" = -4 ]"
"$B/wqrtd" --once -c "$T/nice.conf" --root "$T" > "$T/out" 2>&1
ktap_test_result "...and wqrtd refuses to change anything beside it (65)" \
	sh -c "[ $? -eq 65 ] && cmp -s '$R/originals' '$T/orig.before'"
rm -f "$R/originals"
echo 0 > "$W/nice"

# --- the unit: an exit that restarting cannot fix is not restarted ---
U=$(dirname "$0")/../../conf/wqrtd.service
prevent=$(sed -n 's/^RestartPreventExitStatus=//p' "$U" | xargs)
ktap_test_result "RestartPreventExitStatus= has 64 65 73 75 77 78 (usage, originals, runtime directory, another holder, root, configuration): '$prevent'" \
	sh -c "for c in 64 65 73 75 77 78; do case ' $prevent ' in *\" \$c \"*) ;; *) exit 1 ;; esac; done"
ktap_finished
