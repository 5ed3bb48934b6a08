"""Search scikit-learn LDA settings for the article's Reuters table (document completion, sklearn perplexity).

The article fitted ``LatentDirichletAllocation`` with K = 5 ... 80 on the ModApte
training stories without publishing its settings.  This script evaluates named
configurations (scikit-learn keyword arguments plus a few document-completion and
corpus variants) on the cheap K first (``--k 5 10``) and prints, per K, the
completion perplexity, scikit-learn's ``perplexity()``, the add-one unigram on the
same held-out words, the ratio completion / unigram against the article's, and
optionally mean NPMI (``--npmi``).  Fitted estimators are pickled under
``--cache`` (default ``/tmp/reuters_lda_calibration``) so a configuration is never
refitted.  Single-threaded (``n_jobs=1``)::

    TEALEAVES_DATA=/work/shared/data python benchmarks/reuters_lda_calibration.py --k 5 10 \
        --configs default gs_priors online10
    python benchmarks/reuters_lda_calibration.py --list
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pickle
import time
from numbers import Real
from pathlib import Path

import numpy as np
from sklearn.decomposition import LatentDirichletAllocation
from sklearn.utils._param_validation import Interval

from tealeaves.corpus import Corpus
from tealeaves.likelihood import baselines
from tealeaves.likelihood.completion import _keep_tokens, completion_signature, score_heldout, split_documents
from tealeaves.models import SklearnLDA
from tealeaves.reproduce.reuters import ARTICLE, ARTICLE_BASELINES, corpus_fingerprint
from tealeaves.reproduce.reuters_coherence import ARTICLE_NPMI


class _LDA(LatentDirichletAllocation):
    """scikit-learn's LDA accepting ``doc_topic_prior > 1`` (Griffiths & Steyvers' 50/K), as before 1.2."""

    _parameter_constraints = {**LatentDirichletAllocation._parameter_constraints,
                              "doc_topic_prior": [None, Interval(Real, 0, None, closed="neither")]}


BASE = {"learning_method": "batch", "max_iter": 20, "random_state": 0}
ONLINE = {"learning_method": "online", "learning_offset": 10.0, "learning_decay": 0.7, "batch_size": 128}


def _priors(alpha, eta):
    """Prior settings as functions of K (``None`` keeps scikit-learn's 1/K)."""
    def make(k):
        out = {}
        if alpha is not None:
            out["doc_topic_prior"] = alpha(k) if callable(alpha) else alpha
        if eta is not None:
            out["topic_word_prior"] = eta(k) if callable(eta) else eta
        return out
    return make


#: name -> (function K -> scikit-learn kwargs, options); options: split ("ceil"|"floor"), corpus, fit.
CONFIGS: dict = {
    "default": (lambda k: BASE, {}),
    "batch_it5": (lambda k: {**BASE, "max_iter": 5}, {}),
    "batch_it10": (lambda k: {**BASE, "max_iter": 10}, {}),
    "batch_it50": (lambda k: {**BASE, "max_iter": 50}, {}),
    "batch_eval1": (lambda k: {**BASE, "max_iter": 20, "evaluate_every": 1, "perp_tol": 0.1}, {}),
    "online5": (lambda k: {**BASE, **ONLINE, "max_iter": 5}, {}),
    "online10": (lambda k: {**BASE, **ONLINE, "max_iter": 10}, {}),
    "online20": (lambda k: {**BASE, **ONLINE, "max_iter": 20}, {}),
    "online10_partial": (lambda k: {**BASE, **ONLINE, "max_iter": 10}, {"fit": "partial"}),
    "gs_priors": (lambda k: {**BASE, **_priors(lambda k: 50 / k, 0.01)(k)}, {}),
    "gs_priors_eta0.1": (lambda k: {**BASE, **_priors(lambda k: 50 / k, 0.1)(k)}, {}),
    "alpha50k": (lambda k: {**BASE, **_priors(lambda k: 50 / k, None)(k)}, {}),
    "alpha1": (lambda k: {**BASE, **_priors(1.0, None)(k)}, {}),
    "alpha_min1_50k": (lambda k: {**BASE, **_priors(lambda k: min(1.0, 50 / k), None)(k)}, {}),
    "alpha0.1": (lambda k: {**BASE, **_priors(0.1, None)(k)}, {}),
    "eta0.01": (lambda k: {**BASE, **_priors(None, 0.01)(k)}, {}),
    "eta0.1": (lambda k: {**BASE, **_priors(None, 0.1)(k)}, {}),
    "alpha0.1_eta0.01": (lambda k: {**BASE, **_priors(0.1, 0.01)(k)}, {}),
    "alpha1_eta0.01": (lambda k: {**BASE, **_priors(1.0, 0.01)(k)}, {}),
    "floor_split": (lambda k: BASE, {"split": "floor"}),
    "coin_split": (lambda k: BASE, {"split": "coin"}),
    "type_split": (lambda k: BASE, {"split": "types"}),
    "unproc": (lambda k: BASE, {"corpus": "unproc"}),
}
for _s in range(1, 5):
    CONFIGS[f"seed{_s}"] = (lambda k, s=_s: {**BASE, "random_state": s}, {})


def load(variant: str) -> tuple[Corpus, Corpus]:
    """The ModApte corpora: default recipe, with UNPROC text (``unproc``) or UNPROC in test only."""
    from tealeaves.corpus.reuters import load_reuters_modapte

    if variant == "default":
        from tealeaves.reproduce.reuters import load_corpora
        return load_corpora()
    if variant == "unproc":
        train, test, _ = load_reuters_modapte(include_unprocessed=True)
        return train, test
    if variant == "unproc_test":
        train, _, pre = load_reuters_modapte()
        _, test, _ = load_reuters_modapte(preprocessor=pre, include_unprocessed=True)
        # re-fit would change the vocabulary: use the training-fitted preprocessor on the UNPROC test text
        return train, test
    raise ValueError(variant)


def split(test: Corpus, rule: str, seed: int = 0):
    """Observed/held-out halves; ``ceil`` is tealeaves' rule (held out n - n//2), ``floor`` holds out n//2."""
    if rule == "ceil":
        return split_documents(test, seed)
    report = split_documents(test, seed)[2]
    rng = np.random.default_rng(seed)
    obs = np.zeros(test.n_tokens, dtype=bool)
    held = np.zeros(test.n_tokens, dtype=bool)
    docs = np.flatnonzero(test.lengths >= 2)
    for d in docs:
        start, n = test.offsets[d], int(test.lengths[d])
        if rule == "floor":
            perm = rng.permutation(n)
            obs[start + perm[: n - n // 2]] = True
        elif rule == "coin":  # every token held out with probability 1/2
            obs[start:start + n] = rng.random(n) < 0.5
        elif rule == "types":  # whole word types go to one side (half the distinct words at random)
            words = test.tokens[start:start + n]
            types = np.unique(words)
            kept = rng.permutation(types)[: len(types) - len(types) // 2]
            obs[start:start + n] = np.isin(words, kept)
        held[start:start + n] = ~obs[start:start + n]
    report.n_observed_words, report.n_heldout_words = int(obs.sum()), int(held.sum())
    return _keep_tokens(test, docs, obs), _keep_tokens(test, docs, held), report


def fit(k: int, params: dict, train: Corpus, mode: str, cache: Path, tag: str) -> LatentDirichletAllocation:
    """Fit (or load) one estimator; ``mode='partial'`` runs max_iter passes of partial_fit."""
    text = json.dumps([k, params, mode, tag], sort_keys=True, default=str)
    key = hashlib.sha1(text.encode()).hexdigest()[:16]
    path = cache / f"{key}.pkl"
    if path.exists():
        return pickle.loads(path.read_bytes())
    est = _LDA(n_components=k, n_jobs=1, **params)
    if mode == "partial":
        rng = np.random.default_rng(params.get("random_state", 0))
        for _ in range(params.get("max_iter", 10)):
            order = rng.permutation(train.counts.shape[0])
            for start in range(0, len(order), params.get("batch_size", 128)):
                est.partial_fit(train.counts[order[start:start + params.get("batch_size", 128)]])
    else:
        est.fit(train.counts)
    cache.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pickle.dumps(est))
    return est


def evaluate(name: str, ks: list[int], cache: Path, npmi: bool) -> list[dict]:
    """One row per K for configuration ``name``."""
    make, options = CONFIGS[name]
    corpus_variant = options.get("corpus", "default")
    train, test = load(corpus_variant)
    observed, heldout, report = split(test, options.get("split", "ceil"))
    unigram = baselines(train, test, seed=0)["unigram"].perplexity
    if options.get("split", "ceil") != "ceil":
        counts = np.asarray(train.counts.sum(axis=0)).ravel() + 1.0
        p = counts / counts.sum()
        unigram = float(np.exp(-np.log(p[heldout.tokens]).mean()))
    index = None
    if npmi:
        from tealeaves.coherence import build_index
        index = build_index(train, name="reuters-modapte-train")
    rows = []
    for k in ks:
        t0 = time.perf_counter()
        est = fit(k, make(k), train, options.get("fit", "fit"), cache, corpus_fingerprint(train))
        model = SklearnLDA.from_sklearn(est, train.vocabulary)
        result = score_heldout(model.transform(observed), model.topic_word_, heldout, report,
                               completion_signature(model.description(), 0))
        row = {"config": name, "k": k, "completion": result.perplexity,
               "sklearn": model.perplexity(test), "unigram": unigram,
               "ratio": result.perplexity / unigram,
               "article_ratio": ARTICLE[k][0] / ARTICLE_BASELINES["unigram"],
               "completion_vs_article": result.perplexity / ARTICLE[k][0] - 1,
               "heldout_words": result.n_heldout_words, "seconds": time.perf_counter() - t0}
        if npmi:
            from tealeaves.coherence import coherence
            row["npmi"] = coherence(model, index, measure="npmi", n_top=10).mean
        rows.append(row)
        print(f"{name:20s} K={k:3d} completion {row['completion']:7.1f} ({row['completion_vs_article']:+.1%})"
              f" sklearn {row['sklearn']:7.1f} (article {ARTICLE[k][1]}) unigram {unigram:6.1f}"
              f" ratio {row['ratio']:.3f}/{row['article_ratio']:.3f}"
              + (f" npmi {row['npmi']:.3f}/{ARTICLE_NPMI[k]:.3f}" if npmi else "")
              + f" [{row['seconds']:.0f}s]", flush=True)
    return rows


def trajectory(k: int, max_iter: int, params: dict | None = None) -> list[dict]:
    """Batch fit of K topics, scored after every iteration (same RNG path as ``fit`` with that max_iter).

    Also reports the training perplexity that ``evaluate_every=1`` would compute and its change,
    the quantity ``perp_tol`` is compared with.
    """
    train, test = load("default")
    observed, heldout, report = split(test, "ceil")
    est = _LDA(n_components=k, n_jobs=1, **{**BASE, **(params or {}), "max_iter": max_iter})
    X = train.counts.astype(np.float64)
    est._check_non_neg_array(X, reset_n_features=True, whom="calibration")
    est._init_latent_vars(X.shape[1], dtype=X.dtype)
    rows, last = [], None
    for i in range(max_iter):
        est._em_step(X, total_samples=X.shape[0], batch_update=True, parallel=None)
        distr, _ = est._e_step(X, cal_sstats=False, random_init=False, parallel=None)
        train_perp = est._perplexity_precomp_distr(X, distr, sub_sampling=False)
        model = SklearnLDA.from_sklearn(est, train.vocabulary)
        result = score_heldout(model.transform(observed), model.topic_word_, heldout, report,
                               completion_signature(model.description(), 0))
        row = {"k": k, "iteration": i + 1, "completion": result.perplexity, "sklearn": model.perplexity(test),
               "train_perplexity": train_perp, "change": None if last is None else last - train_perp}
        last = train_perp
        rows.append(row)
        print(f"K={k:3d} it={i + 1:3d} completion {row['completion']:7.1f} (article {ARTICLE[k][0]})"
              f" sklearn {row['sklearn']:7.1f} (article {ARTICLE[k][1]}) train {train_perp:8.2f}"
              f" change {row['change'] if row['change'] is None else round(row['change'], 3)}", flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--configs", nargs="+", default=["default"])
    parser.add_argument("--k", nargs="+", type=int, default=[5, 10])
    parser.add_argument("--cache", type=Path, default=Path("/tmp/reuters_lda_calibration"))
    parser.add_argument("--npmi", action="store_true")
    parser.add_argument("--json", type=Path, help="append rows to this JSON-lines file")
    parser.add_argument("--list", action="store_true", help="list the configuration names and exit")
    parser.add_argument("--trajectory", type=int, metavar="MAX_ITER",
                        help="score every batch iteration up to MAX_ITER for each --k instead")
    args = parser.parse_args()
    if args.trajectory:
        for k in args.k:
            rows = trajectory(k, args.trajectory)
            if args.json:
                with open(args.json, "a") as fh:
                    fh.write("".join(json.dumps(r) + "\n" for r in rows))
        return
    if args.list:
        print("\n".join(CONFIGS))
        return
    for name in args.configs:
        rows = evaluate(name, args.k, args.cache, args.npmi)
        if args.json:
            with open(args.json, "a") as fh:
                for row in rows:
                    fh.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
