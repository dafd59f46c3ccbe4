#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# test-uart-peer.sh: host-side tests of uart-peer.py, the host end of the
# arm64 VM's console UART, against a fake QEMU (a chardev socket server
# written here in Python). Part of `make check`.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/ktap.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# fake_qemu SOCKET OUT CHUNK...: serve SOCKET, send each CHUNK (Python
# bytes literals) to the peer, then read what the peer sends back for a
# second and write it to OUT.
fake_qemu() {
	python3 - "$@" <<'EOF'
import ast, os, socket, sys, time
path, out, chunks = sys.argv[1], sys.argv[2], sys.argv[3:]
srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
srv.bind(path)
srv.listen(1)
conn, _ = srv.accept()
for c in chunks:
    conn.sendall(ast.literal_eval(c))
    time.sleep(0.1)
conn.settimeout(1.0)
got = b""
try:
    while True:
        d = conn.recv(65536)
        if not d:
            break
        got += d
except socket.timeout:
    pass
conn.close()
with open(out, "wb") as f:
    f.write(got)
EOF
}

# run NAME CHUNK...: the fake QEMU and the peer; leaves $tmp/NAME.{log,back}
run() {
	local name=$1 sock="$tmp/$1.sock"
	shift
	fake_qemu "$sock" "$tmp/$name.back" "$@" &
	local q=$!
	: >"$tmp/$name.log"
	timeout 20 python3 "$here/uart-peer.py" "$sock" "$tmp/$name.log" \
		2>"$tmp/$name.err"
	echo $? >"$tmp/$name.rc"
	wait $q
}

# the bytes uart_loop expects: i * 7 + 13
pattern() {
	python3 -c 'import sys; sys.stdout.buffer.write(bytes((i * 7 + 13) & 255 for i in range(int(sys.argv[1]))))' "$1"
}

ktap_print_header
ktap_set_plan 6

run plain "b'[    0.000000] Linux version 6.12\\r\\n'" \
	"b'WQRT-UART-PEER 4096\\r\\n'" "b'[    1.0] after\\r\\n'"
pattern 4096 >"$tmp/want4096"
ktap_test_result "a request for 4096 bytes gets uart_loop's pattern" \
	cmp -s "$tmp/want4096" "$tmp/plain.back"
printf '[    0.000000] Linux version 6.12\r\nWQRT-UART-PEER 4096\r\n[    1.0] after\r\n' >"$tmp/want-log"
ktap_test_result "the console log holds every byte the guest sent, as sent" \
	cmp -s "$tmp/want-log" "$tmp/plain.log"
ktap_test_result "the peer exits 0 when QEMU closes the socket" \
	[ "$(cat "$tmp/plain.rc")" = 0 ]

run split "b'noise WQRT-UART-PE'" "b'ER 100\\n'"
pattern 100 >"$tmp/want100"
ktap_test_result "a request split across two reads is answered once" \
	cmp -s "$tmp/want100" "$tmp/split.back"

run bad "b'WQRT-UART-PEER 0\\r\\n'" "b'WQRT-UART-PEER 99999999\\r\\n'"
ktap_test_result "requests for 0 or more than 1 MiB get nothing back" \
	[ ! -s "$tmp/bad.back" ]
ktap_test_result "...and each is named on stderr" \
	[ "$(grep -c 'ignored a request' "$tmp/bad.err")" = 2 ]

ktap_finished
