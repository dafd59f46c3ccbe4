#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Issue 30.2: the save of the originals fails closed on a real file
# system. On a full tmpfs, wqrtd --once changes nothing, exits 74, says
# why and leaves no originals.new behind; on a read-only one it changes
# nothing either. (Today both changes were made and --once exited 0.)
# Valid on the plain and the patched kernel.
. "$(dirname "$0")/lib.sh"
ktap_print_header

command -v wqrtd > /dev/null || skip_all "wqrtd is not on PATH"
[ -e "$WQDIR/writeback/nice" ] || skip_all "no $WQDIR/writeback"
RUN=$TMPD/run
mkdir -p "$RUN"
mount -t tmpfs -o size=16k,mode=0700 wqrt-full "$RUN" ||
	skip_all "cannot mount a tmpfs"

ktap_set_plan 6
NICE=$(cat "$WQDIR/writeback/nice")
printf '[wq:writeback]\nnice = -3\n' > "$CONF"
# fill it: every page taken
dd if=/dev/zero of="$RUN/fill" bs=4096 2> /dev/null
RUNTIME_DIRECTORY=$RUN wqrtd --once -c "$CONF" > "$LOG" 2>&1
rc=$?
sed 's/^/#   /' "$LOG"
ktap_test_result "--once with a full disk for the originals: exit 74" [ $rc -eq 74 ]
ktap_test_result "...writeback's nice is unchanged ($NICE)" \
	attr_is writeback nice "$NICE"
ktap_test_result "...no originals.new is left behind" [ ! -e "$RUN/originals.new" ]
ktap_test_result "...and the log says why" logged "No space left on device"

rm "$RUN/fill"
mount -o remount,ro "$RUN"
RUNTIME_DIRECTORY=$RUN wqrtd --once -c "$CONF" > "$LOG" 2>&1
rc=$?
sed 's/^/#   /' "$LOG"
ktap_test_result "--once with a read-only file system for the originals: fails ($rc)" \
	[ $rc -ne 0 ]
ktap_test_result "...and writeback's nice is unchanged ($NICE)" \
	attr_is writeback nice "$NICE"
echo "$NICE" > "$WQDIR/writeback/nice"
umount "$RUN"
finish
