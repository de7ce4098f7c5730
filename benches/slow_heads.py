#!/usr/bin/env python3
"""Whether connections that trickle their next request head can hold a server (SECURITY.md,
"Every request head must arrive within 5 seconds"): starts a kioku binary on loopback
(SQLite), opens N kept-alive connections, each answered once and then sending its next
request head a byte every 3 seconds, and meanwhile asks a fresh `GET /healthz` every 2
seconds for SECONDS seconds. Reports how the fresh requests fared (answered, timed out after
5 s, slowest) and when the server closed the trickling connections.

Usage: slow_heads.py KIOKU_BINARY [N] [SECONDS]

Every connection goes to 127.0.0.1 only; the loops are bounded by N and SECONDS.
"""

import os
import resource
import socket
import subprocess
import sys
import tempfile
import threading
import time

HEAD = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def answered_once(port):
    """A connection whose first request was answered, kept alive."""
    conn = socket.create_connection(("127.0.0.1", port), timeout=10)
    conn.sendall(HEAD)
    got = b""
    while b"\r\n\r\n" not in got:
        chunk = conn.recv(4096)
        if not chunk:
            raise ConnectionError("closed before answering")
        got += chunk
    return conn


def closed(conn):
    """Whether the server closed `conn` (or answered on it, as with a 408 before closing)."""
    try:
        return conn.recv(4096, socket.MSG_DONTWAIT) is not None
    except BlockingIOError:
        return False
    except OSError:
        return True


def probe(port, seconds, results, starts):
    begun = time.monotonic()
    end = begun + seconds
    while time.monotonic() < end:
        started = time.monotonic()
        starts.append(started - begun)
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
                conn.sendall(HEAD.replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n"))
                answer = conn.recv(64)
            results.append(("answered" if answer.startswith(b"HTTP/1.1 200") else "refused",
                            time.monotonic() - started))
        except OSError:
            results.append(("timed out", time.monotonic() - started))
        time.sleep(max(0.0, 2 - (time.monotonic() - started)))


def main():
    binary = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 4096
    seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 60
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, count * 2 + 256)), hard))
    port = free_port()
    data = tempfile.mkdtemp()
    env = dict(os.environ, KIOKU_DATA_DIR=data, API_TOKENS="bench:" + "x" * 40,
               KIOKU_ALLOW_WEAK_TOKENS="true", PORT=str(port), RUST_LOG="warn")
    server = subprocess.Popen([binary], env=env, stdout=subprocess.DEVNULL)
    try:
        for _ in range(300):
            try:
                answered_once(port).close()
                break
            except OSError:
                time.sleep(0.1)
        conns = []
        for _ in range(count):
            try:
                conns.append(answered_once(port))
            except OSError:
                break
        opened = len(conns)
        results, starts = [], []
        prober = threading.Thread(target=probe, args=(port, seconds, results, starts))
        prober.start()
        started = time.monotonic()
        closed_at = []
        next_head = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        sent = 0
        while conns and time.monotonic() - started < seconds:
            still = []
            for conn in conns:
                if closed(conn):
                    closed_at.append(time.monotonic() - started)
                    conn.close()
                    continue
                try:
                    conn.sendall(next_head[sent % len(next_head):][:1])
                    still.append(conn)
                except OSError:
                    closed_at.append(time.monotonic() - started)
                    conn.close()
            conns = still
            sent += 1
            time.sleep(3)
        prober.join()
        for conn in conns:
            conn.close()
        answered = [took for outcome, took in results if outcome == "answered"]
        print(f"{opened} connections answered once, then trickling their next head")
        print(f"closed by the server: {len(closed_at)}"
              + (f", the last seen closed {max(closed_at):.1f} s after the first byte (looked at every 3 s)"
                 if closed_at else ""))
        print(f"still open after {seconds:.0f} s: {len(conns)}")
        outcomes = {o: sum(1 for r in results if r[0] == o) for o in {r[0] for r in results}}
        print(f"fresh GET /healthz, one every 2 s: {outcomes}"
              + (f", slowest answered {max(answered) * 1000:.0f} ms" if answered else ""))
        slow = [(round(at, 1), round(took, 2)) for at, (o, took) in zip(starts, results) if took > 1]
        print(f"answered or not after more than 1 s (started at s, took s): {slow}")
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
