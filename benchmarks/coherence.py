"""Coherence speed: tealeaves against gensim's CoherenceModel and tomotopy's Coherence.

All three score the same topics (the top 10 words of scikit-learn LDA with 80
topics fitted to the Reuters training stories) against the same reference,
given as token lists:

* ``reuters``: the 7,769 ModApte training stories (default preprocessing);
* ``large``: every eBible text (one document per verse) and all 21,578
  Reuters-21578 stories, lowercased letter tokens with stop words kept --
  more than 10x the tokens.

Measures: ``u_mass`` (documents), ``c_npmi`` (window 10), ``c_v`` (window 110);
tealeaves runs with the settings that reproduce gensim's values
(``compat="gensim"``, ``zero="epsilon"``; the largest per-topic difference is
printed).
Timings, in one process:

* gensim: ``CoherenceModel(topics, texts, dictionary, processes=1)`` and
  ``get_coherence_per_topic()`` (the Dictionary is built beforehand, untimed);
* tomotopy: filling a ``tomotopy.utils.Corpus`` plus ``Coherence(...)`` and one
  ``get_score`` per topic;
* tealeaves one-shot: ``coherence(topics, token_lists)``, which indexes the
  token lists (the topic words' postings, in one pass) and scores;
* tealeaves indexed: scoring with an index already built (median of repeats).

Run from the repository root::

    TEALEAVES_DATA=/path/to/data python benchmarks/coherence.py [--skip-large]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

BIBLE = ("bible/ebible/eng-engwebp.txt", "bible/ebible/cmn-cmnfeb.txt", "bible/ebible/ron-ronlsb.txt",
         "bible/ebible/swe-swe.txt", "bible/ebible/tur-turytc.txt", "bible/ebible-extra/amh.txt",
         "bible/ebible-extra/cmn-cu89s.txt", "bible/ebible-extra/swef.txt", "bible/ebible-extra/turobt.txt",
         "bible/tagalog-angbiblia1905/tgl-TagAngBiblia1905.vref_aligned.txt")

#: measure -> (gensim name, window, tealeaves settings giving gensim's numbers)
MEASURES = {
    "u_mass": ("u_mass", None,
               {"measure": "umass", "smoothing": 0, "zero": "epsilon", "aggregation": "mean"}),
    "c_npmi": ("c_npmi", 10, {"measure": "npmi", "window": 10, "zero": "epsilon", "compat": "gensim"}),
    "c_v": ("c_v", 110, {"measure": "c_v", "window": 110, "zero": "epsilon", "compat": "gensim"}),
}


def _timed(fn, *args, **kwargs):
    t = time.perf_counter()
    out = fn(*args, **kwargs)
    return time.perf_counter() - t, out


def _one_shot(topics, texts, settings):
    from tealeaves.coherence import coherence

    return coherence(topics, texts, **settings)  # indexes the token lists (topic words only) first


def large_reference() -> list[list[str]]:
    """Every eBible verse and all 21,578 Reuters-21578 stories (lowercase letter tokens, stop words kept)."""
    from tealeaves import data
    from tealeaves.corpus import Preprocessor
    from tealeaves.corpus.reuters import read_reuters

    tokenize = Preprocessor(stop_words=None).tokenize
    docs = []
    for rel in BIBLE:
        for line in data.locate(rel).read_text(encoding="utf-8").splitlines():
            if line.strip():
                docs.append(tokenize(line))
    return docs + [tokenize(story.text) for story in read_reuters()]


def run_gensim(topics, texts, dictionary, name, window):
    from gensim.models.coherencemodel import CoherenceModel

    kwargs = {"window_size": window} if window else {}
    cm = CoherenceModel(topics=topics, texts=texts, dictionary=dictionary, coherence=name, processes=1,
                        **kwargs)
    return np.array(cm.get_coherence_per_topic())


def run_tomotopy(topics, texts, name, window):
    import tomotopy as tp
    from tomotopy.coherence import Coherence

    corpus = tp.utils.Corpus()
    for doc in texts:
        corpus.add_doc(words=doc)
    targets = sorted({w for t in topics for w in t})
    co = Coherence(corpus, coherence=name, window_size=window or 0, targets=targets)
    return np.array([co.get_score(words=t) for t in topics])


def bench(label, topics, texts, repeat, rows, skip_tools=False):
    from gensim.corpora import Dictionary

    from tealeaves.coherence import coherence, index_from_token_lists

    n_tokens = sum(len(t) for t in texts)
    print(f"\n== reference {label}: {len(texts)} documents, {n_tokens} tokens", flush=True)
    build_s, index = _timed(lambda: index_from_token_lists(texts, name=label))
    print(f"tealeaves index build from token lists: {build_s:.3f} s", flush=True)
    dictionary = Dictionary(texts)
    for key, (gname, window, settings) in MEASURES.items():
        coherence(topics, index, **settings)  # warm the compiled kernels
        one_s, res = _timed(_one_shot, topics, texts, settings)
        idx_s = statistics.median(_timed(coherence, topics, index, **settings)[0] for _ in range(repeat))
        g_s, g_vals = _timed(run_gensim, topics, texts, dictionary, gname, window)
        t_s, t_vals = _timed(run_tomotopy, topics, texts, gname, window)
        row = {"reference": label, "measure": key, "gensim_s": g_s, "tomotopy_s": t_s, "one_shot_s": one_s,
               "indexed_ms": idx_s * 1000, "x_gensim_indexed": g_s / idx_s, "x_tomotopy_indexed": t_s / idx_s,
               "x_gensim_one_shot": g_s / one_s, "x_tomotopy_one_shot": t_s / one_s,
               "max_abs_diff_gensim": float(np.max(np.abs(np.array(res.scores) - g_vals))),
               "mean_tealeaves": res.mean, "mean_gensim": float(np.mean(g_vals)),
               "mean_tomotopy": float(np.mean(t_vals))}
        rows.append(row)
        print(" ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()),
              flush=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--k", type=int, default=80, help="LDA topics (default 80)")
    parser.add_argument("--top", type=int, default=10, help="top words per topic (default 10)")
    parser.add_argument("--repeat", type=int, default=5, help="repeats of the indexed timing (median)")
    parser.add_argument("--skip-large", action="store_true", help="only the Reuters reference")
    args = parser.parse_args(argv)

    from tealeaves._output import format_table
    from tealeaves.reproduce.reuters import fit_reuters_models, load_corpora

    train, _ = load_corpora()
    model = fit_reuters_models([args.k])[args.k]
    topics = model.top_words(args.top)
    texts = train.token_lists()
    rows: list[dict] = []
    bench("reuters-train", topics, texts, args.repeat, rows)
    if not args.skip_large:
        big = large_reference()
        bench("ebible+reuters21578", topics, big, args.repeat, rows)
    cols = ["reference", "measure", "gensim_s", "tomotopy_s", "one_shot_s", "indexed_ms", "x_gensim_indexed",
            "x_tomotopy_indexed", "x_gensim_one_shot", "x_tomotopy_one_shot"]
    print("\n" + format_table(rows, cols, floatfmt=".3g"))
    print("\ntargets: indexed >= 100x gensim and >= 10x tomotopy; one-shot >= 5x gensim")
    return 0


if __name__ == "__main__":
    sys.exit(main())
