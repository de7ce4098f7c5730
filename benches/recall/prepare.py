#!/usr/bin/env python3
"""Makes benches/recall/data/*.json.gz from the data sets as their authors publish them.

Not run by scripts/bench-recall, which reads the files this wrote; kept so that anyone can
check or redo the reduction. Each output holds only what the benchmark uses:

    {"name", "language", "origin", "license",
     "documents": [{"id", "text"}, ...],                 # saved in this order
     "questions": [{"q", "relevant": [id, ...], "category"?}, ...]}

    benches/recall/prepare.py locomo   path/to/locomo10.json
    benches/recall/prepare.py locomo-sessions path/to/locomo10.json
    benches/recall/prepare.py jsquad   path/to/valid-v1.3.json
    benches/recall/prepare.py jsquad-test path/to/test-v1.3.json
    benches/recall/prepare.py jsquad-untitled path/to/valid-v1.3.json
    benches/recall/prepare.py xquad-en path/to/xquad.en.json
    benches/recall/prepare.py jaquad   path/to/jaquad_dev_0000.json ... jaquad_dev_0003.json
"""

import gzip
import json
import re
import sys
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"

SOURCES = {
    "locomo": (
        "en",
        "LoCoMo (Maharana et al., ACL 2024), snap-research/LoCoMo data/locomo10.json",
        "CC BY-NC 4.0",
    ),
    "locomo-sessions": (
        "en",
        "LoCoMo (Maharana et al., ACL 2024), snap-research/LoCoMo data/locomo10.json: each "
        "session's conversation itself",
        "CC BY-NC 4.0",
    ),
    "jsquad": (
        "ja",
        "JSQuAD v1.3 validation (JGLUE, Kurihara et al., LREC 2022), "
        "yahoojapan/JGLUE datasets/jsquad-v1.3/valid-v1.3.json (the same file as v1.1's)",
        "CC BY-SA 4.0",
    ),
    "jsquad-test": (
        "ja",
        "JSQuAD v1.3 test (JGLUE, Kurihara et al., LREC 2022; articles other than the "
        "validation set's), yahoojapan/JGLUE datasets/jsquad-v1.3/test-v1.3.json",
        "CC BY-SA 4.0",
    ),
    "jsquad-untitled": (
        "ja",
        "JSQuAD v1.3 validation (JGLUE, Kurihara et al., LREC 2022), "
        "yahoojapan/JGLUE datasets/jsquad-v1.3/valid-v1.3.json, each paragraph without its title",
        "CC BY-SA 4.0",
    ),
    "xquad-en": (
        "en",
        "XQuAD English (Artetxe et al., ACL 2020; 240 paragraphs of the SQuAD v1.1 dev set), "
        "google-deepmind/xquad xquad.en.json",
        "CC BY-SA 4.0",
    ),
    "jaquad": (
        "ja",
        "JaQuAD validation (So et al., 2022), SkelterLabsInc/JaQuAD data/dev/jaquad_dev_000[0-3].json",
        "CC BY-SA 3.0",
    ),
}


def locomo(paths):
    """Each session's `session_summary` is a document; the QA items of categories 1-4 are the
    questions (5 is adversarial: unanswerable by design), relevant = the sessions their
    `evidence` dialog ids name (`D3:5` is session 3). Questions with no evidence are left out."""
    (path,) = paths
    documents, questions, skipped = [], [], 0
    for conversation in json.loads(Path(path).read_text()):
        conv = conversation["sample_id"]
        summaries = conversation["session_summary"]
        numbers = sorted(int(re.fullmatch(r"session_(\d+)_summary", k)[1]) for k in summaries)
        for n in numbers:
            documents.append({"id": f"{conv}/s{n}", "text": summaries[f"session_{n}_summary"]})
        for qa in conversation["qa"]:
            if qa["category"] == 5:
                continue
            # Evidence is `D<session>:<turn>`, a few written `D:11:26` or several in one string.
            sessions = {
                int(m) for e in qa.get("evidence", []) for m in re.findall(r"D:?(\d+):\d+", e)
            }
            relevant = [f"{conv}/s{s}" for s in sorted(sessions) if s in numbers]
            if not relevant:
                skipped += 1
                continue
            questions.append(
                {"q": qa["question"], "relevant": relevant, "category": qa["category"]}
            )
    print(f"locomo: {skipped} questions of categories 1-4 name no session and are left out")
    return documents, questions


# kioku's default KIOKU_MAX_SUMMARY_CHARS: a longer session is saved as two documents.
MAX_DOCUMENT_CHARS = 5000


def locomo_sessions(paths):
    """Each session's conversation is a document, as a memory of the whole chat would hold it:
    its date and time, then a line per turn, `speaker: text` (what was said; a shared photo's
    caption is not). A session longer than kioku takes is cut in two at a turn, `s8a` and
    `s8b`. The questions are `locomo`'s, relevant = the documents holding their evidence turns."""
    (path,) = paths
    documents, questions, skipped = [], [], 0
    for conversation in json.loads(Path(path).read_text()):
        conv, dialog = conversation["sample_id"], conversation["conversation"]
        numbers = sorted(
            int(m[1]) for k in dialog if (m := re.fullmatch(r"session_(\d+)", k)))
        holder = {}  # (session, turn) -> document id
        for n in numbers:
            turns = dialog[f"session_{n}"]
            header = dialog[f"session_{n}_date_time"]
            lines = [f"{turn['speaker']}: {turn['text']}" for turn in turns]
            parts = [(f"{conv}/s{n}", turns, lines)]
            if len(header) + sum(len(line) + 1 for line in lines) > MAX_DOCUMENT_CHARS:
                half = len(turns) // 2
                parts = [(f"{conv}/s{n}a", turns[:half], lines[:half]),
                         (f"{conv}/s{n}b", turns[half:], lines[half:])]
            for doc_id, part_turns, part_lines in parts:
                text = "\n".join([header, *part_lines])
                assert len(text) <= MAX_DOCUMENT_CHARS, doc_id
                documents.append({"id": doc_id, "text": text})
                for turn in part_turns:
                    holder[turn["dia_id"]] = doc_id
        for qa in conversation["qa"]:
            if qa["category"] == 5:
                continue
            turns = {f"D{s}:{t}" for e in qa.get("evidence", [])
                     for s, t in re.findall(r"D:?(\d+):(\d+)", e)}
            relevant = sorted({holder[t] for t in turns if t in holder})
            if not relevant:
                skipped += 1
                continue
            questions.append(
                {"q": qa["question"], "relevant": relevant, "category": qa["category"]}
            )
    print(f"locomo-sessions: {skipped} questions of categories 1-4 name no turn held")
    return documents, questions


def squad_like(articles, title):
    """`title`: what becomes of JSQuAD's title prefix, "タイトル [SEP] 本文": "line" keeps it as
    the first line (a summary, too, names its subject), "drop" leaves the paragraph alone (many
    summaries do not), None for sets that have no prefix."""
    documents, questions = [], []
    for a, article in enumerate(articles):
        for p, paragraph in enumerate(article["paragraphs"]):
            doc_id = f"a{a}p{p}"
            text = paragraph["context"]
            if title:
                heading, sep, body = text.partition(" [SEP] ")
                text = (f"{heading}\n{body}" if title == "line" else body) if sep else text
            documents.append({"id": doc_id, "text": text})
            for qa in paragraph["qas"]:
                if not qa.get("is_impossible", False):
                    questions.append({"q": qa["question"], "relevant": [doc_id]})
    return documents, questions


def jsquad(paths):
    (path,) = paths
    return squad_like(json.loads(Path(path).read_text())["data"], title="line")


def jsquad_untitled(paths):
    (path,) = paths
    return squad_like(json.loads(Path(path).read_text())["data"], title="drop")


def xquad_en(paths):
    (path,) = paths
    return squad_like(json.loads(Path(path).read_text())["data"], title=None)


def jaquad(paths):
    articles = []
    for path in sorted(paths):
        articles += json.loads(Path(path).read_text())["data"]
    return squad_like(articles, title=None)


def main():
    name, *paths = sys.argv[1:]
    documents, questions = {"locomo": locomo, "locomo-sessions": locomo_sessions,
                            "jsquad": jsquad, "jsquad-test": jsquad,
                            "jsquad-untitled": jsquad_untitled,
                            "xquad-en": xquad_en, "jaquad": jaquad}[name](paths)
    language, origin, licence = SOURCES[name]
    out = {"name": name, "language": language, "origin": origin, "license": licence,
           "documents": documents, "questions": questions}
    DATA.mkdir(exist_ok=True)
    target = DATA / f"{name}.json.gz"
    raw = json.dumps(out, ensure_ascii=False, separators=(",", ":")).encode()
    # mtime=0: the same input gives the same bytes.
    target.write_bytes(gzip.compress(raw, compresslevel=9, mtime=0))
    chars = sum(len(d["text"]) for d in documents)
    print(f"{target}: {len(documents)} documents ({chars:,} characters), "
          f"{len(questions)} questions, {target.stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
