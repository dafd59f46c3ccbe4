# SPDX-License-Identifier: GPL-2.0-only
# Sourced by the CLI tests of daemon/tests: make_fake_root NAME sets T to a new
# fake root (removed when the shell exits) with one unbound workqueue in
# sysfs, tty_flip, with every attribute of 6.12 and the series at its
# default, and one rescuer, kworker/R-tty_f (pid 102); W is that
# workqueue's directory.
make_fake_root() {
	T=$(mktemp -d "/tmp/wqrt-$1.XXXXXX")
	trap 'rm -rf "$T"' EXIT
	W=$T/sys/devices/virtual/workqueue/tty_flip
	mkdir -p "$W" "$T/proc/102" "$T/proc/sys/kernel"
	echo 950000 > "$T/proc/sys/kernel/sched_rt_runtime_us"
	for kv in nice=0 cpumask=0000000f "affinity_scope=default (cache)" \
		  affinity_strict=0 max_active=256 policy=normal rtprio=0 \
		  nr_idle_extra=0 private=0 pool_ids=0:5; do
		echo "${kv#*=}" > "$W/${kv%%=*}"
	done
	echo "102 (kworker/R-tty_f) S 2 0 0 0 -1 2097216 0 0 0 0 0 0 0 0 20 0 1 0 77 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0" \
		> "$T/proc/102/stat"
}

# within5 CMD...: CMD succeeds within 5 s (tried every 0.1 s); its status
within5() {
	_n=50
	while [ $_n -gt 0 ]; do
		"$@" && return 0
		sleep 0.1
		_n=$((_n - 1))
	done
	"$@"
}

# nice_is N: the fake workqueue's nice is N
nice_is() { [ "$(cat "$W/nice")" = "$1" ]; }

# make_fake_tracefs: under T a tracing directory with the workqueue
# events, an instances/ and synthetic_events, as the fake libtracefs of
# wqrtctl-faketrace expects; TR is it
make_fake_tracefs() {
	TR=$T/sys/kernel/tracing
	for _ev in workqueue_queue_work workqueue_execute_start workqueue_execute_end; do
		mkdir -p "$TR/events/workqueue/$_ev"
		: > "$TR/events/workqueue/$_ev/trigger"
		: > "$TR/events/workqueue/$_ev/hist"
	done
	mkdir -p "$TR/instances"
	: > "$TR/synthetic_events"
}
