"""The baseline: plain Okapi BM25 over the same documents and questions kioku gets.

English: lowercased `\\w+` words, no stemming, no stop words. Japanese: the text NFKC-folded and
lowercased, split into runs of word characters (`\\w+`, so punctuation and spaces break runs),
each run cut into its overlapping character bigrams (a one-character run is kept as it is).
Score: sum over the question's distinct terms of idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b *
len / avglen)), idf = ln(1 + (N - df + 0.5) / (df + 0.5)) (Lucene's, never negative), k1 = 1.2,
b = 0.75. Ties go to the document saved later, as kioku's recency order would have it.
"""

import heapq
import math
import re
import unicodedata
from collections import Counter, defaultdict

K1 = 1.2
B = 0.75
WORD = re.compile(r"\w+")


def words(text):
    return WORD.findall(text.lower())


def bigrams(text):
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).lower())
    terms = []
    for run in WORD.findall(folded):
        if len(run) == 1:
            terms.append(run)
        else:
            terms.extend(run[i : i + 2] for i in range(len(run) - 1))
    return terms


TOKENIZERS = {"en": words, "ja": bigrams}


class Index:
    def __init__(self, texts, language):
        self.tokenize = TOKENIZERS[language]
        self.postings = defaultdict(list)  # term -> [(doc, tf)]
        self.lengths = []
        for doc, text in enumerate(texts):
            terms = self.tokenize(text)
            self.lengths.append(len(terms))
            for term, tf in Counter(terms).items():
                self.postings[term].append((doc, tf))
        self.n = len(self.lengths)
        avglen = sum(self.lengths) / max(self.n, 1)
        self.norm = [K1 * (1 - B + B * length / avglen) for length in self.lengths]

    def search(self, query, k):
        """The indexes of the k best documents for `query`, best first (fewer if fewer match)."""
        scores = defaultdict(float)
        for term in set(self.tokenize(query)):
            postings = self.postings.get(term)
            if not postings:
                continue
            weight = (K1 + 1) * math.log(1 + (self.n - len(postings) + 0.5) / (len(postings) + 0.5))
            norm = self.norm
            for doc, tf in postings:
                scores[doc] += weight * tf / (tf + norm[doc])
        return heapq.nlargest(k, scores, key=lambda doc: (scores[doc], doc))
