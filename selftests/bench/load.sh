# SPDX-License-Identifier: GPL-2.0
#
# Sourced inside the VM by the benchmark scripts (run.sh stages it next to
# them): the load every latency benchmark runs under, so that their
# numbers compare. start_load starts it and says so on an "I" line;
# stop_load ends it.

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
