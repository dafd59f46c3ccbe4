# SPDX-License-Identifier: GPL-2.0
#
# Sourced inside the VM by the benchmark scripts (run.sh stages it next to
# them): the load every latency benchmark runs under, so that their
# numbers compare, and the floor they are measured against. start_load
# starts the load and says so on an "I" line; stop_load ends it;
# rtla_timerlat measures the floor.

# a nice-0 CPU hog per vCPU, a fork loop and a pipe stream
start_load() {
	load_pids=
	_i=0
	while [ $_i -lt "$(nproc)" ]; do
		sh -c 'while :; do :; done' &
		load_pids="$load_pids $!"
		_i=$((_i + 1))
	done
	sh -c 'while :; do /bin/true; done' &
	load_pids="$load_pids $!"
	sh -c 'dd if=/dev/zero bs=4k 2>/dev/null | cat >/dev/null' &
	load_pids="$load_pids $!"
	echo "I load: $(nproc) nice-0 CPU hogs, a fork loop, a pipe stream"
}

stop_load() {
	# shellcheck disable=SC2086 # one pid a word
	kill $load_pids 2>/dev/null
}

# rtla_timerlat ROUND SECS: timerlat's thread latency (expiry -> its FIFO
# 50 thread runs) on every CPU for SECS seconds, rtla timerlat hist at 1 us
# buckets, as "H timerlat50 ROUND US COUNT" lines. Returns 1, with rtla's
# output in /tmp/timerlat, when rtla is missing or failed.
rtla_timerlat() {
	command -v rtla >/dev/null &&
		rtla timerlat hist -p "$PERIOD_US" -d "${2}s" -P f:50 -b 1 \
			-E 20000 --no-irq >/tmp/timerlat 2>&1 &&
		grep -q '^over:' /tmp/timerlat || return 1
	# "INDEX COUNT_CPU0 COUNT_CPU1 ...", then over:, count:, ...
	awk -v r="$1" '
	$1 ~ /^[0-9]+$/ { for (i = 2; i <= NF; i++) n[$1] += $i }
	$1 == "over:" { for (i = 2; i <= NF; i++) over += $i }
	$1 == "max:" { for (i = 2; i <= NF; i++) if ($i + 0 > max) max = $i + 0 }
	END {
		for (b in n) if (n[b]) print "H timerlat50 " r " " b " " n[b]
		# beyond the histogram: counted at the largest latency seen
		if (over) print "H timerlat50 " r " " max " " over
	}' /tmp/timerlat
}
