#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Every exit status wqrtctl(8) documents, each made to happen, against a
# fake root: the list of codes comes from the man page, so a code
# documented there without a case here fails. And what a user does to the
# daemon besides SIGTERM and SIGHUP (cli.sh): --version, SIGINT, and
# restore_on_exit = no with wqrtctl restore afterwards. TAP output.
# Usage: exits.sh BUILDDIR
B=${1:?usage: exits.sh BUILDDIR}
M=$(dirname "$0")/../../man
. "$(dirname "$0")/../../selftests/lib/ktap.sh"
. "$(dirname "$0")/../../selftests/lib/task.sh"
. "$(dirname "$0")/fake-root.sh"
make_fake_root exits
echo 6.12.48-wqrt > "$T/proc/sys/kernel/osrelease"
printf '[wq:tty_flip]\nnice = -4\n' > "$T/nice.conf"
printf '[global]\nrestore_on_exit = no\n[wq:tty_flip]\nnice = -4\n' > "$T/keep.conf"
printf '[wq:tty_flip]\nrtpri = 20\n' > "$T/bad.conf"

# stop PID SIGNAL: send it, wait up to 5 s for the daemon to exit, and
# return its exit status; one that is still there is killed: 124
stop() {
	kill -"$2" "$1"
	within5 sh -c "! kill -0 $1 2>/dev/null" || {
		kill -KILL "$1"
		wait "$1"
		return 124
	}
	wait "$1"
}

# the codes wqrtctl(8) documents, in its EXIT STATUS section
documented=$(sed -n '/^\.Sh EXIT STATUS/,/^\.Sh /s/^\.It \([0-9][0-9]*\).*/\1/p' "$M/wqrtctl.8" | xargs)
tested=
# rc CODE DESCRIPTION COMMAND...: COMMAND exits CODE
rc() {
	_want=$1 _d=$2
	shift 2
	"$@" > "$T/out" 2>&1
	_got=$?
	tested="$tested $_want"
	if [ "$_got" = "$_want" ]; then
		ktap_test_pass "wqrtctl exits $_want: $_d"
	else
		ktap_test_fail "wqrtctl exits $_want: $_d (got $_got)"
		sed 's/^/#   /' "$T/out"
	fi
}

ktap_print_header
ktap_set_plan 29

rc 0 "check of a valid file" "$B/wqrtctl" check "$T/nice.conf"
rc 10 "status finds drift (nice 0, the file asks -4)" \
	"$B/wqrtctl" status -c "$T/nice.conf" --root "$T"
rc 64 "an unknown command" "$B/wqrtctl" frobnicate
# check-kernel with neither /proc/config.gz nor /boot/config-RELEASE
rc 66 "check-kernel with no kernel configuration to read" \
	"$B/wqrtctl" check-kernel --root "$T"
# PREEMPT_RT is only recommended (wqrtctl(8)): sysfs is required
printf '# CONFIG_SYSFS is not set\nCONFIG_PREEMPT_RT=y\n' | gzip > "$T/proc/config.gz"
rc 69 "check-kernel on a kernel without sysfs" \
	"$B/wqrtctl" check-kernel --root "$T"
rm "$T/proc/config.gz"
rc 72 "list where --root has no sysfs workqueue directory" \
	"$B/wqrtctl" list --root "$T/proc"
rc 78 "check of a file with errors" "$B/wqrtctl" check "$T/bad.conf"

# the daemon running: status reads its copy of the configuration, restore
# is refused
"$B/wqrtd" --foreground -c "$T/nice.conf" --root "$T" 2> "$T/dlog" &
D=$!
within5 test -e "$T/run/wqrtd/daemon"
within5 nice_is -4
rc 75 "restore while wqrtd runs" "$B/wqrtctl" restore --root "$T"
# CAP_NET_ADMIN (bit 12) was for the netlink sockets: gone from every set
# once the daemon listens. Only root starts with it.
cap_net_admin() {
	_hex=$(sed -n "s/^$1:[[:space:]]*//p" "/proc/$D/status")
	echo $(((0x$_hex >> 12) & 1))
}
if [ "$(id -u)" = 0 ]; then
	ktap_test_result "wqrtd gives up CAP_NET_ADMIN once listening (effective, permitted, bounding)" \
		sh -c "[ '$(cap_net_admin CapEff)' = 0 ] && [ '$(cap_net_admin CapPrm)' = 0 ] && [ '$(cap_net_admin CapBnd)' = 0 ]"
else
	ktap_test_skip "wqrtd gives up CAP_NET_ADMIN once listening" "not root: it never had it"
fi
snap=$(sed -n 's/^snapshot=//p' "$T/run/wqrtd/daemon")
mv "$snap" "$snap.away"
rc 70 "status when the daemon's copy of its configuration is gone" \
	"$B/wqrtctl" status --root "$T"
mv "$snap.away" "$snap"

# SIGINT is SIGTERM: restore, exit 0
stop $D INT
ktap_test_result "SIGINT: wqrtd exits 0 (within 5 s)" [ $? -eq 0 ]
ktap_test_result "SIGINT: the original nice is back (0)" nice_is 0

# restore_on_exit = no: the profile stays, wqrtctl restore puts it back
"$B/wqrtd" --foreground -c "$T/keep.conf" --root "$T" 2> "$T/dlog" &
D=$!
within5 nice_is -4
stop $D TERM
ktap_test_result "restore_on_exit = no: wqrtd exits 0 on SIGTERM" [ $? -eq 0 ]
ktap_test_result "...and leaves the profile in force (nice -4)" nice_is -4
ktap_test_result "...and keeps the originals for wqrtctl restore" \
	grep -q '^wq tty_flip nice 0$' "$T/run/wqrtd/originals"
# a value that cannot be put back: 74, and the file keeps it
chmod 0444 "$W/nice"
rc 74 "restore when a value cannot be written back" \
	"$B/wqrtctl" restore --root "$T"
ktap_test_result "...and says how many: 1" \
	grep -q '^wqrtctl: 1 value(s) could not be put back' "$T/out"
ktap_test_result "...and the originals file keeps it for another try" \
	grep -q '^wq tty_flip nice 0$' "$T/run/wqrtd/originals"
chmod 0644 "$W/nice"
# the lock cannot be taken: 73, nothing put back
mkdir "$T/run/wqrtd/lock.d" && mv "$T/run/wqrtd/lock" "$T/lock.f" && mv "$T/run/wqrtd/lock.d" "$T/run/wqrtd/lock"
rc 73 "restore when its lock cannot be taken (a directory)" \
	"$B/wqrtctl" restore --root "$T"
rmdir "$T/run/wqrtd/lock" && mv "$T/lock.f" "$T/run/wqrtd/lock"
# the file cannot be read, but is there: 66, not "nothing to restore"
mv "$T/run/wqrtd/originals" "$T/orig.away"
ln -s originals "$T/run/wqrtd/originals"
rc 66 "restore when the originals file cannot be read (ELOOP)" \
	"$B/wqrtctl" restore --root "$T"
rm "$T/run/wqrtd/originals" && mv "$T/orig.away" "$T/run/wqrtd/originals"
rc 0 "restore puts the original back" "$B/wqrtctl" restore --root "$T"
ktap_test_result "...nice 0 again, nothing left to put back" \
	sh -c "[ \"\$(cat '$W/nice')\" = 0 ] && [ ! -e '$T/run/wqrtd/originals' ]"

# restore as a user on the real root: 77, before it reads anything
if [ "$(id -u)" = 0 ]; then
	rc 77 "restore as a user, without --root" \
		setpriv --reuid=65534 --regid=65534 --clear-groups "$B/wqrtctl" restore
else
	rc 77 "restore as a user, without --root" "$B/wqrtctl" restore
fi

# originals written during another boot: 65, and nothing put back
mkdir -p "$T/proc/sys/kernel/random"
echo 11111111-2222-3333-4444-555555555555 > "$T/proc/sys/kernel/random/boot_id"
printf 'boot 99999999-2222-3333-4444-555555555555\ntty_flip nice 0\n' > "$T/run/wqrtd/originals"
echo -4 > "$W/nice"
rc 65 "restore of another boot's originals file" "$B/wqrtctl" restore --root "$T"
ktap_test_result "...and nothing was put back (nice -4)" nice_is -4
rm -f "$T/run/wqrtd/originals" "$T/proc/sys/kernel/random/boot_id"

ktap_test_result "every code wqrtctl(8) documents was made to happen ($documented)" \
	sh -c "for c in $documented; do case ' $tested ' in *\" \$c \"*) ;; *) echo \"# not tested: \$c\"; exit 1 ;; esac; done"

# --help names every option the SYNOPSIS of wqrtctl(8) names
opts=$(sed -n '/^\.Sh SYNOPSIS/,/^\.Sh /s/.*Fl \\-\([a-z-]*\).*/--\1/p' "$M/wqrtctl.8" | sort -u | xargs)
"$B/wqrtctl" --help > "$T/help" 2>&1
ktap_test_result "wqrtctl --help names every long option of wqrtctl(8)'s SYNOPSIS ($opts)" \
	sh -c "for o in $opts; do grep -q -- \"\$o\" '$T/help' || { echo \"# --help lacks \$o\"; exit 1; }; done"

# --version: the program's name and the version, exit 0
v=$("$B/wqrtd" --version)
ktap_test_result "wqrtd --version: '$v', exit 0" \
	sh -c "[ $? -eq 0 ] && echo '$v' | grep -qE '^wqrtd [0-9]'"
v=$("$B/wqrtctl" --version)
ktap_test_result "wqrtctl --version: '$v', exit 0" \
	sh -c "[ $? -eq 0 ] && echo '$v' | grep -qE '^wqrtctl [0-9]'"
ktap_finished
