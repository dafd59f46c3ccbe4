# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154 # top, out, what: run.sh's and lib.sh's
#
# selftests/bench/run.sh reserve: this benchmark's driver, sourced by run.sh
# after lib.sh, whose functions it uses (build_flavour, boot, bench_lock,
# env_record, ...).
#
# make bench-reserve (issue 32.3): the memory a reserve of idle
# workers costs, per worker (selftests/bench/reserve/vm-reserve.sh), on the
# production-like kernel (RESERVE_KERNEL, prod), ROUNDS (5) boots,
# the reserve grown to each of SIZES (8 64) in every boot.
# its guest enables no event: no held probe in what it times (lib.sh)
hold_tracepoints=0
kernel=${RESERVE_KERNEL:-prod}
rounds=${ROUNDS:-5} sizes=${SIZES:-8 64}
[[ "$rounds" =~ ^[1-9][0-9]?$ ]] || { echo "bench-reserve: ROUNDS=$rounds: 1 to 99, please" >&2; exit 2; }
for n in $sizes; do
	[[ "$n" =~ ^[1-9][0-9]?$ ]] && [ "$n" -le 64 ] ||
		{ echo "bench-reserve: SIZES: '$n' is not a reserve of 1 to 64 workers" >&2; exit 2; }
done
stage=$(build_flavour "$kernel")
cp "$top/selftests/bench/reserve/vm-reserve.sh" "$stage/vm-reserve.sh"
sed -i "s/^SIZES=.*/SIZES=\"$sizes\"/" "$stage/vm-reserve.sh"
raw=$out/reserve.raw
: >"$raw"
load_before=$(cat /proc/loadavg)
for r in $(seq 1 "$rounds"); do
	echo "bench-reserve: boot $r/$rounds on $kernel, nr_idle_extra $sizes"
	boot "$kernel" "$stage/vm-reserve.sh" "reserve-$r" 900
	sed -i 's/\r$//' "$out/reserve-$r.log"
	if ! grep -q '^I done' "$out/reserve-$r.log" || grep -q '^E ' "$out/reserve-$r.log"; then
		grep '^E ' "$out/reserve-$r.log" >&2 || cat "$out/reserve-$r.vmout" >&2
		echo "bench-reserve: boot $r did not measure every step" >&2
		exit 1
	fi
	grep -E '^[IMO] ' "$out/reserve-$r.log" | sed "s/^/$r /" >>"$raw"
done
load_after=$(cat /proc/loadavg)
date=$(date -u +%Y-%m-%d)
{
	echo "# What a reserve of idle workers costs in memory: make bench-reserve ($date)"
	echo
	echo "Command: \`ROUNDS=$rounds SIZES=\"$sizes\" RESERVE_KERNEL=$kernel make bench-reserve\`;"
	echo "selftests/bench/reserve/vm-reserve.sh says what each boot does,"
	echo "selftests/bench/reserve/reserve-stats.py how the table is made."
	echo
	python3 "$top/selftests/bench/reserve/reserve-stats.py" "$raw"
	echo "## Environment (the last boot)"
	echo
	env_record "reserve-$rounds" "$kernel" "$load_before" "$load_after"
} >"$out/reserve.md"
cp "$out/reserve.md" "$top/selftests/bench/results/reserve-$date.md"
cp "$raw" "$top/selftests/bench/results/reserve-$date.raw"
cat "$out/reserve.md"
echo "bench: table $out/reserve.md, raw $raw (copies under selftests/bench/results/reserve-$date.*)"
