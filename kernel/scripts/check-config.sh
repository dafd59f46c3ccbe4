#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# check-config.sh DOTCONFIG FRAGMENT...
#
# olddefconfig silently drops options whose dependencies are not met. Fail
# loudly instead, naming every option a fragment asked for that the final
# .config does not have. As in merge_config.sh, a later fragment may set a
# symbol an earlier one set (prod.config's NR_CPUS over wqrt.config's): the
# last fragment's value is the one checked.
set -euo pipefail

config=$1
shift
declare -A want_value want_frag
declare -a order=()
for frag in "$@"; do
	while IFS= read -r line || [ -n "$line" ]; do
		case "$line" in
		CONFIG_*=*)
			sym=${line%%=*}
			want=${line#*=}
			;;
		"# CONFIG_"*" is not set")
			sym=${line#\# }
			sym=${sym%% *}
			want=n
			;;
		*) continue ;;
		esac
		[ -n "${want_value[$sym]+set}" ] || order+=("$sym")
		want_value[$sym]=$want
		want_frag[$sym]=$(basename "$frag")
	done <"$frag"
done

bad=0
for sym in "${order[@]}"; do
	want=${want_value[$sym]}
	got=$(grep -E "^$sym=" "$config" | head -n 1 | cut -d= -f2- || true)
	[ -n "$got" ] || got=n
	if [ "$got" != "$want" ]; then
		echo "wqrt: error: ${want_frag[$sym]}: $sym=$want was dropped by olddefconfig (final value: $got); check its dependencies" >&2
		bad=1
	fi
done
exit $bad
