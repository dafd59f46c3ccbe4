#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tables.sh price|counts|times [BASE]: the tables of a committed run of
# make bench-cost, from the files it committed
# (selftests/bench/results/BASE-counts-KERNEL.{plugin,log,map}.xz, one
# boot per kernel; BASE: cost-2026-12-03-counts; for times
# BASE-times.raw.xz). No build, no VM, no host check: the tables
# regenerate anywhere.
#
#   price   make bench-price: the counts priced per event with the
#           published ranges of selftests/bench/cost/prices (PRICES), per
#           machine there: each kernel's cost per operation and its ratio
#           to prod-plain, as ranges (cost-stats.py price). Writes
#           build/bench/price.md (OUT).
#   counts  make bench-tables: the counting tables of the run again
#           (cost-stats.py counts); the tables by function need the
#           symbols a run commits since 2026-12-05 (BASE-counts-KERNEL.map.xz,
#           cost-stats.py mapsubset). Writes build/bench/counts.md (OUT).
#   times   make bench-tables BASE=... of a run with BASE-times.raw.xz: the
#           timed table of a run on the host's clock (BASE:
#           cost-2026-12-05-hostclock) again, from its raw samples, the
#           enqueue kernels (ENQ_KERNELS) and the seed its Command line
#           names, which fix the pairs and the resampling: the same rows
#           as BASE.md, and every round's ratio. Writes
#           build/bench/times.md (OUT).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
res=$top/selftests/bench/results
mode=${1:?usage: tables.sh price|counts|times [BASE]}
base=${2:-cost-2026-12-03-counts}
prices=${PRICES:-$top/selftests/bench/cost/prices}
out=${OUT:-${WQRT_BUILD:-$top/build}/bench/$mode.md}
case "$mode" in price | counts | times) ;; *) echo "usage: tables.sh price|counts|times [BASE]" >&2; exit 2 ;; esac
if [ "$mode" = times ]; then
	[ $# -ge 2 ] || base=cost-2026-12-05-hostclock
	raw=$res/$base-times.raw.xz
	[ -f "$raw" ] || { echo "bench-times: no $raw" >&2; exit 2; }
	seed=$(sed -n 's/^Command: .*SEED=\([0-9]*\) make bench-cost.*/\1/p' "$res/$base.md" 2>/dev/null)
	[ -n "$seed" ] || { echo "bench-times: $res/$base.md names no SEED on its Command line" >&2; exit 2; }
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	xz -dc "$raw" >"$tmp/times.raw"
	# the enqueue kernels of its Command line (ENQ_KERNELS, printed
	# shell-quoted); cost-stats.py adds the flush pairs the raw holds
	enq=$(grep -m1 '^Command: ' "$res/$base.md" | grep -o 'ENQ_KERNELS=\([^ \\]\|\\ \)*' |
		sed 's/^ENQ_KERNELS=//; s/\\ / /g' || true)
	mkdir -p "$(dirname "$out")"
	{
		echo "# The timed table of $base, made again from its raw samples"
		echo
		echo "Command: \`selftests/bench/tables.sh times $base\`: $base-times.raw.xz"
		echo "resampled with the run's seed $seed."
		echo
		# shellcheck disable=SC2086 # a kernel a word
		SEED=$seed python3 "$top/selftests/bench/cost/cost-stats.py" times "$tmp/times.raw" ${enq:-prod-plain prod}
	} >"$out.tmp"
	mv "$out.tmp" "$out"
	echo "bench-$mode: $out"
	exit 0
fi

[ "$mode" != price ] || [ -f "$prices" ] || { echo "bench-$mode: no prices file at $prices" >&2; exit 2; }
# the kernels of the run: prod-plain first (the baseline), the prefixes
# in their order, then the rest
mapfile -t kernels < <(
	for f in "$res/$base"-counts-*.plugin.xz; do
		[ -e "$f" ] || continue
		k=${f##*/"$base"-counts-}
		echo "${k%.plugin.xz}"
	done | awk '{ print ($0 == "prod-plain" ? 0 : $0 ~ /@/ ? 1 : 2), $0 }' |
		sort -k1,1n -k2,2V | cut -d' ' -f2)
[ "${#kernels[@]}" -ge 2 ] && [ "${kernels[0]}" = prod-plain ] || {
	echo "bench-$mode: $res/$base-counts-*.plugin.xz: need prod-plain and another kernel (found: ${kernels[*]:-none})" >&2
	exit 2
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nomap=
for k in "${kernels[@]}"; do
	[ -f "$res/$base-counts-$k.log.xz" ] || { echo "bench-$mode: no $res/$base-counts-$k.log.xz" >&2; exit 2; }
	xz -dc "$res/$base-counts-$k.plugin.xz" >"$tmp/cost-$k.plugin"
	xz -dc "$res/$base-counts-$k.log.xz" >"$tmp/cost-$k.log"
	if [ -f "$res/$base-counts-$k.map.xz" ]; then
		xz -dc "$res/$base-counts-$k.map.xz" >"$tmp/cost-$k.map"
	else
		nomap="$nomap $k"
	fi
done
if [ "$mode" = counts ] && [ -n "$nomap" ]; then
	echo "bench-counts: no symbols committed for$nomap ($base-counts-KERNEL.map.xz: runs before 2026-12-05 did not commit them); the tables by function cannot be made again" >&2
	exit 2
fi
mkdir -p "$(dirname "$out")"
{
	if [ "$mode" = price ]; then
		echo "# The counts of $base, priced"
		echo
		echo "Command: \`make bench-price\` (selftests/bench/tables.sh price $base): no"
		echo "build and no VM, it reads committed files only. Counts: $base.md and"
		echo "selftests/bench/results/$base-counts-KERNEL.{plugin,log}.xz, one boot per"
		echo "kernel (${kernels[*]}). Prices: selftests/bench/cost/prices (sha256"
		echo "$(sha256sum <"$prices" | cut -c1-16)). The series the counts measured: $(cat "$res/$base.series" 2>/dev/null ||
			echo "not recorded ($base.series)")."
		echo "These are not measurements of the series on hardware: they say what"
		echo "the counted events would cost at the published prices, and where the"
		echo "published ranges leave the sign open."
		echo
		python3 "$top/selftests/bench/cost/cost-stats.py" price "$prices" "$tmp" "${kernels[@]}"
	else
		echo "# The counts of $base, made again from its committed files"
		echo
		python3 "$top/selftests/bench/cost/cost-stats.py" counts "$tmp" "${kernels[@]}"
	fi
} >"$out.tmp"
mv "$out.tmp" "$out"
echo "bench-$mode: $out"
