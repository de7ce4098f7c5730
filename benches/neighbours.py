#!/usr/bin/env python3
"""How long one namespace's requests take while another sends the worst burst its rate limit
allows (SECURITY.md, "One namespace cannot stall another"). Starts a kioku binary on loopback
(SQLite), fills alice's namespace with ENTRIES summaries through `kioku import`, then, for each
scenario, sends alice's burst all at once and bob's small requests one every 50 ms until the
burst is over, and reports bob's latencies (median, 99th percentile, slowest) and how alice's
requests ended.

- `search`: alice sends BURST searches of 60 words: the 26 one-letter words, each of which
  every summary holds, so that every search ranks as many candidates as it may, and 34
  two-letter words; bob loads.
- `save` (with --model DIR): alice sends BURST/2 saves and BURST/2 searches of 5,000
  characters, each of which the model embeds; bob saves a short summary.

Usage: neighbours.py KIOKU_BINARY [--model DIR] [--entries N] [--burst N]

Every connection goes to 127.0.0.1 only; the burst is bounded by --burst.
"""

import argparse
import json
import os
import random
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor

ALICE = secrets.token_hex(32)
BOB = secrets.token_hex(32)
LETTERS = "abcdefghijklmnopqrstuvwxyz"
# The longest summary a save takes by default (KIOKU_MAX_SUMMARY_CHARS), and so the longest
# question.
SAVE_CHARS = 5_000


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def summary(rng, chars):
    """Words of a few letters, so that every one-letter query word is in nearly every summary."""
    words, length = [], 0
    while length < chars:
        word = "".join(rng.choice(LETTERS) for _ in range(rng.randint(2, 7)))
        words.append(word)
        length += len(word) + 1
    return " ".join(words)[:chars]


def fill(binary, env, entries, per_thread=100):
    rng = random.Random(7)
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as out:
        for thread in range(entries // per_thread):
            line = {
                "namespace": "alice",
                "thread_id": f"t{thread}",
                "entries": [
                    {
                        "summary": summary(rng, 400) + " " + " ".join(LETTERS),
                        "timestamp": f"2025-01-{thread % 28 + 1:02}T10:00:00.{i:06}+09:00",
                    }
                    for i in range(per_thread)
                ],
            }
            out.write(json.dumps(line) + "\n")
    subprocess.run([binary, "import", out.name], env=env, check=True, capture_output=True)
    os.unlink(out.name)


def request(base, token, params, timeout=30):
    url = f"{base}/?{urllib.parse.urlencode(params)}"
    req = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"})
    started = time.monotonic()
    try:
        with urllib.request.urlopen(req, timeout=timeout) as answer:
            answer.read()
            status = answer.status
    except urllib.error.HTTPError as refused:
        status = refused.code
    except OSError:
        status = "no answer"
    return status, time.monotonic() - started


def scenario(base, burst, neighbour):
    """Sends every request of `burst` at once, and `neighbour` every 50 ms until they end."""
    done = threading.Event()
    times = []

    def probe():
        while not done.is_set() or len(times) < 5:
            status, took = request(base, BOB, neighbour)
            assert status == 200, f"bob's request answered {status}"
            times.append(took)
            time.sleep(0.05)

    prober = threading.Thread(target=probe)
    with ThreadPoolExecutor(max_workers=len(burst)) as pool:
        futures = [pool.submit(request, base, ALICE, params, 60) for params in burst]
        time.sleep(0.2)
        prober.start()
        statuses = [future.result()[0] for future in futures]
    done.set()
    prober.join()
    times.sort()
    p99 = times[min(len(times) - 1, int(len(times) * 0.99))]
    counted = {str(s): statuses.count(s) for s in sorted(set(statuses), key=str)}
    return {
        "bob's requests": len(times),
        "median s": round(statistics.median(times), 3),
        "p99 s": round(p99, 3),
        "slowest s": round(times[-1], 3),
        "alice's answers": counted,
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--model", help="an embedding model's directory: also run `save`")
    parser.add_argument("--entries", type=int, default=20_000)
    parser.add_argument("--burst", type=int, default=110)
    args = parser.parse_args()

    data = tempfile.mkdtemp()
    port = free_port()
    env = dict(
        os.environ,
        KIOKU_DATA_DIR=data,
        API_TOKENS=f"alice:{ALICE},bob:{BOB}",
        PORT=str(port),
        RUST_LOG="warn",
    )
    if args.model:
        env["KIOKU_EMBEDDING_MODEL"] = args.model
    fill(args.binary, env, args.entries)
    server = subprocess.Popen([args.binary], env=env, stdout=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            if request(base, BOB, {"mode": "load"}, 1)[0] == 200:
                break
            time.sleep(0.1)
        request(base, BOB, {"mode": "save", "summary": "bob's one memory"})
        # 60 words: the 26 letters, then two-letter words, each in about 2% of the summaries.
        pairs = [a + b for a in LETTERS for b in LETTERS][::19][:60 - len(LETTERS)]
        words = " ".join(list(LETTERS) + pairs)
        results = {}
        searches = [{"mode": "load", "q": words}] * args.burst
        results["search"] = scenario(base, searches, {"mode": "load"})
        if args.model:
            rng = random.Random(11)
            half = args.burst // 2
            saves = [{"mode": "save", "summary": summary(rng, SAVE_CHARS)} for _ in range(half)]
            queries = [{"mode": "load", "q": summary(rng, SAVE_CHARS)} for _ in range(half)]
            bob_save = {"mode": "save", "summary": "bob saves a short note", "thread_id": "b"}
            time.sleep(61)  # a fresh minute of alice's rate limit
            results["save"] = scenario(base, saves + queries, bob_save)
        print(json.dumps({"entries": args.entries, "burst": args.burst, **results}, indent=1))
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    sys.exit(main())
