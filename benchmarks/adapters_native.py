"""Adapted gensim / scikit-learn / tomotopy models: parity of phi and completion with both inference choices.

Usage::

    python benchmarks/adapters_native.py [--docs 300] [--test-docs 80] [--k 6]

Fits each library's LDA on the first ``--docs`` Reuters ModApte training
stories (settings of ``tests/test_adapters_native.py``), adapts it with
``tealeaves.load_model`` and prints a Markdown table: the largest absolute
difference between tealeaves' ``topic_word_`` and the library's own
distributions, the vocabulary size and the document-completion perplexity on
the first ``--test-docs`` test stories with ``inference="tealeaves"`` and
``inference="native"`` (split seed 3).  Needs gensim and tomotopy.
"""

from __future__ import annotations

import argparse

import numpy as np

import tealeaves
from tealeaves.corpus import Corpus
from tealeaves.corpus.reuters import load_reuters_modapte
from tealeaves.likelihood.completion import document_completion


def fitted(docs: list[list[str]], k: int) -> dict:
    """``library -> (native model, load_model options, the library's own phi)``."""
    import tomotopy as tp
    from gensim.corpora import Dictionary
    from gensim.models import LdaModel
    from sklearn.decomposition import LatentDirichletAllocation
    from sklearn.feature_extraction.text import CountVectorizer

    dictionary = Dictionary(docs)
    lda = LdaModel([dictionary.doc2bow(d) for d in docs], id2word=dictionary, num_topics=k, passes=2,
                   iterations=30, random_state=0, alpha="auto", eta="auto")
    vec = CountVectorizer(token_pattern=r"\S+", lowercase=False)
    x = vec.fit_transform(" ".join(d) for d in docs)
    sk = LatentDirichletAllocation(k, max_iter=5, random_state=0).fit(x)
    tm = tp.LDAModel(k=k, min_cf=2, rm_top=5, seed=0)
    for d in docs:
        tm.add_doc(d)
    tm.train(50, workers=1)
    return {"gensim": (lda, {}, lda.get_topics()),
            "scikit-learn": (sk, {"vectorizer": vec}, sk.components_ / sk.components_.sum(1, keepdims=True)),
            "tomotopy": (tm, {}, np.array([tm.get_topic_word_dist(j) for j in range(k)]))}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=300)
    parser.add_argument("--test-docs", type=int, default=80)
    parser.add_argument("--k", type=int, default=6)
    args = parser.parse_args()
    train, test, _ = load_reuters_modapte()
    docs = [d for d in train.token_lists()[: args.docs] if d]
    tests = [d for d in test.token_lists()[: args.test_docs] if len(d) > 1]
    print("| library | max abs diff of phi | V | perplexity, tealeaves | native | held-out words |")
    print("|---|---|---|---|---|---|")
    for obj, opts, phi in fitted(docs, args.k).values():
        ppl = {}
        for inference in ("tealeaves", "native"):
            model = tealeaves.load_model(obj, inference=inference, **opts)
            result = document_completion(model, Corpus.from_token_lists(tests, model.vocabulary_), seed=3)
            ppl[inference] = result.perplexity
        source = model.metadata_["source"]
        print(f"| {source['library']} {source['version']} | {np.abs(model.topic_word_ - phi).max():.1e} | "
              f"{len(model.vocabulary_)} | {ppl['tealeaves']:.1f} | {ppl['native']:.1f} | "
              f"{result.n_heldout_words} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
