"""Starts a kioku binary on a free loopback port with a fresh SQLite data directory, and talks
to it over HTTP (one kept-alive connection, as a GPT's action client would hold)."""

import http.client
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import urllib.parse

LISTENING = re.compile(r"listening.*?address\W+([0-9.]+:\d+)")


class Server:
    """`namespaces` get a strong random token each; the rate limit is off; `settings` (more
    environment variables) set the rest, else their defaults."""

    def __init__(self, binary, namespaces, log_path, settings=None):
        self.settings = {k: str(v) for k, v in (settings or {}).items()}
        self.binary = binary
        self.tokens = {name: secrets.token_urlsafe(32) for name in namespaces}
        self.log_path = log_path
        self.process = None
        self.data_dir = None
        self.address = None

    def __enter__(self):
        self.data_dir = tempfile.mkdtemp(prefix="kioku-bench-recall-")
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("KIOKU_", "FIRESTORE_", "GOOGLE_"))
            and k not in ("API_TOKENS", "PORT", "K_SERVICE", "RUST_LOG")
        }
        env.update(
            PORT="0",
            KIOKU_HOST="127.0.0.1",
            KIOKU_STORE="sqlite",
            KIOKU_DATA_DIR=self.data_dir,
            KIOKU_RATE_LIMIT="0",
            KIOKU_LOG_FORMAT="text",
            API_TOKENS=",".join(f"{n}:{t}" for n, t in self.tokens.items()),
        )
        env.update(self.settings)
        started = time.perf_counter()
        self.process = subprocess.Popen(
            [self.binary],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
        )
        found = threading.Event()

        def copy_log():
            with open(self.log_path, "w") as log:
                for line in self.process.stdout:
                    log.write(line)
                    log.flush()
                    if not found.is_set() and (m := LISTENING.search(line)):
                        self.address = m[1]
                        found.set()
            found.set()

        threading.Thread(target=copy_log, daemon=True).start()
        if not found.wait(120) or self.address is None:
            self.__exit__(None, None, None)
            raise RuntimeError(f"kioku did not start; its log is {self.log_path}")
        self.cold_start = time.perf_counter() - started
        return self

    def cpu_seconds(self):
        """CPU time the server has used, all its threads, to the nanosecond (schedstat): fine
        enough to tell one request's share when requests come one at a time."""
        total = 0
        for task in os.listdir(f"/proc/{self.process.pid}/task"):
            try:
                with open(f"/proc/{self.process.pid}/task/{task}/schedstat") as f:
                    total += int(f.read().split()[0])
            except OSError:
                pass  # a thread that ended meanwhile
        return total / 1e9

    def memory_kib(self):
        """(resident now, peak resident), in KiB."""
        fields = {}
        with open(f"/proc/{self.process.pid}/status") as f:
            for line in f:
                name, _, value = line.partition(":")
                fields[name] = value.split()[0] if value.split() else "0"
        return int(fields.get("VmRSS", 0)), int(fields.get("VmHWM", 0))

    def __exit__(self, *exc):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.data_dir:
            shutil.rmtree(self.data_dir, ignore_errors=True)
        return False

    def client(self, namespace):
        return Client(self.address, self.tokens[namespace])


class Client:
    def __init__(self, address, token):
        host, port = address.rsplit(":", 1)
        self.host, self.port = host, int(port)
        self.headers = {"Authorization": f"Bearer {token}"}
        self.connection = None

    def request(self, method, path, body=None):
        """(status, parsed JSON answer, seconds from sending to the last byte). Retries what
        kioku says to retry (429, 503, with Retry-After) and a dropped kept-alive connection."""
        headers = dict(self.headers)
        if body is not None:
            body = json.dumps(body, ensure_ascii=False).encode()
            headers["Content-Type"] = "application/json"
        for attempt in range(6):
            if self.connection is None:
                self.connection = http.client.HTTPConnection(self.host, self.port, timeout=60)
            try:
                started = time.perf_counter()
                self.connection.request(method, path, body=body, headers=headers)
                response = self.connection.getresponse()
                raw = response.read()
                elapsed = time.perf_counter() - started
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                self.connection.close()
                self.connection = None
                if attempt:
                    raise
                continue
            if response.status in (429, 503) and attempt < 5:
                time.sleep(float(response.getheader("Retry-After") or 1))
                continue
            try:
                answer = json.loads(raw)
            except ValueError:
                answer = {"code": f"not JSON ({len(raw)} bytes)"}
            return response.status, answer, elapsed
        raise RuntimeError(f"{method} {path}: still refused after retries")

    def save(self, summary):
        """Starts a new thread holding `summary`; its thread_id."""
        status, answer, _ = self.request("POST", "/", {"mode": "save", "summary": summary})
        if status != 200 or "thread_id" not in answer:
            raise RuntimeError(f"save answered {status} {answer.get('code')}")
        return answer["thread_id"]

    def load(self, **params):
        query = urllib.parse.urlencode({"mode": "load", **params})
        return self.request("GET", f"/?{query}")

    def close(self):
        if self.connection:
            self.connection.close()
            self.connection = None
