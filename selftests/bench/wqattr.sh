# SPDX-License-Identifier: GPL-2.0
#
# Sourced inside the VM by vm-scenarios.sh and vm-burst.sh (run.sh stages
# it next to them): a workqueue's sysfs attributes, its pools and their
# kworkers, and wqrtd run the stock way (kworkers chrt'ed by name once
# they exist). Needs wqdir and series (1 when the kernel has the series'
# policy attribute) from the script that sources it.
: "${wqdir:?}" "${series:?}"

setattr() { # WQ ATTR VALUE: fails the variant when the kernel refuses
	[ -e "$wqdir/$1/$2" ] || return 1
	echo "$3" >"$wqdir/$1/$2" 2>/dev/null
}

reset_wq() { # WQ
	if [ "$series" = 1 ]; then
		setattr "$1" policy normal
		setattr "$1" nr_idle_extra 0
		setattr "$1" private 0
	fi
	setattr "$1" nice 0
	setattr "$1" cpumask "$(printf '%x' $(((1 << $(nproc)) - 1)))"
}

pools() { # VARIANT ROUND WQ: a P line
	echo "P $1 $2 $3 $(cat "$wqdir/$3/pool_ids" 2>/dev/null || echo none)"
}

pool_ids() { # WQ: its pool IDs, one a line ("pod:pool" in pool_ids)
	tr ' ' '\n' <"$wqdir/$1/pool_ids" | sed -n 's/.*://p' | sort -un
}

workers() { # WQ: the kworkers of its pools (every unbound one without pool_ids)
	if [ -e "$wqdir/$1/pool_ids" ]; then
		_ids=$(pool_ids "$1" | paste -sd'|')
		cat /proc/[0-9]*/comm 2>/dev/null | grep -cE "^kworker/u($_ids):"
	else
		cat /proc/[0-9]*/comm 2>/dev/null | grep -c '^kworker/u'
	fi
}

# wqrtd_start CONF: wqrtd in the foreground with the config file CONF
# ([kworker:] sections: kworkers by name, as on a kernel without the
# series), its --timing file /tmp/timing for the window of a new kworker
# still SCHED_NORMAL.
wqrtd_pid=
wqrtd_start() {
	command -v wqrtd >/dev/null || return 1
	chmod 0644 "$1"
	rm -f /tmp/timing
	timing_seen=0
	wqrtd --foreground -c "$1" --timing /tmp/timing >/tmp/wqrtd.log 2>&1 &
	wqrtd_pid=$!
	_i=0
	while ! grep -q "mode:" /tmp/wqrtd.log 2>/dev/null && [ $_i -lt 100 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	sleep 1
	kill -0 $wqrtd_pid 2>/dev/null
}

wqrtd_timing() { # VARIANT ROUND: K lines, the kworkers verified since the last call
	[ -e /tmp/timing ] || return 0
	_n=$(wc -l </tmp/timing)
	awk -v v="$1" -v r="$2" -v from="$timing_seen" -v to="$_n" \
		'NR > from && NR <= to { print "K " v " " r " " $0 }' /tmp/timing
	timing_seen=$_n
}

wqrtd_stop() { # VARIANT ROUND
	[ -n "$wqrtd_pid" ] || return 0
	kill -TERM $wqrtd_pid 2>/dev/null
	wait $wqrtd_pid 2>/dev/null
	wqrtd_pid=
	wqrtd_timing "$1" "$2"
	grep -E "warning:|error:|critical:" /tmp/wqrtd.log | head -n 5 |
		sed "s/^/V $1 $2 note: wqrtd: /"
}
