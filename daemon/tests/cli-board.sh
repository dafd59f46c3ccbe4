#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The first steps of a board user with wqrtd and wqrtctl (issue 33):
# check-kernel on a kernel without the series, the commands that need root
# run as a user, option combinations, the warnings for sections that match
# nothing, and the vendor profile directory. A fake root, TAP output.
# Usage: cli-board.sh BUILDDIR
B=${1:?usage: cli-board.sh BUILDDIR}
. "$(dirname "$0")/../../selftests/lib/ktap.sh"
TOP=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d /tmp/wqrt-cli-board.XXXXXX)
trap 'rm -rf "$T"' EXIT
# the user of the tests as a user: T readable, its files not writable
chmod 0755 "$T"
VENDOR=$T/usr/lib/wqrt/conf.d
export WQRT_VENDOR_DIR="$VENDOR"
mkdir -p "$VENDOR"

WQ=$T/sys/devices/virtual/workqueue
# wq_6_12 NAME: a workqueue as 6.12 shows it, without the series
wq_6_12() {
	mkdir -p "$WQ/$1"
	for kv in per_cpu=0 nice=0 cpumask=0000000f \
		  "affinity_scope=default (cache)" affinity_strict=0 max_active=256; do
		echo "${kv#*=}" > "$WQ/$1/${kv%%=*}"
	done
}
# kthread PID COMM: a kworker in the fake /proc
kthread() {
	mkdir -p "$T/proc/$1"
	echo "$1 ($2) S 2 0 0 0 -1 2097216 0 0 0 0 0 0 0 0 20 0 1 0 77 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0" \
		> "$T/proc/$1/stat"
}
wq_6_12 writeback
wq_6_12 ttyS-serial_8250
kthread 103 kworker/u9:0-netns
kthread 104 kworker/0:2-events
kthread 105 kworker/1:1H
mkdir -p "$T/proc/sys/kernel" "$T/boot"
echo 950000 > "$T/proc/sys/kernel/sched_rt_runtime_us"
echo 6.12.117-amd64 > "$T/proc/sys/kernel/osrelease"

ktap_print_header
ktap_set_plan 36

# --- check-kernel on Debian's own kernel: no series, no PREEMPT_RT ---
printf 'CONFIG_SYSFS=y\n# CONFIG_PREEMPT_RT is not set\nCONFIG_CONNECTOR=y\nCONFIG_PROC_EVENTS=y\n' \
	> "$T/boot/config-6.12.117-amd64"
"$B/wqrtctl" check-kernel --root "$T" > "$T/kc" 2>&1
rc=$?
sed 's/^/# /' "$T/kc"
ktap_test_result "check-kernel without the series: exit 0, wqrtd works there" [ $rc -eq 0 ]
ktap_test_result "...it says fallback mode and what wqrtd does there" \
	sh -c "grep -q 'wqrtd works on this kernel in fallback mode' '$T/kc' &&
	       grep -q 'sched_setattr' '$T/kc'"
ktap_test_result "...and what it cannot do (nr_idle_extra, private pools)" \
	sh -c "grep -q 'cannot' '$T/kc' && grep -q 'nr_idle_extra' '$T/kc' &&
	       grep -q 'private' '$T/kc'"
ktap_test_result "...never 'cannot do its work' nor a README the package lacks" \
	sh -c "! grep -q 'cannot do its work' '$T/kc' && ! grep -q 'see README' '$T/kc'"
ktap_test_result "...the series' attributes are listed as missing, for sysfs mode" \
	grep -qE '^MISSING +policy +series ' "$T/kc"
"$B/wqrtctl" check-kernel --json --root "$T" > "$T/kc.json"
ktap_test_result "check-kernel --json: mode fallback, exit 0" \
	sh -c "[ $? -eq 0 ] && python3 -c \"import json,sys; d=json.load(open(sys.argv[1])); assert d['mode'] == 'fallback', d['mode']\" '$T/kc.json'"
printf '# CONFIG_SYSFS is not set\n' > "$T/boot/config-6.12.117-amd64"
"$B/wqrtctl" check-kernel --root "$T" > "$T/kc" 2>&1
ktap_test_result "check-kernel without CONFIG_SYSFS: 69, wqrtd cannot work there" \
	sh -c "[ $? -eq 69 ] && grep -q 'wqrtd cannot work on this kernel' '$T/kc'"
rm "$T/boot/config-6.12.117-amd64"

# --- as a user: what needs root says so ---
as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
out=$(as_user "$B/wqrtctl" restore 2>&1)
rc=$?
echo "# wqrtctl restore as uid 65534: $out (exit $rc)"
ktap_test_result "wqrtctl restore as a user: exit 77 (EX_NOPERM), not 'nothing to restore'" \
	sh -c "[ $rc -eq 77 ] && ! echo '$out' | grep -q 'nothing to restore'"
ktap_test_result "...saying that it needs root" \
	sh -c "echo '$out' | grep -q 'needs root'"
printf '[wq:writeback]\nnice = 0\n' > "$T/user.conf"
out=$(as_user "$B/wqrtd" --once -c "$T/user.conf" 2>&1)
rc=$?
echo "# wqrtd --once as uid 65534: $out (exit $rc)"
ktap_test_result "wqrtd --once as a user: exit 77 (EX_NOPERM) saying it needs root" \
	sh -c "[ $rc -eq 77 ] && echo '$out' | grep -q 'needs root'"
ktap_test_result "...not 'read-only attribute'" \
	sh -c "! echo '$out' | grep -q 'read-only'"
out=$(as_user "$B/wqrtd" --check -c "$T/user.conf" 2>&1)
ktap_test_result "wqrtd --check as a user still works" [ $? -eq 0 ]

# --- option combinations ---
out=$("$B/wqrtd" --once --check -c "$T/user.conf" --root "$T" 2>&1)
rc=$?
ktap_test_result "wqrtd --once --check: refused, 64, naming both" \
	sh -c "[ $rc -eq 64 ] && echo '$out' | grep -q -- '--check' && echo '$out' | grep -q -- '--once'"
"$B/wqrtd" --dry-run --once -c "$T/user.conf" --root "$T" > /dev/null 2>&1
ktap_test_result "wqrtd --dry-run --once: refused, 64" [ $? -eq 64 ]
"$B/wqrtctl" check --config "$T/user.conf" > "$T/out" 2>&1
ktap_test_result "wqrtctl check --config FILE is -c FILE" \
	sh -c "[ $? -eq 0 ] && grep -qF '$T/user.conf: ok' '$T/out'"
"$B/wqrtctl" check --config > /dev/null 2>&1
ktap_test_result "wqrtctl check --config without a file: 64" [ $? -eq 64 ]
"$B/wqrtctl" check -c "$T/user.conf" "$T/user.conf" > /dev/null 2>&1
ktap_test_result "wqrtctl check -c FILE FILE: 64" [ $? -eq 64 ]
ktap_test_result "completion: wqrtctl check --c<TAB> is --config" \
	[ "$(bash -c '. "$1"; COMP_WORDS=(wqrtctl check --c); COMP_CWORD=2; _wqrtctl; echo "${COMPREPLY[*]}"' \
		sh "$TOP/conf/bash-completion/wqrtctl")" = --config ]
M=$TOP/man
ktap_test_result "wqrtd(8) and wqrtctl(8) document 77 (EX_NOPERM)" \
	sh -c "grep -q '^\.It 77' '$M/wqrtd.8' && grep -q '^\.It 77' '$M/wqrtctl.8'"

# --- sections that match nothing: why ---
cat > "$T/nomatch.conf" <<'CONF'
[wq:events]
nice = -5

[wq:netns]
nice = -5

[wq:writback]
nice = -5

[wq:writeback]
nice = -5

[kworker:kwroker/u*]
policy = fifo
rtprio = 5

[kworker:kworker/u*]
policy = fifo
rtprio = 5
CONF
"$B/wqrtd" --check -c "$T/nomatch.conf" --root "$T" > "$T/nomatch.out" 2>&1
rc=$?
sed 's/^/# /' "$T/nomatch.out"
# warned SECTION TEXT: the warning about SECTION says TEXT
warned() { grep -F "[$1]: matches no" "$T/nomatch.out" | grep -qF -- "$2"; }
ktap_test_result "sections matching nothing are warnings, not errors" [ $rc -eq 0 ]
ktap_test_result "[wq:events]: is per-cpu" warned wq:events "events is per-cpu"
ktap_test_result "[wq:netns]: needs workqueue.sysfs=netns" \
	warned wq:netns "needs workqueue.sysfs=netns"
ktap_test_result "[wq:writback]: did you mean \`writeback\`" \
	warned wq:writback "did you mean \`writeback\`"
ktap_test_result "[wq:writeback], which matches, has no warning" \
	sh -c "! grep -qF '[wq:writeback]' '$T/nomatch.out'"
ktap_test_result "[kworker:kwroker/u*]: matches no kworker, a warning" \
	grep -qF 'nomatch.conf:13: [kworker:kwroker/u*]: matches no kworker' "$T/nomatch.out"
ktap_test_result "[kworker:kworker/u*], which matches, has no warning" \
	sh -c "! grep -qF '[kworker:kworker/u*]' '$T/nomatch.out'"

# --- the vendor profile directory ---
printf '[wq:writeback]\nnice = -1\n' > "$T/main.conf"
printf '[profile:uart]\npolicy = fifo\nrtprio = 20\n' > "$VENDOR/50-uart.conf"
printf '[wq:ttyS-serial_8250]\nprofile = uart\n' > "$VENDOR/60-board.conf"
"$B/wqrtctl" check -c "$T/main.conf" > "$T/out" 2>&1
ktap_test_result "the vendor directory's drop-ins are read: a profile of one used by another" \
	sh -c "[ $? -eq 0 ] && grep -qF '2 drop-in(s)' '$T/out'"
mkdir -p "$T/main.conf.d"
printf '[wq:ttyS-serial_8250]\nprofile = uart\nrtprio = 30\n' > "$T/main.conf.d/60-board.conf"
"$B/wqrtd" --dry-run -c "$T/main.conf" --root "$T" > "$T/plan" 2>&1
ktap_test_result "a drop-in of the same name in FILE.d replaces the vendor's" \
	sh -c "grep -q 'rtprio = 30' '$T/plan' && ! grep -q 'rtprio = 20' '$T/plan'"
rm "$T/main.conf.d/60-board.conf"
printf '[wq:ttyS-serial_8250]\nnice = 3\n' > "$T/main.conf.d/55-early.conf"
out=$("$B/wqrtd" --check -c "$T/main.conf" 2>&1)
ktap_test_result "lexical order over both directories: FILE.d's 55 before the vendor's 60" \
	sh -c "echo '$out' | grep -qF '$VENDOR/60-board.conf:1: [wq:ttys-serial_8250]: the section is already in $T/main.conf.d/55-early.conf:1'"
rm "$T/main.conf.d/55-early.conf"
ln -s /dev/null "$T/main.conf.d/60-board.conf"
"$B/wqrtctl" check -c "$T/main.conf" > "$T/out" 2>&1
ktap_test_result "a link to /dev/null in FILE.d masks the vendor's file of that name" \
	sh -c "[ $? -eq 0 ] && grep -qF '1 drop-in(s)' '$T/out'"
chmod 0777 "$VENDOR"
"$B/wqrtctl" check -c "$T/main.conf" > "$T/out" 2>&1
ktap_test_result "a vendor directory others can write is refused (78)" \
	sh -c "[ $? -eq 78 ] && grep -qF '$VENDOR: group or others can write it' '$T/out'"
chmod 0755 "$VENDOR"

# --- the seed profiles the package ships, all commented out ---
rm -f "$VENDOR"/*.conf "$T/main.conf.d"/*
cp "$TOP"/conf/conf.d/*.conf "$VENDOR/"
"$B/wqrtctl" check -c "$T/main.conf" > "$T/out" 2>&1
ktap_test_result "the seed profiles (conf/conf.d) are valid and change nothing as shipped" \
	sh -c "[ $? -eq 0 ] && grep -qF '(1 rule(s), 0 profile(s), with $(ls "$TOP"/conf/conf.d/*.conf | wc -l) drop-in(s)' '$T/out'"
# each seed, uncommented, is a valid configuration
seeds_valid() {
	ls "$TOP"/conf/conf.d/*.conf > /dev/null || return 1
	for f in "$TOP"/conf/conf.d/*.conf; do
		sed 's/^;\(\[\|[a-z_]* = \)/\1/' "$f" > "$VENDOR/$(basename "$f")"
		"$B/wqrtd" --check -c "$T/main.conf" --root "$T" > "$T/out" 2>&1 ||
			{ cat "$T/out"; return 1; }
		rm "$VENDOR/$(basename "$f")"
	done
}
ktap_test_result "each seed profile, uncommented, is valid" seeds_valid
# --- wqrt.conf(5): its example, as it renders ---
M=$TOP/man
mandoc -Tutf8 -O width=1000 "$M/wqrt.conf.5" 2>/dev/null | col -b > "$T/conf5.txt"
ktap_test_result "wqrt.conf(5): the nvme rescuer's names are quoted one by one" \
	grep -qF "(‘kworker/R-nvme-’ for ‘nvme-wq’ and ‘nvme-reset-wq’)" "$T/conf5.txt"
# the example (the last literal block) is a valid file, and the text
# above it speaks of the workqueue it profiles
sed -n '/^\.Sh EXAMPLES/,/^\.Ed/p' "$M/wqrt.conf.5" | sed '1,2d;$d' > "$T/example.conf"
ex_wq=$(sed -n 's/^\[wq:\(ttyS[^]]*\)\]$/\1/p' "$T/example.conf")
ktap_test_result "wqrt.conf(5): the example is a valid configuration" \
	"$B/wqrtd" --check -c "$T/example.conf" --root "$T"
ktap_test_result "wqrt.conf(5): the text names the example's workqueue ($ex_wq), no other" \
	sh -c "[ -n '$ex_wq' ] && grep -qF 'the workers of the pools of ‘$ex_wq’' '$T/conf5.txt' &&
	       ! grep -q 'tty_flip.s' '$T/conf5.txt'"
ktap_finished
