"""The figures of one run: metrics, the table, and the section of docs/recall.md between the
markers, which scripts/bench-recall rewrites."""

import datetime
import math
import os
import platform
import statistics
import subprocess

BEGIN = "<!-- bench-recall:begin (scripts/bench-recall rewrites this section) -->"
END = "<!-- bench-recall:end -->"


def recall(rankings, relevant, k):
    """Share of questions with a relevant document among the first k of their ranking."""
    hits = sum(1 for ranked, rel in zip(rankings, relevant) if set(ranked[:k]) & rel)
    return hits / len(relevant) if relevant else 0.0


def percentile(values, p):
    """Nearest-rank percentile, in the values' unit; None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def machine():
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:
        cpus = os.cpu_count()
    model = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    return f"nproc {cpus}, {model}, load average {load} at the end"


def commit(root):
    def git(*args):
        return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True).stdout
    head = git("rev-parse", "--short", "HEAD").strip() or "unknown"
    dirty = git("status", "--porcelain", "--untracked-files=no").strip()
    return f"{head} with uncommitted changes" if dirty else head


def ms(seconds):
    return "–" if seconds is None else f"{seconds * 1000:.1f}"


def pct(x):
    return f"{x:.3f}"


def table(results):
    """One Markdown row per data set."""
    lines = [
        "| Data set | Docs | Chars | Questions | kioku R@5 | kioku R@10 | refused (4xx) "
        "| kioku median / p95 ms | BM25 R@5 | BM25 R@10 | load without q: docs, recall |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in results:
        refused = r["refused_total"]
        codes = ", ".join(f"{c} {n}" for c, n in sorted(r["refused"].items()))
        lines.append(
            f"| {r['name']}{' (held out)' if r['held_out'] else ''} | {r['documents']:,} "
            f"| {r['chars']:,} | {r['questions']:,} | {pct(r['kioku'][5])} "
            f"| {pct(r['kioku'][10])} | {refused:,}{f' ({codes})' if codes else ''} "
            f"| {ms(r['median'])} / {ms(r['p95'])} | {pct(r['bm25'][5])} "
            f"| {pct(r['bm25'][10])} | {r['plain_docs']:,}, {pct(r['plain_recall'])} |"
        )
    return "\n".join(lines)


def categories(result):
    """LoCoMo's recall@10 by question category (the file's numbers), kioku and BM25."""
    by = result.get("by_category")
    if not by:
        return ""
    parts = [f"{c}: {n:,} questions, kioku {pct(k)}, BM25 {pct(b)}" for c, n, k, b in by]
    return f"{result['name']} recall@10 by category — " + "; ".join(parts) + "."


def section(results, source, binary_note, budget, elapsed):
    notes = [categories(r) for r in results]
    cut = sum(r["cut"] for r in results)
    cleaned = sum(r["cleaned"] for r in results)
    return "\n".join(
        [
            BEGIN,
            "",
            f"Run of {datetime.date.today().isoformat()} on {machine()}, kioku at commit "
            f"{source} ({binary_note}); {elapsed:.0f} s in all.",
            "",
            table(results),
            "",
            *[n + "\n" for n in notes if n],
            f"Every namespace holds more than the load budget ({budget:,} characters of JSON): "
            "the load without `q` was cut (`truncated`) in "
            f"{sum(r['plain_truncated'] for r in results)} of {len(results)} data sets. "
            f"Summaries cut to the {results[0]['max_chars']:,}-character limit: {cut}; "
            f"summaries holding characters kioku refuses (dropped from the text): {cleaned}. "
            "Latency: client-side, over the searches kioku answered 200, one kept-alive "
            "connection, one request at a time.",
            "",
            END,
        ]
    )


def rewrite(doc_path, new_section):
    text = doc_path.read_text() if doc_path.exists() else ""
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        _, tail = rest.split(END, 1)
        text = head + new_section + tail
    else:
        text = text.rstrip("\n") + ("\n\n" if text else "") + new_section + "\n"
    doc_path.write_text(text)


def latency(times):
    return (statistics.median(times) if times else None, percentile(times, 95))
