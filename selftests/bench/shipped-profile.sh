#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# shipped-profile.sh FILE PROFILE [WQ]: the attributes a shipped seed
# profile (conf/conf.d/*.conf, every line commented out with ";") sets once
# a user uncomments it, as ATTR=VALUE words on one line: the keys of its
# [profile:PROFILE] section in the file's order, and "cpumask=irq" when the
# [wq:WQ] section binds to an interrupt ("cpumask = irq:NAME", which wqrtd
# resolves to the interrupt's effective affinity). The benchmarks' shipped
# variants set these, so that they measure what a user installs. Fails,
# naming the file, when the profile has no key.
set -eu
file=$1 profile=$2 wq=${3:-}
attrs=$(awk -v p=";[profile:$profile]" -v w=";[wq:$wq]" '
	/^;\[/ { sec = $0; next }
	/^;[[:space:]]*$/ || /^; / { next }
	sec == p && /^;[a-z_]+[[:space:]]*=/ {
		line = substr($0, 2)
		key = line; sub(/[[:space:]]*=.*/, "", key)
		val = line; sub(/^[^=]*=[[:space:]]*/, "", val); sub(/[[:space:]]+$/, "", val)
		print key "=" val
	}
	sec == w && /^;cpumask[[:space:]]*=[[:space:]]*irq:/ { print "cpumask=irq" }
' "$file" | xargs)
case "$attrs" in
*=*) echo "$attrs" ;;
*)
	echo "shipped-profile.sh: $file: no key in [profile:$profile]" >&2
	exit 1
	;;
esac
