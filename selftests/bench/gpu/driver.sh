# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154 # top, out, what: run.sh's and lib.sh's
#
# selftests/bench/run.sh gpu: this benchmark's driver, sourced by run.sh
# after lib.sh, whose functions it uses (build_flavour, boot, bench_lock,
# env_record, ...).
#
# make bench-gpu (issue 32.2): the GPU case with vkms as the stand-in.
# vkms's vblank hrtimer queues vkms_composer_worker on the ordered
# workqueue vkms_composer (in sysfs through workqueue.sysfs=, which
# run-vm.sh passes) at every vblank while CRC capture is on;
# selftests/bench/gpu/vm-gpu.sh traces each vblank's programmed time, its
# timer callback, the composition that covered it and when it ended,
# under CPU and memory load, for GPU_VARIANTS (default, fifo 50 on
# vkms_composer, and both with ksoftirqd at FIFO 50: vkms's timer is
# a soft hrtimer, run by ksoftirqd on 6.12 PREEMPT_RT) at each rate
# of RATES (60 240 Hz), ROUNDS (5) rounds in a seeded order (SEED),
# DURATION (10) s of trace per run, mode SIZE (160x120), MEMHOG_MB
# (64) for the memory load; gpu-stats.py makes the tables. On the
# production-like kernel (GPU_KERNEL, prod: DRM and vkms built in, no
# fbdev emulation: nothing but the bench lights the CRTC). The boot
# holds /tmp/wqrt-bench.lock (WQRT_BENCH_LOCK= to skip it). TAG names
# the result files (gpu-DATE-TAG.*).
kernel=${GPU_KERNEL:-prod}
rounds=${ROUNDS:-5} duration=${DURATION:-10} size=${SIZE:-160x120}
rates=${RATES:-60 240} memhog=${MEMHOG_MB:-64}
gvariants=${GPU_VARIANTS:-default fifo50 default-sirq50 fifo50-sirq50}
[[ "$rounds" =~ ^[1-9][0-9]?$ ]] || { echo "bench-gpu: ROUNDS=$rounds: 1 to 99, please" >&2; exit 2; }
[[ "$duration" =~ ^[1-9][0-9]{0,2}$ ]] || { echo "bench-gpu: DURATION=$duration: seconds, 1 to 999" >&2; exit 2; }
[[ "$size" =~ ^[1-9][0-9]{1,3}x[1-9][0-9]{1,3}$ ]] || { echo "bench-gpu: SIZE=$size: WIDTHxHEIGHT, please" >&2; exit 2; }
[[ "$memhog" =~ ^[0-9]{1,4}$ ]] || { echo "bench-gpu: MEMHOG_MB=$memhog: 0 to 9999" >&2; exit 2; }
runs=
for hz in $rates; do
	[[ "$hz" =~ ^[1-9][0-9]{0,2}$ ]] || { echo "bench-gpu: RATES: '$hz' is not a rate of 1 to 999 Hz" >&2; exit 2; }
	for v in $gvariants; do runs="$runs $v-$hz"; done
done
runs=${runs# }
seed=${SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
stage=$(build_flavour "$kernel")
kdir=$(cat "$stage/.kdir")
grep -q '^CONFIG_DRM_VKMS=y' "$kdir/obj/.config" ||
	{ echo "bench-gpu: $kernel has no built-in vkms (CONFIG_DRM_VKMS=y)" >&2; exit 2; }
# the DRM uapi headers of the kernel itself (no libdrm in the guest,
# none on the host): __user is the kernel's annotation, which
# headers_install strips
gcc -static -O2 -Wall -Wextra -Werror -D__user= -idirafter "$kdir/src/include/uapi" \
	-o "$stage/vkms_frames" "$top/selftests/bench/gpu/vkms_frames.c"
orders "$seed" "$rounds" "$runs" >"$stage/order"
cp "$top/selftests/bench/gpu/vm-gpu.sh" "$stage/vm-gpu.sh"
# the script's settings travel in its first lines
sed -i "s/^ROUNDS=.*/ROUNDS=$rounds/; s/^RUNS=.*/RUNS=\"$runs\"/; s/^DURATION=.*/DURATION=$duration/;
	s/^SIZE=.*/SIZE=$size/; s/^MEMHOG_MB=.*/MEMHOG_MB=$memhog/" "$stage/vm-gpu.sh"
date=$(date -u +%Y-%m-%d)
base=gpu-$date${TAG:+-$TAG}
res=$top/selftests/bench/results
bench_lock bench-gpu
start=$(date +%s)
load_before=$(cat /proc/loadavg)
echo "bench-gpu: $kernel, $rounds rounds of: $runs ($duration s each)"
boot "$kernel" "$stage/vm-gpu.sh" gpu \
	$((600 + rounds * $(echo "$runs" | wc -w) * (duration + 25)))
load_after=$(cat /proc/loadavg)
vm_s=$(($(date +%s) - start))
bench_unlock
log=$out/gpu.log
sed -i 's/\r$//' "$log"
grep -q '^I kernel' "$log" || { cat "$out/gpu.vmout"; exit 1; }
grep '^E ' "$log" && { cat "$out/gpu.vmout"; exit 1; }
grep -q '^I done' "$log" || { tail -n 30 "$out/gpu.vmout"; echo "bench-gpu: the guest did not finish" >&2; exit 1; }
raw=$out/gpu.raw
grep -E '^[IOWFRKCV] ' "$log" >"$raw"
{
	echo "# The GPU case, vkms as the stand-in: make bench-gpu ($date${TAG:+, $TAG})"
	echo
	echo "Command: \`$(for x in ROUNDS DURATION SIZE RATES MEMHOG_MB GPU_KERNEL GPU_VARIANTS TAG; do [ -z "${!x:-}" ] || printf '%s=%q ' "$x" "${!x}"; done)SEED=$seed make bench-gpu\`;"
	echo "selftests/bench/gpu/vm-gpu.sh says what the guest does, gpu-stats.py how"
	echo "the tables are made. One boot of $kernel, $vm_s s from taking the lock to"
	echo "the guest's power-off."
	echo
	one_boot_environment gpu "$kernel" "$load_before" "$load_after" "$seed" "$base"
	echo
	SEED=$seed python3 "$top/selftests/bench/gpu/gpu-stats.py" "$raw"
} >"$out/gpu.md"
cp "$out/gpu.md" "$res/$base.md"
xz -9 <"$raw" >"$res/$base.raw.xz"
save_config "$kernel" "$res/$base-$kernel.config.xz"
cat "$out/gpu.md"
echo "bench: table $out/gpu.md, raw $raw (copies under selftests/bench/results/$base.*)"
