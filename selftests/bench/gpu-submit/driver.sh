# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154 # top, out: run.sh's, which sources this
#
# make bench-gpu-submit (issue 43.3): the seed's GPU case, a submit path
# shaped like drm_sched's (wqrt_submit.ko, vm.sh says what the guest does,
# stats.py how the tables are made). Sourced by selftests/bench/run.sh,
# whose functions it uses (build_flavour, orders, bench_lock, boot,
# one_boot_environment, save_config).
#
# On the production-like kernel (SUBMIT_KERNEL, prod), one boot: ROUNDS
# (5) rounds, each running every variant of SUBMIT_VARIANTS (default,
# nice-20, shipped, fifo50, fifo50-private-reserve, kthread50) for FRAMES (1200:
# a minute at 20 Hz) frames every PERIOD_US (50000), jobs of JOB_US
# (5000) with a SUBMIT_US (50) submit, under load.sh's load and RT_TASKS
# ("2 30 2000 8000": two SCHED_FIFO 30 kthreads, 2 ms of every 10 ms,
# one per CPU), the variants in a seeded order (SEED) in every round. A
# frame's submit dispatch over BOUND_US (1000) is what the seed counts.
# The boot holds /tmp/wqrt-bench.lock. TAG names the result files
# (gpu-submit-DATE-TAG.*).

# its guest enables no event: no held probe in what it times (lib.sh)
hold_tracepoints=0
kernel=${SUBMIT_KERNEL:-prod}
rounds=${ROUNDS:-5} frames=${FRAMES:-1200} period_us=${PERIOD_US:-50000}
job_us=${JOB_US:-5000} submit_us=${SUBMIT_US:-50} bound_us=${BOUND_US:-1000}
rt_tasks=${RT_TASKS:-2 30 2000 8000}
# the variants vm.sh knows, its default list (written there only)
all_variants=$(guest_default "$top/selftests/bench/gpu-submit/vm.sh" VARIANTS)
svariants=${SUBMIT_VARIANTS:-$all_variants}
# the shipped variant sets what conf/conf.d/60-gpu-scheduler.conf's
# profile sets once uncommented, read from the file as shipped
shipped=$("$top/selftests/bench/shipped-profile.sh" "$top/conf/conf.d/60-gpu-scheduler.conf" gpu-submit) || exit 1
[[ "$rounds" =~ ^[1-9][0-9]?$ ]] || { echo "bench-gpu-submit: ROUNDS=$rounds: 1 to 99, please" >&2; exit 2; }
[[ "$frames" =~ ^[1-9][0-9]{0,5}$ && "$frames" -le 200000 ]] ||
	{ echo "bench-gpu-submit: FRAMES=$frames: 1 to 200000, please" >&2; exit 2; }
for x in period_us job_us submit_us bound_us; do
	[[ "${!x}" =~ ^[1-9][0-9]{0,6}$ ]] ||
		{ echo "bench-gpu-submit: ${x^^}=${!x}: a number of microseconds, please" >&2; exit 2; }
done
[ "$period_us" -ge 1000 ] && [ "$submit_us" -lt "$period_us" ] && [ "$job_us" -lt $((period_us * 8)) ] ||
	{ echo "bench-gpu-submit: PERIOD_US=$period_us must be 1000 or more, SUBMIT_US=$submit_us below it, JOB_US=$job_us below 8 periods" >&2; exit 2; }
[[ "$rt_tasks" =~ ^[0-9]+\ [0-9]+\ [0-9]+\ [0-9]+$ ]] ||
	{ echo "bench-gpu-submit: RT_TASKS='$rt_tasks': N PRIO ON_US OFF_US, please" >&2; exit 2; }
for v in $svariants; do
	case " $all_variants " in
	*" $v "*) ;;
	*) echo "bench-gpu-submit: SUBMIT_VARIANTS: no variant '$v' ($all_variants)" >&2; exit 2 ;;
	esac
done
seed=${SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
stage=$(build_flavour "$kernel")
kdir=$(cat "$stage/.kdir")
make --no-print-directory -C "$top/selftests/bench/gpu-submit" \
	KDIR="$kdir/obj" OUT="$out/module-submit-$kernel" >/dev/null
cp "$out/module-submit-$kernel/wqrt_submit.ko" "$stage/"
orders "$seed" "$rounds" "$svariants" >"$stage/order"
cp "$top/selftests/bench/gpu-submit/vm.sh" "$stage/vm-gpu-submit.sh"
# the script's settings travel in its first lines
sed -i "s/^FRAMES=.*/FRAMES=$frames/; s/^PERIOD_US=.*/PERIOD_US=$period_us/;
	s/^JOB_US=.*/JOB_US=$job_us/; s/^SUBMIT_US=.*/SUBMIT_US=$submit_us/;
	s/^ROUNDS=.*/ROUNDS=$rounds/; s/^RT_TASKS=.*/RT_TASKS=\"$rt_tasks\"/;
	s/^VARIANTS=.*/VARIANTS=\"$svariants\"/;
	s/^SHIPPED=.*/SHIPPED=\"$shipped\"/" "$stage/vm-gpu-submit.sh"
date=$(date -u +%Y-%m-%d)
base=gpu-submit-$date${TAG:+-$TAG}
res=$top/selftests/bench/results
nvar=$(echo "$svariants" | wc -w)
bench_lock bench-gpu-submit
start=$(date +%s)
load_before=$(cat /proc/loadavg)
echo "bench-gpu-submit: $kernel, $rounds rounds of $nvar variants, $frames frames each (about $((rounds * nvar * frames * period_us / 60000000)) min)"
boot "$kernel" "$stage/vm-gpu-submit.sh" gpu-submit \
	$((600 + rounds * nvar * (frames * period_us / 1000000 + 20)))
load_after=$(cat /proc/loadavg)
vm_s=$(($(date +%s) - start))
bench_unlock
log=$out/gpu-submit.log
sed -i 's/\r$//' "$log"
grep -q '^I kernel' "$log" || { cat "$out/gpu-submit.vmout"; exit 1; }
grep '^E ' "$log" && { cat "$out/gpu-submit.vmout"; exit 1; }
raw=$out/gpu-submit.raw
grep -E '^[A-Z] ' "$log" >"$raw"
{
	echo "# The GPU case, a drm_sched-shaped submit path: make bench-gpu-submit ($date${TAG:+, $TAG})"
	echo
	echo "Command: \`$(for x in ROUNDS FRAMES PERIOD_US JOB_US SUBMIT_US BOUND_US RT_TASKS SUBMIT_VARIANTS SUBMIT_KERNEL TAG; do [ -z "${!x:-}" ] || printf '%s=%q ' "$x" "${!x}"; done)SEED=$seed make bench-gpu-submit\`;"
	echo "selftests/bench/gpu-submit/vm.sh says what the guest does, stats.py how"
	echo "the tables are made. One boot of $kernel, $vm_s s from taking the lock to"
	echo "the guest's power-off. $frames frames a variant and round, $rounds rounds:"
	echo "$((frames * rounds)) frames a variant, one every $period_us us."
	echo
	echo "Variants: default (the workqueue as the module makes it, normal, nice"
	echo "0); nice-20; shipped (conf/conf.d/60-gpu-scheduler.conf's profile as"
	echo "shipped, read from the file: $shipped); fifo50 (policy fifo, rtprio 50:"
	echo "above the RT tasks' FIFO $(echo "$rt_tasks" | cut -d" " -f2)); fifo50-private-reserve (and"
	echo "private 1, nr_idle_extra 2); kthread50 (the submit on a SCHED_FIFO 50"
	echo "kthread_worker, no workqueue: the baseline)."
	echo
	one_boot_environment gpu-submit "$kernel" "$load_before" "$load_after" "$seed" "$base"
	echo
	echo "## Dispatch"
	echo
	SEED=$seed python3 "$top/selftests/bench/gpu-submit/stats.py" "$raw" "$bound_us"
} >"$out/gpu-submit.md"
cp "$out/gpu-submit.md" "$res/$base.md"
xz -9 <"$raw" >"$res/$base.raw.xz"
save_config "$kernel" "$res/$base-$kernel.config.xz"
cat "$out/gpu-submit.md"
echo "bench: table $out/gpu-submit.md, raw $raw (copies under selftests/bench/results/$base.*)"
