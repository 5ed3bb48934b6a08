"""Five libraries' models in one results store and one report (issue 24's first acceptance point).

Usage::

    python benchmarks/evaluate_peers.py [--docs 2000] [--test-docs 600] [--k 10] [-o FOLDER]

Fits, on the first ``--docs`` Reuters-21578 ModApte training stories (the project's
loader, its default recipe), a gensim ``LdaModel``, a tomotopy ``LDAModel`` (saved as a
``.bin``), a tealeaves ``GibbsLDA`` written out as a MALLET Gibbs state (MALLET itself
cannot run here, see :func:`write_mallet_state`), a scikit-learn ``NMF`` and, when bertopic
is installed, a BERTopic model (embeddings passed in: 64-dimensional LSA vectors of the
stories, since no sentence-embedding model can be downloaded here).  Then:

1. ``tealeaves.evaluate`` scores them all, on the first ``--test-docs`` test stories, into
   ``FOLDER/results.sqlite``;
2. ``tealeaves report FOLDER/results.sqlite -o FOLDER/report.html`` writes the report.

It also writes every model as a file (``nmf.npz`` and ``bertopic.npz`` through
``tealeaves.load_model(...).save``) and the stories as ``train.txt`` / ``test.txt``, and prints
the ``tealeaves evaluate`` command that scores the same files from the command line.

It prints each model's stored measures, and the reason of every measure a model
cannot give.  ``tests/test_evaluate.py`` runs a reduced version (``fit_peers``).
"""

from __future__ import annotations

import argparse
import gzip
import json
import sqlite3
from pathlib import Path

import numpy as np

from tealeaves.corpus import Corpus


def write_mallet_state(model, corpus: Corpus, path: Path, seed: int = 0) -> Path:
    """Write a fitted tealeaves ``GibbsLDA`` as a MALLET ``--output-state`` file (gzip).

    MALLET's documented format (``ParallelTopicModel.printState``): the header
    ``#doc source pos typeindex type topic``, ``#alpha : a_1 ... a_K``, ``#beta : b``, then one
    line per token.  Type indices number the words in order of first appearance, as MALLET's
    alphabet does.  ``GibbsLDA`` keeps its counts but not each token's topic, so each token's
    topic is drawn once from its posterior under the fit, ``p(z = k | w, d) ~ theta_dk phi_kw``
    (one Gibbs sweep from the fitted state, seeded).

    Parameters
    ----------
    model : GibbsLDA
        The fitted model (``doc_topic_``, ``topic_word_``, ``doc_topic_prior_``, ``beta_``).
    corpus : Corpus
        Its training documents.
    path : Path
        The file to write.
    seed : int
        Seed of the topic draws.

    Returns
    -------
    Path
        ``path``.
    """
    rng = np.random.default_rng(seed)
    doc = np.repeat(np.arange(len(corpus)), corpus.lengths)
    p = model.doc_topic_[doc] * model.topic_word_[:, corpus.tokens].T
    cumulative = np.cumsum(p / p.sum(axis=1, keepdims=True), axis=1)
    z = np.minimum((cumulative < rng.random((len(p), 1))).sum(axis=1), p.shape[1] - 1)
    first = {}
    for w in corpus.tokens:
        first.setdefault(int(w), len(first))
    words = corpus.vocabulary
    lines = ["#doc source pos typeindex type topic",
             "#alpha : " + " ".join(repr(float(a)) for a in model.doc_topic_prior_),
             f"#beta : {float(model.beta_)!r}"]
    for i, (d, w) in enumerate(zip(doc, corpus.tokens)):
        lines.append(f"{d} NA {i - corpus.offsets[d]} {first[int(w)]} {words[int(w)]} {z[i]}")
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
    return path


def fit_peers(train: Corpus, k: int, folder: Path, iterations: int = 50, bertopic: bool = True) -> dict:
    """Fit every library's model on ``train`` and return the ``models`` argument of ``tealeaves.evaluate``.

    Parameters
    ----------
    train : Corpus
        The training stories.
    k : int
        Topics per model (BERTopic finds its own number).
    folder : Path
        Where the tomotopy ``.bin``, the MALLET state and the gensim model are saved.
    iterations : int
        Sampling iterations (tomotopy, GibbsLDA) and gensim's per-document iterations.
    bertopic : bool
        Fit BERTopic too when it is installed.

    Returns
    -------
    dict
        ``gensim`` (the ``LdaModel`` object), ``tomotopy`` (two seeds' ``.bin`` paths: a
        configuration of two runs), ``mallet`` (the state's path), ``nmf`` (the scikit-learn
        ``NMF`` adapted with its vectorizer) and ``bertopic`` (the BERTopic object, when fitted).
    """
    import tomotopy as tp
    from gensim.corpora import Dictionary
    from gensim.models import LdaModel
    from sklearn.decomposition import NMF
    from sklearn.feature_extraction.text import CountVectorizer

    import tealeaves
    from tealeaves.models.lda_gibbs import GibbsLDA

    docs = train.token_lists()
    dictionary = Dictionary(docs)
    lda = LdaModel([dictionary.doc2bow(d) for d in docs], id2word=dictionary, num_topics=k, passes=2,
                   iterations=iterations, random_state=0)
    lda.save(str(folder / "gensim-lda"))
    bins = []
    for seed in (0, 1):
        mdl = tp.LDAModel(k=k, seed=seed)
        for d in docs:
            if d:
                mdl.add_doc(d)
        mdl.train(iterations, workers=1)
        bins.append(str(folder / f"tomotopy-s{seed}.bin"))
        mdl.save(bins[-1])
    gibbs = GibbsLDA(n_components=k, n_iter=iterations, optimize_burn_in=iterations // 2,
                     optimize_interval=10, random_state=0).fit(train)
    state = write_mallet_state(gibbs, train, folder / "mallet-state.gz")
    vectorizer = CountVectorizer(token_pattern=r"\S+", lowercase=False)
    x = vectorizer.fit_transform(" ".join(d) for d in docs)
    nmf = NMF(n_components=k, init="nndsvd", random_state=0, max_iter=200).fit(x)
    models = {"gensim": lda, "tomotopy": bins, "mallet": str(state),
              "nmf": tealeaves.load_model(nmf, vectorizer=vectorizer)}
    if bertopic:
        fitted = fit_bertopic(docs)
        if fitted is not None:
            models["bertopic"] = fitted
    return models


def fit_bertopic(docs: list[list[str]]):
    """A BERTopic model of the stories with LSA embeddings passed in (``None`` without bertopic).

    Parameters
    ----------
    docs : list of list of str
        The tokenised stories (joined with spaces for BERTopic).

    Returns
    -------
    BERTopic or None
        The fitted model.
    """
    try:
        from bertopic import BERTopic
    except ImportError:
        return None
    from sklearn.decomposition import TruncatedSVD
    from sklearn.feature_extraction.text import TfidfVectorizer
    from umap import UMAP

    texts = [" ".join(d) for d in docs]
    embeddings = TruncatedSVD(64, random_state=0).fit_transform(TfidfVectorizer().fit_transform(texts))
    model = BERTopic(umap_model=UMAP(n_components=5, random_state=0), min_topic_size=15)
    model.fit(texts, embeddings=embeddings)
    return model


def main() -> None:
    import tealeaves
    from tealeaves.corpus.reuters import load_reuters_modapte

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=2000)
    parser.add_argument("--test-docs", type=int, default=600)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("-o", "--output", default="evaluate-peers")
    args = parser.parse_args()
    folder = Path(args.output)
    folder.mkdir(parents=True, exist_ok=True)
    train, test, _ = load_reuters_modapte()
    train, test = train.subset(np.arange(args.docs)), test.subset(np.arange(args.test_docs))
    models = fit_peers(train, args.k, folder, args.iterations)
    files = save_files(models, train, test, folder)
    store = folder / "results.sqlite"
    print(tealeaves.evaluate(models, train=train, test=test, output=store))
    with sqlite3.connect(store) as conn:
        for name, measures in conn.execute("SELECT name, measures FROM models ORDER BY name"):
            m = json.loads(measures)
            shown = {key: m.get(key) for key in ("completion_perplexity", "unigram_perplexity", "npmi",
                                                 "diversity", "significance", "test_tokens_known_share")}
            print(name, json.dumps(shown))
            for measure, reason in m.get("unavailable", {}).items():
                print(f"    {measure}: null -- {reason}")
    print(f"next: tealeaves report {store} -o {folder / 'report.html'}")
    pairs = " ".join(f"{name}={path}" for name, path in files.items() if not isinstance(path, list))
    groups = " ".join(f"--group {name}={','.join(p)}" for name, p in files.items() if isinstance(p, list))
    print(f"the same from the command line: tealeaves evaluate {folder / 'train.txt'} {pairs} {groups} "
          f"--test {folder / 'test.txt'} -o {folder / 'cli.sqlite'}")


def save_files(models: dict, train: Corpus, test: Corpus, folder: Path) -> dict:
    """Every model of :func:`fit_peers` as a file, and the stories as token lines; name -> path(s).

    Parameters
    ----------
    models : dict
        What :func:`fit_peers` returned.
    train, test : Corpus
        The stories.
    folder : Path
        Where to write.

    Returns
    -------
    dict
        The ``NAME=PATH`` / ``--group`` arguments of ``tealeaves evaluate``.
    """
    import tealeaves

    for corpus, name in ((train, "train.txt"), (test, "test.txt")):
        (folder / name).write_text("\n".join(" ".join(d) for d in corpus.token_lists()) + "\n",
                                   encoding="utf-8")
    files = {"gensim": str(folder / "gensim-lda"), "tomotopy": models["tomotopy"], "mallet": models["mallet"]}
    for name in ("nmf", "bertopic"):
        if name in models:
            files[name] = str(tealeaves.load_model(models[name]).save(folder / f"{name}.npz"))
    return files


if __name__ == "__main__":
    main()
