#!/usr/bin/env python3
"""Makes benches/similar/data/*.json.gz from the sentence-pair sets as their authors publish
them. Not run by scripts/bench-similar, which reads the files this wrote; kept so that anyone can
check or redo the reduction. Each output holds only what the benchmark uses:

    {"name", "language", "origin", "license", "rule",
     "pairs": [{"a", "b", "similar": bool}, ...]}

"similar" is the set's own judgement of two texts saying nearly the same: an STS score of at
least 4 of 5 ("mostly equivalent, but some unimportant details differ"), or MSRP's paraphrase
label.

    benches/similar/prepare.py sts-2012-2014 path/to/dataset-sts
    benches/similar/prepare.py sts-2015-2016 path/to/dataset-sts
    benches/similar/prepare.py msrp-test     path/to/dataset-sts
    benches/similar/prepare.py jsts          path/to/JGLUE
    benches/similar/prepare.py jsts-train    path/to/JGLUE

(dataset-sts: github.com/brmson/dataset-sts, which gathers the SemEval STS and MSRP files;
JGLUE: github.com/yahoojapan/JGLUE.)
"""

import gzip
import json
import sys
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"
STS_RULE = "STS score >= 4 of 5"


def sts(root, years):
    pairs = []
    for year in years:
        for path in sorted((Path(root) / "data/sts/semeval-sts" / str(year)).glob("*.tsv")):
            for line in path.read_text(encoding="utf-8").splitlines():
                fields = line.split("\t")
                if len(fields) < 3 or not fields[0].strip():
                    continue  # pairs the organisers left unscored
                pairs.append({"a": fields[1], "b": fields[2], "similar": float(fields[0]) >= 4})
    return pairs


def msrp(root):
    lines = (Path(root) / "data/para/msr/msr-para-test.tsv").read_text(encoding="utf-8-sig")
    pairs = []
    for line in lines.splitlines()[1:]:
        quality, _, _, a, b = line.split("\t")
        pairs.append({"a": a, "b": b, "similar": quality == "1"})
    return pairs


def jsts(root, split):
    path = Path(root) / f"datasets/jsts-v1.3/{split}-v1.3.json"
    pairs = []
    for line in path.read_text(encoding="utf-8").splitlines():
        pair = json.loads(line)
        pairs.append({"a": pair["sentence1"], "b": pair["sentence2"],
                      "similar": pair["label"] >= 4})
    return pairs


SETS = {
    "sts-2012-2014": ("en", "SemEval STS 2012-2014, every scored pair (Agirre et al.), via "
                      "brmson/dataset-sts data/sts/semeval-sts/2012..2014",
                      "per year and source, for research (see the files' readmes)", STS_RULE,
                      lambda root: sts(root, [2012, 2013, 2014])),
    "sts-2015-2016": ("en", "SemEval STS 2015-2016, every scored pair (Agirre et al.), via "
                      "brmson/dataset-sts data/sts/semeval-sts/2015..2016",
                      "per source, for research (see the files' LICENSE)", STS_RULE,
                      lambda root: sts(root, [2015, 2016])),
    "msrp-test": ("en", "Microsoft Research Paraphrase Corpus, test (Dolan and Brockett 2005), "
                  "via brmson/dataset-sts data/para/msr/msr-para-test.tsv",
                  "Microsoft Research Paraphrase Corpus licence (research use)",
                  "labelled a paraphrase", msrp),
    "jsts": ("ja", "JSTS v1.3 validation (JGLUE, Kurihara et al., LREC 2022), "
             "yahoojapan/JGLUE datasets/jsts-v1.3/valid-v1.3.json", "CC BY-SA 4.0",
             STS_RULE, lambda root: jsts(root, "valid")),
    "jsts-train": ("ja", "JSTS v1.3 train (JGLUE, Kurihara et al., LREC 2022), "
                   "yahoojapan/JGLUE datasets/jsts-v1.3/train-v1.3.json", "CC BY-SA 4.0",
                   STS_RULE, lambda root: jsts(root, "train")),
}


def main():
    name, root = sys.argv[1], sys.argv[2]
    language, origin, licence, rule, read = SETS[name]
    pairs = read(root)
    out = {"name": name, "language": language, "origin": origin, "license": licence,
           "rule": rule, "pairs": pairs}
    DATA.mkdir(exist_ok=True)
    with gzip.open(DATA / f"{name}.json.gz", "wt", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False)
    similar = sum(p["similar"] for p in pairs)
    print(f"{name}: {len(pairs)} pairs, {similar} similar")


if __name__ == "__main__":
    main()
