# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154 # top, what: run.sh's
#
# lib.sh: what every VM benchmark of selftests/bench shares, sourced by
# run.sh before the benchmark's own driver (selftests/bench/NAME/driver.sh):
# the output folder, the quiet-host check and its record, building a
# kernel flavour with its benchmark module, booting a guest script with
# the host watched per round, the host-wide bench lock, each result's
# environment record, the plots' common parts, and the seeded orders of
# the variants. Needs top (the source tree) and what (the benchmark).

build=${WQRT_BUILD:-$top/build}
out=$build/bench
mkdir -p "$out"
# when this part of the bench began: every environment record gives the
# span to its own writing, so the parts of one make bench add up to its
# wall time
started=$(date -u '+%F %H:%M')

# Every sample is two clock reads. Under TCG the guest's clocksource
# watchdog moved the TSC to the HPET (an MMIO exit per read) in 3 of 25
# prod boots and 6 of 15 lock_stat boots of the first enqueue runs,
# mid-run: the TSC QEMU emulates is the host's clock, so mark it reliable
# (no watchdog) in every bench boot; env_record() says which clocksource
# a boot started and ended on.
export WQRT_VM_APPEND="${WQRT_VM_APPEND:+$WQRT_VM_APPEND }tsc=reliable"

# Since 2026-12-04 the busybox VMs' init holds the sched, workqueue and irq
# tracepoints enabled in two tracing instances with tracing off
# (selftests/lib/trace-hold.sh), so that enabling an event never patches
# kernel text under multi-threaded TCG (the "Oops: int3"). Held, every
# queue_work() and wakeup runs the events' probes up to the ring buffer's
# refusal: a counting boot of 2026-12-05 found them twice the instructions
# of a per-CPU queue_work() (cost-2026-12-05-counts-held.md). A
# benchmark whose guest never enables a tracepoint sets hold_tracepoints=0
# before its boots: boot() then puts no_trace_hold on the command line and
# stops the run if the guest held them all the same. The init says on an
# "I trace_hold N" line how many holding instances it made; env_record()
# writes it into every result.
no_trace_hold=wqrt.trace_hold=0
hold_tracepoints=1

# no_trace_hold_check LOG NAME: stop the run unless the guest of boot NAME
# held no tracepoints (its init's "I trace_hold 0": no_trace_hold in force)
no_trace_hold_check() {
	tr -d '\r' <"$1" | grep -q '^I trace_hold 0$' && return 0
	echo "bench-$what: the guest of $2 held tracepoints (lib.sh's no_trace_hold not in force): $(tr -d '\r' <"$1" | grep '^I trace_hold' || echo 'no trace_hold line')" >&2
	exit 1
}

# A latency benchmark runs on a quiet host or not at all (quiet.sh): the
# host is checked when the bench lock is taken and before every boot, and
# every result says how the checks went (a forced run first). Boots that
# count instructions, or time on the guest's instruction clock (-icount),
# are not checked (quiet_exempt=1: the host's load does not change what
# they measure): the counting boots of cost and flush-sweep, and the timed
# boots of cost with ICOUNT=1. Its timed boots on the host's clock are.
. "$top/selftests/bench/quiet.sh"
quiet_rec=$out/quiet-$what.record
: >"$quiet_rec"
# the boots of this run, "NAME KERNEL" a line: env_record gives the host
# per round of each boot of its kernel (quiet.sh's round_watch)
rounds_list=$out/rounds-$what.list
: >"$rounds_list"
quiet_check() { # WHO
	[ "${quiet_exempt:-0}" = 0 ] && [ "$what" != flush-sweep ] || return 0
	host_quiet "$1" "$quiet_rec"
}

# A kernel is a flavour (perf, perf-plain, ...) or FLAVOUR@N: the flavour
# with only the first N patches of the series, built in a tree of its own
# (FLAVOUR-pN) for a per-patch A/B, or in the one tree PREFIX_TREE for every
# prefix (built and booted one after the other, each build changes only what
# the patches between two prefixes change: make bench-cost's counts).
build_flavour() { # KERNEL -> builds kernel + bench module, prints stage dir
	local k=$1 stage=$out/stage-$1 flavour=${1%@*} kdir
	if [ "$k" != "$flavour" ]; then
		WQRT_TREE=${PREFIX_TREE:-${WQRT_TREE_PREFIX:-}$flavour-p${k#*@}} \
			"$top/kernel/scripts/build.sh" "$flavour" "${k#*@}" >&2
	else
		"$top/kernel/scripts/build.sh" "$k" >&2
	fi
	# the tree just built: build/kernel-FLAVOUR points at it
	kdir=$(readlink -f "$build/kernel-$flavour")
	make --no-print-directory -C "$top/selftests/bench" \
		KDIR="$kdir/obj" OUT="$out/module-$k" >/dev/null
	rm -rf "$stage"
	mkdir -p "$stage"
	cp "$out/module-$k/wqrt_bench.ko" "$stage/"
	echo "$kdir" >"$stage/.kdir"
	echo "$stage"
}

# guest_kernel_ok VMOUT NAME: stop the benchmark when the kernel of boot
# NAME panicked, stalled or logged a BUG, WARNING or lockdep report (the
# VM's verdict, selftests/vm/tap-verdict.sh, in its output VMOUT): what
# such a boot measured is no result. A boot its timeout cut short is
# not stopped here: the drivers that allow it keep its finished rounds
# and say how many ran.
guest_kernel_ok() {
	grep -qE '^wqrt-vm: FAIL: the kernel (panicked|reported a stall|log has)' "$1" || return 0
	grep '^wqrt-vm: FAIL' "$1" | head -n 40 >&2
	echo "bench-$what: boot $2: its kernel reported the problem above; no table from this run (all of it: $1)" >&2
	exit 1
}

boot() { # KERNEL SCRIPT NAME TIMEOUT: run SCRIPT in the VM, log in $out/NAME.log
	local k=$1 script=$2 name=$3 t=$4 stage s0 l0 append=${WQRT_VM_APPEND:-}
	[ "$hold_tracepoints" = 1 ] || append="$append $no_trace_hold"
	stage=$out/stage-$k
	quiet_check "bench-$what: boot $name"
	s0=$(steal) l0=$(cut -d' ' -f1-3 /proc/loadavg)
	cp "$script" "$stage/run.sh"
	cp "$top/selftests/bench/load.sh" "$top/selftests/bench/wqattr.sh" "$stage/"
	# the host during each of the boot's rounds: the guest's "O ROUND"
	# lines, read as they come; a tap.log of an earlier run must not count
	rm -f "$build/vm/bench-$name/tap.log"
	round_watch_start "$build/vm/bench-$name/tap.log" "$out/$name.rounds"
	WQRT_VM_APPEND=$append "$top/selftests/vm/vm.sh" script "$(cat "$stage/.kdir")" "$stage/run.sh" \
		--name "bench-$name" --timeout "$t" >"$out/$name.vmout" 2>&1 || true
	round_watch_stop "$out/$name.rounds"
	echo "$name $k" >>"$rounds_list"
	cp "$build/vm/bench-$name/tap.log" "$out/$name.log"
	guest_kernel_ok "$out/$name.vmout" "$name"
	# a guest that reached its init's line held what it was asked to
	# (one that did not is the driver's failed boot)
	if [ "$hold_tracepoints" = 0 ] && grep -q '^I trace_hold' "$out/$name.log"; then
		no_trace_hold_check "$out/$name.log" "$name"
	fi
	# The accelerator the numbers were measured with goes with them.
	cp "$build/vm/bench-$name/accel" "$out/$name.accel" 2>/dev/null || true
	# the host during this boot: its load before and after, its steal
	echo "load $l0 -> $(cut -d' ' -f1-3 /proc/loadavg), steal $(steal_pct "$s0" "$(steal)") %" >"$out/$name.host"
}

# The boots, not the builds, hold the host-wide bench lock, so that two
# benchmarks never share the host's CPUs (WQRT_BENCH_LOCK= to skip it).
bench_lock() { # WHO: wait for the lock on fd 7
	lock=${WQRT_BENCH_LOCK-/tmp/wqrt-bench.lock}
	[ -z "$lock" ] || {
		exec 7>"$lock"
		echo "$1: waiting for $lock"
		flock 7
	}
	quiet_check "$1"
}

bench_unlock() {
	[ -z "$lock" ] || exec 7>&-
}

accel_of() { # NAME: "kvm" or "tcg" as run-vm.sh chose it for that run
	head -n 1 "$out/$1.accel" 2>/dev/null || echo unknown
}

series_id() { # the series a kernel of this run carries: a hash of its files, and git's last commit of them
	local h c
	h=$(cd "$top/kernel" && { cat series; sed 's|^|patches/|' series | xargs cat; cat stable/*.patch; } 2>/dev/null |
		sha256sum | cut -c1-12)
	c=$(git -C "$top" log -1 --format=%h -- kernel/series kernel/patches kernel/stable 2>/dev/null || true)
	echo "series sha256 $h (kernel/series, its patches, kernel/stable)${c:+, last changed in commit $c}$(git -C "$top" diff --quiet HEAD -- kernel 2>/dev/null || echo ', with uncommitted changes')"
}

env_record() { # NAME KERNEL LOAD_BEFORE LOAD_AFTER: markdown list, every result carries it
	# KERNEL@N has no build/kernel-* link of its own: its stage knows the tree
	local log=$out/$1.log kcfg
	kcfg=$(cat "$out/stage-$2/.kdir" 2>/dev/null || echo "$build/kernel-$2")/obj/.config
	echo "- kernel: $2 flavour, $(grep -E '^CONFIG_HZ=' "$kcfg"), $(grep -q '^CONFIG_PREEMPT_RT=y' "$kcfg" && echo PREEMPT_RT || echo "not PREEMPT_RT"), $(grep -q '^CONFIG_CC_OPTIMIZE_FOR_PERFORMANCE=y' "$kcfg" && echo -O2 || echo -Os), lock debugging $(grep -qE '^CONFIG_(LOCKDEP|LOCK_STAT|DEBUG_SPINLOCK)=y' "$kcfg" && echo on || echo off), trace events $(grep -q '^CONFIG_EVENT_TRACING=y' "$kcfg" && echo on || echo off); .config sha256 $(sha256sum <"$kcfg" | cut -c1-16)"
	echo "- host: $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1), $(nproc) CPUs; $(qemu-system-x86_64 --version | head -n 1)"
	echo "- accelerator: $(accel_of "$1") ($(sed -n 2p "$out/$1.accel" 2>/dev/null))"
	echo "- guest: $(sed -n 's/^I kernel .* vcpus \([0-9]*\) .*/\1/p' "$log") vCPUs, clocksource $(sed -n 's/^I clocksource //p' "$log" | awk '!seen[$0]++' | paste -sd' ' | sed 's/ /, then /g')"
	echo "- $(series_id)"
	case "$(tr -d '\r' <"$log" | sed -n 's/^I trace_hold //p' | head -n 1)" in
	0) echo "- tracepoints: none held (wqrt.trace_hold=0)" ;;
	'') echo "- tracepoints: not recorded" ;;
	*) echo "- tracepoints: held by the VM's init (the sched, workqueue and irq events registered, tracing off): every queue_work() and wakeup runs their probes" ;;
	esac
	echo "- host load (/proc/loadavg) before: $3; after: $4"
	echo "- wall clock: run.sh $what started $started UTC, this record $(date -u +%H:%M) UTC"
	[ ! -s "$out/$1.host" ] || echo "- host during the boot: $(cat "$out/$1.host")"
	quiet_record "$quiet_rec"
	local name kernel
	while read -r name kernel; do
		[ "$kernel" != "$2" ] || rounds_record "$name" "$out/$name.rounds"
	done <"$rounds_list"
}

one_boot_environment() { # NAME KERNEL LOAD_BEFORE LOAD_AFTER SEED BASE: a one-boot result's environment section
	local log=$out/$1.log
	echo "## Environment"
	echo
	env_record "$1" "$2" "$3" "$4"
	echo "- .config: selftests/bench/results/$6-$2.config.xz"
	echo
	echo '```'
	grep '^I ' "$log" | cut -c3-
	grep '^O ' "$log" | sed 's/^O /round /'
	echo "order of the rounds drawn from seed $5"
	echo '```'
}

survival_plot_head() { # SIZE PNG LAYOUT TITLE MARK_US: a multiplot of 1-CDFs, log-log
	cat <<GP
set terminal pngcairo size $1 noenhanced
set output "$2"
set multiplot layout $3 title "$4"
set logscale xy
set xlabel "latency (us)"
set ylabel "share"
set arrow from $5, graph 0 to $5, graph 1 nohead dt 2
set key top right
set grid
GP
}

plot_set() { # TITLE VARIANTS...: a gnuplot panel, the survival curves
	# ($d/surv-VARIANT.dat) of those that ran
	local t=$1 p="" x
	shift
	for x in "$@"; do
		[ -s "$d/surv-$x.dat" ] && p="$p $x"
	done
	echo "set title \"$t\""
	if [ -n "$p" ]; then
		echo "plot for [v in \"${p# }\"] \"$d/surv-\".v.\".dat\" using 1:2 with steps lw 2 title v"
	else
		# an empty panel: a curve outside its range, and a label
		echo "set label 1 \"not run\" at graph 0.4, graph 0.5"
		echo "plot [1:10][1:10] 100 notitle"
		echo "unset label 1"
	fi
}

steal() { # the host's steal and total jiffies, from /proc/stat
	awk '$1 == "cpu" { t = 0; for (i = 2; i <= NF; i++) t += $i; print $9, t }' /proc/stat
}

steal_pct() { # BEFORE AFTER ("steal total" each): % of the host's CPU time stolen
	# the conditional in parentheses: a bare ">" after printf's
	# arguments would redirect its output to a file
	echo "$1 $2" | awk '{ d = $4 - $2; printf "%.1f", (d > 0 ? 100 * ($3 - $1) / d : 0) }'
}

kernels_built=
build_once() { # KERNEL: build it and its module once per run
	case " $kernels_built " in *" $1 "*) return 0 ;; esac
	build_flavour "$1" >/dev/null
	kernels_built="$kernels_built $1"
}

# The counting boots of make bench-cost and make bench-flush-sweep: one
# TCG thread (the vCPUs take turns), the guest's clock on instructions
# (-icount shift=0,sleep=off: timer ticks land at the same instructions on
# any host) and the wqcount plugin (selftests/bench/cost/wqcount.c) around
# the cases of wqrt_bench's cost command (selftests/bench/cost/vm-cost.sh).
count_boot() { # KERNEL SMP NAME RUNS [CASES]: $out/NAME.{log,plugin,map,env}
	local k=$1 smp=$2 name=$3 runs=$4 cases=${5:-} before after
	# counts do not depend on the host's load (boot() sees this), and
	# the guest enables no event: no probe in what it counts
	local quiet_exempt=1 hold_tracepoints=0
	if [ -z "${wqcount_built:-}" ]; then
		gcc -O2 -Wall -Wextra -Werror -fPIC -shared -fvisibility=hidden \
			-o "$out/wqcount.so" "$top/selftests/bench/cost/wqcount.c"
		wqcount_built=1
	fi
	cp "$top/selftests/bench/cost/vm-cost.sh" "$out/stage-$k/vm-cost.sh"
	sed -i "s/^RUNS=.*/RUNS=$runs/" "$out/stage-$k/vm-cost.sh"
	[ -z "$cases" ] || sed -i "s/^CASES=.*/CASES=\"$cases\"/" "$out/stage-$k/vm-cost.sh"
	echo "bench-$what: counting on $k, -smp $smp ($runs runs a case, one TCG thread, wqcount plugin)"
	rm -f "$out/$name.plugin"
	before=$(cat /proc/loadavg)
	WQRT_VM_SMP=$smp WQRT_VM_TCG_THREAD=single WQRT_VM_ACCEL=tcg \
	WQRT_VM_APPEND="$WQRT_VM_APPEND nokaslr" \
	WQRT_VM_QEMU_ARGS="-icount shift=0,sleep=off -plugin $out/wqcount.so,arg=lines=on -d plugin -D $out/$name.plugin" \
		boot "$k" "$out/stage-$k/vm-cost.sh" "$name" 3600 </dev/null
	after=$(cat /proc/loadavg)
	sed -i 's/\r$//' "$out/$name.log"
	if ! grep -q '^I kernel' "$out/$name.log" ||
		! grep -q '^B ' "$out/$name.log" ||
		! grep -q '^E wqcount done' "$out/$name.plugin"; then
		cat "$out/$name.vmout"
		echo "bench-$what: the counting boot $name on $k did not finish" >&2
		exit 1
	fi
	cp "$(cat "$out/stage-$k/.kdir")/obj/System.map" "$out/$name.map"
	{
		env_record "$name" "$k" "$before" "$after"
		echo "- the counts do not depend on the host's load or steal time"
	} >"$out/$name.env"
}

save_config() { # KERNEL FILE: the kernel's .config, xz-compressed, beside a result
	xz -9 <"$(cat "$out/stage-$1/.kdir")/obj/.config" >"$2"
}

orders() { # SEED ROUNDS VARIANTS: one line per round, the variants in a random order drawn from SEED
	python3 -c 'import random, sys
rng = random.Random(int(sys.argv[1]))
v = sys.argv[3].split()
for _ in range(int(sys.argv[2])):
	rng.shuffle(v)
	print(" ".join(v))' "$@"
}
