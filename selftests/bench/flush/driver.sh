# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154 # top, out, what: run.sh's and lib.sh's
#
# selftests/bench/run.sh flush: this benchmark's driver, sourced by run.sh
# after lib.sh, whose functions it uses (build_flavour, boot, bench_lock,
# env_record, ...).
#
# seed 003: plain 6.12 and the series, both with room for many
# possible CPUs (kernel/configs/bench-flush.config), booted in turn
# with 2 online of 192 possible CPUs, every round
# its guest enables no event: no held probe in what it times (lib.sh)
hold_tracepoints=0
rounds=${ROUNDS:-5}
kernels="bench-flush-plain bench-flush"
cfg=$top/kernel/configs
diff <(grep -v -e '^#' -e '^$' -e '^CONFIG_NR_CPUS=' "$cfg/wqrt.config") \
	<(grep -v -e '^#' -e '^$' -e '^CONFIG_NR_CPUS=' "$cfg/bench-flush.config") >/dev/null || {
	echo "bench-flush: kernel/configs/bench-flush.config differs from wqrt.config in more than NR_CPUS" >&2
	exit 1
}
for k in $kernels; do
	# a tree of its own per flavour, also under a developer's WQRT_TREE
	WQRT_TREE=${WQRT_TREE:+$WQRT_TREE-$k} build_flavour "$k" >/dev/null
done
export WQRT_VM_SMP=${WQRT_VM_SMP:-2,maxcpus=192}
raw=$out/flush.raw
: >"$raw"
load_before=$(cat /proc/loadavg)
for r in $(seq 1 "$rounds"); do
	for k in $kernels; do
		echo "bench-flush: round $r/$rounds on $k (-smp $WQRT_VM_SMP)"
		boot "$k" "$top/selftests/bench/flush/vm-flush.sh" "flush-$k-$r" 900
		grep -q '^I kernel' "$out/flush-$k-$r.log" || {
			cat "$out/flush-$k-$r.vmout"
			exit 1
		}
		awk -v k=$k -v r=$r '$1 == "S" { print k, r, $2, $3 }' \
			"$out/flush-$k-$r.log" >>"$raw"
	done
done
load_after=$(cat /proc/loadavg)
{
	"$top/selftests/bench/flush/flush-table.sh" "$raw" "$out"
	echo
	echo "## Environment"
	for k in $kernels; do
		echo
		echo "### $k (its last boot)"
		echo
		env_record "flush-$k-$rounds" "$k" "$load_before" "$load_after"
	done
} >"$out/flush.md"
date=$(date -u +%Y-%m-%d)
cp "$out/flush.md" "$top/selftests/bench/results/flush-$date.md"
cp "$raw" "$top/selftests/bench/results/flush-$date.raw"
cat "$out/flush.md"
echo "bench: table $out/flush.md, raw samples $raw (copies under selftests/bench/results/flush-$date.*)"
