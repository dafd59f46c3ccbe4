#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The host end of a VM's console UART, for UARTs without loopback.

    uart-peer.py SOCKET LOG

Connects to QEMU's chardev socket SOCKET (QEMU is the server and waits
for us before it starts the guest, so nothing of the boot is lost),
appends everything the guest sends to LOG, and answers a line
"WQRT-UART-PEER N" with N bytes of uart_loop's pattern (byte i is
i * 7 + 13, modulo 256): what a UART in loopback would have sent back.
Exits when QEMU closes the socket.
"""
import re
import socket
import sys
import time

REQUEST = re.compile(rb"WQRT-UART-PEER (\d+)\r?\n")
MAX_BYTES = 1 << 20


def pattern(n):
    return bytes((i * 7 + 13) & 0xFF for i in range(n))


def connect(path, timeout_s=60.0):
    deadline = time.monotonic() + timeout_s
    while True:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(path)
            return sock
        except OSError as err:
            sock.close()
            if time.monotonic() > deadline:
                sys.exit(f"uart-peer: cannot connect to {path}: {err}")
            time.sleep(0.05)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: uart-peer.py SOCKET LOG")
    sock = connect(sys.argv[1])
    # the tail of what came so far, where a request may be split
    pending = b""
    with open(sys.argv[2], "ab", buffering=0) as log:
        while True:
            try:
                data = sock.recv(65536)
            except ConnectionResetError:
                break
            if not data:
                break
            log.write(data)
            pending += data
            while True:
                m = REQUEST.search(pending)
                if not m:
                    break
                pending = pending[m.end():]
                n = int(m.group(1))
                if 0 < n <= MAX_BYTES:
                    sock.sendall(pattern(n))
                else:
                    print(f"uart-peer: ignored a request for {n} bytes",
                          file=sys.stderr)
            # keep enough for a request cut in two
            pending = pending[-64:]


if __name__ == "__main__":
    main()
