#!/usr/bin/env python3
"""How much memory held connections take: starts a kioku binary on loopback (SQLite, OAuth by
token), opens N connections to a form endpoint that anyone may post to, each sending BYTES_SENT
bytes of a body it says is 1,000 bytes longer and then holding, and reports the server's RSS
before, at its peak while they are held, and after they close.

Usage: held_connections.py KIOKU_BINARY [N] [PATH] [BYTES_SENT]

Every connection goes to 127.0.0.1 only; the loops are bounded by N and by a few seconds' hold.
"""

import os
import socket
import subprocess
import sys
import tempfile
import time


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    binary = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    path = sys.argv[3] if len(sys.argv) > 3 else "/oauth/token"
    sent = int(sys.argv[4]) if len(sys.argv) > 4 else 15_000
    port = free_port()
    data = tempfile.mkdtemp()
    env = {
        "PATH": os.environ["PATH"],
        "PORT": str(port),
        "KIOKU_DATA_DIR": data,
        "API_TOKENS": "bench:" + "t" * 40,
        "KIOKU_OAUTH": "token",
        "KIOKU_PUBLIC_URL": f"http://127.0.0.1:{port}",
        "RUST_LOG": "warn",
    }
    server = subprocess.Popen([binary], env=env, stdout=subprocess.DEVNULL)
    try:
        for _ in range(500):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.02)
        time.sleep(0.5)
        before = rss_mib(server.pid)
        head = (
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            "Content-Type: application/x-www-form-urlencoded\r\n"
            f"Content-Length: {sent + 1000}\r\n\r\n"
        ).encode()
        body = b"a" * sent
        held = []
        peak = before
        for n in range(count):
            conn = socket.create_connection(("127.0.0.1", port), timeout=5)
            try:
                conn.sendall(head + body)
            except OSError:
                pass  # refused and closed by the server: nothing is held
            held.append(conn)
            if n % 50 == 0:
                peak = max(peak, rss_mib(server.pid))
        deadline = time.time() + 3
        while time.time() < deadline:
            peak = max(peak, rss_mib(server.pid))
            time.sleep(0.1)
        for conn in held:
            conn.close()
        time.sleep(12)  # past the body deadline, so every request has ended
        after = rss_mib(server.pid)
        print(
            f"{count} connections to {path}, {sent} bytes each: RSS {before:.0f} MiB before, "
            f"{peak:.0f} MiB at the peak, {after:.0f} MiB after"
        )
    finally:
        server.terminate()
        server.wait(timeout=15)


if __name__ == "__main__":
    main()
