#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# check-config.sh DOTCONFIG FRAGMENT...
#
# olddefconfig silently drops options whose dependencies are not met. Fail
# loudly instead, naming every option a fragment asked for that the final
# .config does not have.
set -euo pipefail

config=$1
shift
bad=0
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
		got=$(grep -E "^$sym=" "$config" | head -n 1 | cut -d= -f2- || true)
		[ -n "$got" ] || got=n
		if [ "$got" != "$want" ]; then
			echo "wqrt: error: $(basename "$frag"): $sym=$want was dropped by olddefconfig (final value: $got); check its dependencies" >&2
			bad=1
		fi
	done <"$frag"
done
exit $bad
