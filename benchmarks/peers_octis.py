"""OCTIS's and tmtoolkit's (Mimno) numbers against tealeaves' on one Reuters model: a parity table.

Usage::

    python benchmarks/peers_octis.py [--k 20] [--full] [--dim 50] [--folder DIR]

Fits scikit-learn's LDA (K topics, the reproduction's settings; ``--full`` for its full
iterations, else the quick ones) on the Reuters-21578 ModApte training stories (the project's
loader), builds word vectors from the same stories (LSA: a truncated SVD of their tf-idf
matrix, ``--dim`` dimensions, since no pretrained vectors can be downloaded here), and runs

* OCTIS 1.14 (``octis.evaluation_metrics``) in ``/work/scratch/venv-octis`` (installed with
  ``pip install --no-deps octis`` plus gensim, scikit-learn, scipy, requests, which its metric
  modules import; its torch-based models are not needed);
* tmtoolkit's ``metric_coherence_mimno_2011`` in ``/work/scratch/venv-tmtoolkit``;

each on the same files (topic-word matrix, document-topic matrices, the model's top words,
the vectors as a word2vec text file with 17 significant digits), and tealeaves in this
process, with the paper's definition (``compat="paper"``) and the peer's (``compat="octis"``,
the ``tmtoolkit_umass`` preset).  OCTIS's embedding metrics read the vectors through gensim
as float32; the script gives them the same file read as float64 (``datatype=numpy.float64``,
replacing the metric's ``KeyedVectors``) so that the comparison measures the definitions,
not float32 rounding.  OCTIS's classifier (``LinearSVC``) has no seed; NumPy's global seed
is set to tealeaves' ``seed`` so both draw the same liblinear seed.

:func:`rows` returns the table (``benchmarks/peers.py`` includes it); the script prints it.
A compat row's target is equality to 1e-9; a paper row shows how far the peer is from the
paper's definition.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
from pathlib import Path

import numpy as np

OCTIS_PYTHON = Path("/work/scratch/venv-octis/bin/python")
TMTOOLKIT_PYTHON = Path("/work/scratch/venv-tmtoolkit/bin/python")
#: A compat setting must equal its peer to this.
TARGET = 1e-9

OCTIS_SCRIPT = r"""
import json, sys
import numpy as np
from gensim.models import KeyedVectors
from octis.evaluation_metrics import topic_significance_metrics as ts, diversity_metrics as dm
from octis.evaluation_metrics import similarity_metrics as sm, coherence_metrics as cm
from octis.evaluation_metrics import classification_metrics as clm

folder = sys.argv[1]
arrays = np.load(folder + "/inputs.npz")
meta = json.load(open(folder + "/inputs.json"))
out = {"model_output": {}, "classification": {}}
output = {"topics": meta["topics"], "topic-word-matrix": arrays["phi"],
          "topic-document-matrix": arrays["theta_train"].T}
for name, metric in (("KL_uniform", ts.KL_uniform()), ("KL_vacuous", ts.KL_vacuous()),
                     ("KL_background", ts.KL_background()), ("KLDivergence", dm.KLDivergence()),
                     ("LogOddsRatio", dm.LogOddsRatio())):
    out["model_output"][name] = float(metric.score(output))

def with_vectors(cls, **kw):
    # each metric reads its own copy, as OCTIS's constructors do (gensim's similarity() rescales the
    # vectors of a float64 KeyedVectors in place, which would leak into the next metric)
    wv = KeyedVectors.load_word2vec_format(folder + "/vectors.txt", binary=False, datatype=np.float64)
    metric = cls.__new__(cls)
    metric.__dict__.update(kw)
    metric._wv = wv
    metric.wv = wv
    return metric

topk = meta["n_top"]
embedding = {
    "WECoherencePairwise": with_vectors(cm.WECoherencePairwise, topk=topk, binary=False),
    "WECoherenceCentroid": with_vectors(cm.WECoherenceCentroid, topk=topk, binary=False),
    "WordEmbeddingsInvertedRBO": with_vectors(dm.WordEmbeddingsInvertedRBO, topk=topk, weight=0.9, norm=True),
    "WordEmbeddingsInvertedRBOCentroid": with_vectors(dm.WordEmbeddingsInvertedRBOCentroid, topk=topk,
                                                      weight=0.9, norm=True),
    "WordEmbeddingsRBOMatch": with_vectors(sm.WordEmbeddingsRBOMatch, topk=topk, weight=0.9, norm=True),
    "WordEmbeddingsPairwiseSimilarity": with_vectors(sm.WordEmbeddingsPairwiseSimilarity, topk=topk),
    "WordEmbeddingsCentroidSimilarity": with_vectors(sm.WordEmbeddingsCentroidSimilarity, topk=topk),
}
for name, metric in embedding.items():
    out["model_output"][name] = float(metric.score(output))
import warnings
weighted = with_vectors(sm.WordEmbeddingsWeightedSumSimilarity, topk=topk,
                        id2word=dict(enumerate(meta["vocab"])))
notes = []
for n_topics in (2, 3):  # its pair loop compares topic i with itself and never counts the pairs
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = weighted.score({"topic-word-distribution": arrays["phi"][:n_topics]})
        notes.append(f"K={n_topics}: returns {value!r}")
    except Exception as exc:
        notes.append(f"K={n_topics}: {type(exc).__name__}: {exc}")
out["weighted_sum"] = "; ".join(notes)

class Dataset:
    def get_labels(self):
        return meta["train_labels"] + meta["test_labels"]

np.random.seed(meta["seed"])
clf_output = {"topic-document-matrix": arrays["sl_train"].T,
              "test-topic-document-matrix": arrays["sl_test"].T}
for name, cls in (("F1Score", clm.F1Score), ("PrecisionScore", clm.PrecisionScore),
                  ("RecallScore", clm.RecallScore)):
    np.random.seed(meta["seed"])
    clm.stored_model_output_hash = None
    out["classification"][name] = float(cls(Dataset()).score(clf_output))
print(json.dumps(out))
"""

TMTOOLKIT_SCRIPT = r"""
import json, sys
import numpy as np
import scipy.sparse as sp
from tmtoolkit.topicmod.evaluate import metric_coherence_mimno_2011

folder = sys.argv[1]
arrays = np.load(folder + "/inputs.npz")
dtm = sp.load_npz(folder + "/dtm.npz")
phi = arrays["phi"]
out = {
    "mimno(eps=1e-12, normalize=True)": metric_coherence_mimno_2011(phi, dtm, top_n=20, eps=1e-12,
                                                                   normalize=True).tolist(),
    "mimno(eps=1, normalize=False)": metric_coherence_mimno_2011(phi, dtm, top_n=20).tolist(),
}
print(json.dumps(out))
"""


def lsa_vectors(corpus, dim: int = 50, seed: int = 0):
    """LSA word vectors: the right singular vectors of the tf-idf matrix times the singular values.

    Parameters
    ----------
    corpus : Corpus
        The documents.
    dim : int
        The dimension.
    seed : int
        ``TruncatedSVD``'s seed.

    Returns
    -------
    WordVectors
        One vector per word of the corpus's vocabulary that occurs in it.
    """
    from sklearn.decomposition import TruncatedSVD
    from sklearn.feature_extraction.text import TfidfTransformer

    from tealeaves.comparison import WordVectors

    counts = corpus.counts
    svd = TruncatedSVD(n_components=dim, random_state=seed).fit(TfidfTransformer().fit_transform(counts))
    vectors = (svd.components_ * svd.singular_values_[:, None]).T
    keep = np.flatnonzero(np.asarray(counts.sum(axis=0)).ravel() > 0)
    keep = keep[np.linalg.norm(vectors[keep], axis=1) > 0]
    words = list(corpus.vocabulary)
    return WordVectors([words[i] for i in keep], vectors[keep], f"lsa-reuters-d{dim}")


def _single_label(corpus, theta):
    """Rows and labels of the documents with exactly one label."""
    idx = [d for d, labels in enumerate(corpus.labels) if labels is not None and len(labels) == 1]
    return theta[idx], [corpus.labels[d][0] for d in idx]


def prepare(folder: Path, k: int = 20, full: bool = False, dim: int = 50, n_top: int = 10,
            seed: int = 0) -> dict:
    """Fit the model, build the vectors and write the peers' inputs into ``folder``.

    Parameters
    ----------
    folder : Path
        Where the inputs are written.
    k : int
        Topics.
    full : bool
        The reproduction's full LDA settings (else the quick ones).
    dim : int
        Vector dimension.
    n_top : int
        Top words of the word-list measures.
    seed : int
        LDA's, the SVD's and the classifier's seed.

    Returns
    -------
    dict
        ``model``, ``train``, ``vectors``, ``topics``, ``theta_train``, the single-label
        ``sl_train``/``sl_test`` matrices and their labels.
    """
    import scipy.sparse as sp

    from tealeaves.comparison._common import top_words
    from tealeaves.corpus.reuters import load_reuters_modapte
    from tealeaves.reproduce.reuters import fit_reuters_models

    train, test, _ = load_reuters_modapte()
    model = fit_reuters_models([k], seed=seed, quick=not full, train=train, progress=None, use_cache=False)[k]
    theta_train, theta_test = model.transform(train), model.transform(test)
    vectors = lsa_vectors(train, dim, seed)
    topics = top_words(model, n_top)
    sl_train, y_train = _single_label(train, theta_train)
    sl_test, y_test = _single_label(test, theta_test)
    seen = set(y_train)  # OCTIS raises KeyError on a test label absent from training
    keep = [i for i, y in enumerate(y_test) if y in seen]
    sl_test, y_test = sl_test[keep], [y_test[i] for i in keep]
    phi = model.topic_word_
    np.savez(folder / "inputs.npz", phi=phi, theta_train=theta_train, sl_train=sl_train, sl_test=sl_test)
    sp.save_npz(folder / "dtm.npz", train.counts.tocsr())
    (folder / "inputs.json").write_text(json.dumps({
        "topics": topics, "n_top": n_top, "vocab": list(model.vocabulary_), "seed": seed,
        "train_labels": y_train, "test_labels": y_test}))
    with open(folder / "vectors.txt", "w", encoding="utf-8") as fh:
        fh.write(f"{len(vectors)} {vectors.dimension}\n")
        for word, row in zip(vectors.words, vectors.vectors):
            fh.write(word + " " + " ".join(f"{x:.17g}" for x in row) + "\n")
    return {"model": model, "train": train, "vectors": vectors, "topics": topics, "theta_train": theta_train,
            "sl_train": sl_train, "y_train": y_train, "sl_test": sl_test, "y_test": y_test, "seed": seed}


def _run(python: Path, script: str, folder: Path) -> dict:
    done = subprocess.run([str(python), "-c", script, str(folder)], capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{python} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def tealeaves_values(inputs: dict, vectors) -> dict:
    """tealeaves' numbers for every row: ``{(peer measure, setting): value or per-topic list}``.

    Parameters
    ----------
    inputs : dict
        :func:`prepare`'s result.
    vectors : WordVectors
        The vectors as read back from the written file.

    Returns
    -------
    dict
        The values.
    """
    from tealeaves import comparison as cmp
    from tealeaves.coherence import coherence

    model, topics, theta = inputs["model"], inputs["topics"], inputs["theta_train"]
    out = {}
    for compat in ("paper", "octis"):
        sig = cmp.topic_significance(model, theta, compat=compat).per_topic
        for name, column in (("KL_uniform", "kl_uniform"), ("KL_vacuous", "kl_vacuous"),
                             ("KL_background", "kl_background")):
            out[(name, compat)] = float(sig[column].mean())
        out[("KLDivergence", compat)] = cmp.topic_pair_kl(model, compat=compat).value
        emb = cmp.embedding_coherence(topics, vectors, n_top=len(topics[0]), compat=compat)
        out[("WECoherencePairwise", compat)] = emb.value
        out[("WECoherenceCentroid", compat)] = emb.details["mean_centroid"]
    out[("LogOddsRatio", "paper")] = cmp.log_odds_ratio(model).value
    irbo = cmp.we_irbo(topics, vectors)
    out[("WordEmbeddingsInvertedRBO", "paper")] = irbo.value
    out[("WordEmbeddingsRBOMatch", "paper")] = irbo.details["rbo_match"]
    out[("WordEmbeddingsInvertedRBOCentroid", "paper")] = cmp.we_irbo(topics, vectors, centroid=True).value
    out[("WordEmbeddingsPairwiseSimilarity", "paper")] = cmp.we_similarity(topics, vectors).value
    centroid = cmp.we_similarity(topics, vectors, centroid=True)
    out[("WordEmbeddingsCentroidSimilarity", "paper")] = centroid.value
    scores = cmp.classification_scores(inputs["sl_train"], inputs["y_train"], inputs["sl_test"],
                                       inputs["y_test"], seed=inputs["seed"])
    for name, key in (("F1Score", "f1_micro"), ("PrecisionScore", "precision_micro"),
                      ("RecallScore", "recall_micro")):
        out[(name, "paper")] = scores[key].value
    for preset, peer in (("tmtoolkit_umass", "mimno(eps=1e-12, normalize=True)"),
                         ("umass", "mimno(eps=1, normalize=False)"),
                         ("gensim", "mimno(eps=1e-12, normalize=True)")):
        settings = ({"measure": "umass", "smoothing": 0, "zero": "epsilon", "aggregation": "mean"}
                    if preset == "gensim" else {"measure": preset})
        res = coherence(model, inputs["train"], n_top=20, **settings)
        out[(peer, preset)] = [float("nan") if s is None else float(s) for s in res.scores]
    return out


#: (peer, peer measure, tealeaves function, setting) of every row, in the table's order.
ROWS = [
    ("OCTIS", "KL_uniform", "topic_significance kl_uniform", "octis"),
    ("OCTIS", "KL_uniform", "topic_significance kl_uniform", "paper"),
    ("OCTIS", "KL_vacuous", "topic_significance kl_vacuous", "octis"),
    ("OCTIS", "KL_vacuous", "topic_significance kl_vacuous", "paper"),
    ("OCTIS", "KL_background", "topic_significance kl_background", "octis"),
    ("OCTIS", "KL_background", "topic_significance kl_background", "paper"),
    ("OCTIS", "KLDivergence", "topic_pair_kl", "octis"),
    ("OCTIS", "KLDivergence", "topic_pair_kl", "paper"),
    ("OCTIS", "LogOddsRatio", "log_odds_ratio", "paper"),
    ("OCTIS", "WECoherencePairwise", "embedding_coherence pairwise", "octis"),
    ("OCTIS", "WECoherencePairwise", "embedding_coherence pairwise", "paper"),
    ("OCTIS", "WECoherenceCentroid", "embedding_coherence centroid", "octis"),
    ("OCTIS", "WECoherenceCentroid", "embedding_coherence centroid", "paper"),
    ("OCTIS", "WordEmbeddingsInvertedRBO", "we_irbo", "paper"),
    ("OCTIS", "WordEmbeddingsInvertedRBOCentroid", "we_irbo centroid=True", "paper"),
    ("OCTIS", "WordEmbeddingsRBOMatch", "we_irbo details rbo_match", "paper"),
    ("OCTIS", "WordEmbeddingsPairwiseSimilarity", "we_similarity", "paper"),
    ("OCTIS", "WordEmbeddingsCentroidSimilarity", "we_similarity centroid=True", "paper"),
    ("OCTIS", "F1Score", "classification_scores f1_micro", "paper"),
    ("OCTIS", "PrecisionScore", "classification_scores precision_micro", "paper"),
    ("OCTIS", "RecallScore", "classification_scores recall_micro", "paper"),
    ("tmtoolkit", "mimno(eps=1e-12, normalize=True)", "coherence", "tmtoolkit_umass"),
    ("tmtoolkit", "mimno(eps=1e-12, normalize=True)", "coherence", "gensim"),
    ("tmtoolkit", "mimno(eps=1, normalize=False)", "coherence", "umass"),
]


def _difference(peer, ours) -> float:
    a, b = np.atleast_1d(np.asarray(peer, dtype=float)), np.atleast_1d(np.asarray(ours, dtype=float))
    return float(np.nanmax(np.abs(a - b)))


def rows(k: int = 20, full: bool = False, dim: int = 50, seed: int = 0,
         folder: str | Path | None = None) -> list[dict]:
    """The parity table: one dict per row (``peer``, ``measure``, ``tealeaves``, ``setting``,
    ``peer_value``, ``tealeaves_value``, ``difference``, ``target``, ``ok``).

    Per-topic measures (tmtoolkit's) show their means and the largest per-topic difference.
    ``target`` is ``"<= 1e-9"`` for every setting that claims the peer's number (a compat
    setting, or the paper's definition where the peer follows it), ``"paper"`` for the paper's
    definition where the peer deviates (or gensim's u_mass against tmtoolkit's): its difference
    is the deviation; ``ok`` says whether a claimed row met its target.

    Parameters
    ----------
    k : int
        Topics.
    full : bool
        The reproduction's full LDA settings.
    dim : int
        LSA vector dimension.
    seed : int
        Seeds of the fit, the SVD and the classifier.
    folder : str or Path or None
        Where the peers' inputs are written (None: a temporary folder).

    Returns
    -------
    list of dict
        The rows, plus one ``note`` row for OCTIS's ``WordEmbeddingsWeightedSumSimilarity``.
    """
    from tealeaves.comparison import read_vectors

    with tempfile.TemporaryDirectory() as tmp:
        where = Path(folder or tmp)
        where.mkdir(parents=True, exist_ok=True)
        inputs = prepare(where, k, full, dim, seed=seed)
        vectors = read_vectors(where / "vectors.txt", name=inputs["vectors"].name)
        octis = _run(OCTIS_PYTHON, OCTIS_SCRIPT, where)
        tmtoolkit = _run(TMTOOLKIT_PYTHON, TMTOOLKIT_SCRIPT, where)
        ours = tealeaves_values(inputs, vectors)
    peer_values = {**octis["model_output"], **octis["classification"], **tmtoolkit}
    table = []
    for peer, measure, function, setting in ROWS:
        theirs, mine = peer_values[measure], ours[(measure, setting)]
        # the paper's definition where the peer deviates from it (a compat setting exists), or gensim's
        compat = not (setting == "gensim" or (setting == "paper" and (measure, "octis") in ours))
        diff = _difference(theirs, mine)
        table.append({"peer": peer, "measure": measure, "tealeaves": function, "setting": setting,
                      "peer_value": float(np.nanmean(theirs)), "tealeaves_value": float(np.nanmean(mine)),
                      "difference": diff, "target": f"<= {TARGET:g}" if compat else "paper",
                      "ok": bool(diff <= TARGET) if compat else None})
    table.append({"peer": "OCTIS", "measure": "WordEmbeddingsWeightedSumSimilarity", "tealeaves": "-",
                  "setting": "-", "note": octis["weighted_sum"]})
    sums = vectors.vectors.sum(axis=1)
    table.append({"peer": "OCTIS", "measure": "v / sum(v) flips", "tealeaves": "-", "setting": "-",
                  "note": f"{(sums < 0).mean():.1%} of the {len(vectors)} vectors ({vectors.name}) "
                          "sum below 0"})
    n_words = inputs["model"].topic_word_.shape[1]
    table.append({"peer": "OCTIS", "measure": "KL epsilon", "tealeaves": "-", "setting": "-",
                  "note": f"1e-5 is {1e-5 * n_words:.1%} of the uniform probability 1/{n_words}"})
    return table


def _print(table: list[dict]) -> None:
    head = (f"{'peer':<10} {'measure':<34} {'setting':<15} {'peer':>14} {'tealeaves':>14} {'|diff|':>9}"
            "  target")
    print(head)
    print("-" * len(head))
    for r in table:
        if "note" in r:
            print(f"{r['peer']:<10} {r['measure']:<34} {'':<15} {r['note']}")
            continue
        print(f"{r['peer']:<10} {r['measure']:<34} {r['setting']:<15} {r['peer_value']:>14.9g} "
              f"{r['tealeaves_value']:>14.9g} {r['difference']:>9.2g}  {r['target']}"
              + ("" if r["ok"] is None else ("  ok" if r["ok"] else "  MISSED")))


def main(argv: list[str] | None = None) -> int:
    """Run the comparison and print the table.

    Parameters
    ----------
    argv : list of str or None
        Command-line arguments.

    Returns
    -------
    int
        0 when every compat row met its target, else 1.
    """
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, default=20)
    parser.add_argument("--full", action="store_true", help="the reproduction's full LDA iterations")
    parser.add_argument("--dim", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--folder", help="keep the peers' inputs here")
    args = parser.parse_args(argv)
    table = rows(args.k, args.full, args.dim, args.seed, args.folder)
    _print(table)
    return 0 if all(r.get("ok") is not False for r in table) else 1


if __name__ == "__main__":
    raise SystemExit(main())
