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


def pair(recalls):
    """`R@5 / R@10`, or a dash for a ranking not run."""
    return f"{pct(recalls[5])} / {pct(recalls[10])}" if recalls else "–"


def table(results):
    """One Markdown row per data set: recall@5 / recall@10 of each ranking."""
    semantic = any("meaning" in r["runs"] for r in results)
    head = "| Data set | Docs | Chars | Questions | kioku, words |"
    rule = "| --- | ---: | ---: | ---: | ---: |"
    if semantic:
        head += " kioku, words + meaning |"
        rule += " ---: |"
    head += " BM25 |"
    rule += " ---: |"
    if semantic:
        head += " dense (same model) | BM25 + dense, RRF |"
        rule += " ---: | ---: |"
    head += " refused (4xx) | search median / p95 ms | load without q: docs, recall |"
    rule += " ---: | ---: | ---: |"
    lines = [head, rule]
    for r in results:
        runs = r["runs"]
        row = (f"| {r['name']}{' (held out)' if r['held_out'] else ''} | {r['documents']:,} "
               f"| {r['chars']:,} | {r['questions']:,} | {pair(runs['words'])} |")
        if semantic:
            row += f" {pair(runs.get('meaning'))} |"
        row += f" {pair(r['bm25'])} |"
        if semantic:
            row += f" {pair(r.get('dense'))} | {pair(r.get('fusion'))} |"
        refused = ", ".join(f"{kind} {run['refused_total']:,}" for kind, run in runs.items())
        times = "; ".join(f"{kind} {ms(run['latency'][0])} / {ms(run['latency'][1])}"
                          for kind, run in runs.items())
        row += (f" {refused} | {times} "
                f"| {r['plain_docs']:,}, {pct(r['plain_recall'])} |")
        lines.append(row)
    return "\n".join(lines)


def cost_table(cost):
    """The model's cost, by language: per 500-character save and per search, the server's CPU
    (median and p95), its memory, and how long it took to listen."""
    lines = [
        "| summaries | kioku | save CPU median / p95 ms | search CPU median / p95 ms "
        "| RSS / peak RSS MiB | start to listening s |",
        "| --- | --- | ---: | ---: | ---: | ---: |",
    ]
    for language, kinds in cost.items():
        for kind, c in kinds.items():
            rss, peak = c["memory_kib"]
            lines.append(
                f"| {language} | {kind} | {ms(c['save_cpu'][0])} / {ms(c['save_cpu'][1])} "
                f"| {ms(c['search_cpu'][0])} / {ms(c['search_cpu'][1])} "
                f"| {rss / 1024:.0f} / {peak / 1024:.0f} | {c['cold_start']:.2f} |")
    return "\n".join(lines)


def categories(result):
    """LoCoMo's recall@10 by question category (the file's numbers), for each ranking."""
    by = result.get("by_category")
    if not by:
        return ""
    parts = [f"{c}: {n:,} questions, " + ", ".join(f"{kind} {pct(v)}" for kind, v in r.items())
             for c, n, r in by]
    return f"{result['name']} recall@10 by category — " + "; ".join(parts) + "."


def section(results, cost, source, binary_note, budget, elapsed):
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
            "Recall@5 / recall@10:",
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
            "What each kioku costs: the server's CPU per request (all its threads, from "
            "/proc schedstat), over 200 saves of 500-character summaries (XQuAD's English and "
            "JSQuAD's Japanese paragraphs in a row, cut at 500) and 200 searches, one at a "
            "time; its memory after the whole run; the time from its start to listening.",
            "",
            cost_table(cost),
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
