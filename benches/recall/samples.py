"""The texts the cost benchmarks time: summaries of a given length cut from a set's documents,
the same in scripts/bench-recall (the server's CPU per save) and scripts/bench-model (the
model's CPU per text)."""


def summaries(documents, count, chars=500):
    """`count` texts of `chars` characters, each from paragraphs in a row (JSQuAD's average
    under 200 characters)."""
    texts, text = [], ""
    for doc in documents:
        text = f"{text} {doc['text']}".strip()
        if len(text) >= chars:
            texts.append(text[:chars])
            text = ""
            if len(texts) == count:
                break
    return texts
