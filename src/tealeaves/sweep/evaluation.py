"""Evaluate models fitted anywhere: score each one exactly as a sweep scores its own fits, into a store.

>>> import tealeaves
>>> tealeaves.evaluate({"gensim": lda, "tomotopy": "lda.bin", "lda20": ["a.bin", "b.bin", "c.bin"]},
...                    train=train, test=test, output="results.sqlite")  # doctest: +SKIP

``models`` maps a name to a model (anything :func:`tealeaves.load_model` reads: a fitted
gensim, scikit-learn, tomotopy or BERTopic object, a tealeaves model, a saved model file)
or to a list of several runs of one configuration (stability and recurrence are computed
across the runs of a configuration).  A lone model ``NAME`` is stored as ``NAME`` (its own
configuration, run 0); the runs of a group ``NAME`` as ``NAME-r0``, ``NAME-r1``, ...

Every model goes through :func:`score_row`, the one scoring path that
:func:`tealeaves.sweep.sweep` uses for its own fits (:func:`tealeaves.sweep.measures.score_model`):
document-completion perplexity with the uniform and unigram baselines on the same held-out
words, coherence of the top words against the reference, diversity, topic significance and
the junk-topic flags.

Foreign vocabularies.  The evaluation's words are the training corpus's vocabulary (the
test documents are encoded over it, as in a sweep).  A model's columns are matched to them
by the word's string:

* held-out likelihood is computed over the test tokens whose word the model knows; the
  others are dropped, and counted per model (``test_tokens_dropped``, ``test_types_dropped``,
  ``test_tokens_known_share``); the baselines are defined over the model's vocabulary and
  scored on exactly the same held-out words;
* coherence is over the model's own top words (a top word missing from the reference is
  skipped and counted in ``top_words_missing_from_reference``);
* a model that knows fewer than :data:`MIN_TEST_COVERAGE` of the test tokens is refused
  (:class:`~tealeaves.errors.IncomparableError`) before anything is scored: its
  perplexity would describe a small, chosen part of the test data.

A model that cannot give a measure (NMF and BERTopic have no word probabilities, so no
held-out likelihood) gets ``None`` and a reason in ``measures["unavailable"]``.
"""

from __future__ import annotations

import hashlib
import os
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tealeaves._params import SPLIT_SEED
from tealeaves.corpus import Corpus
from tealeaves.errors import EmptyInputError, IncomparableError, ParameterError
from tealeaves.sweep.measures import (
    SweepData,
    corpus_hash,
    describe_model,
    not_probabilistic,
    reference_mismatch,
    score_model,
    vocabulary_coverage,
)
from tealeaves.validation import check_float, check_seed, check_unique

#: The least share of the test tokens a model's vocabulary must cover to be evaluated.  Below
#: it, the held-out likelihood would be computed on less than half of the test data -- a
#: different test set for that model -- so it is refused rather than reported.
MIN_TEST_COVERAGE = 0.5

DEFAULT_MEASURES = ("npmi",)

#: What a model name may hold: letters, digits, ``.``, ``_`` and ``-`` (no ``#``, ``=``, ``,`` or space,
#: which the command line and ``STORE#MODEL`` use as separators).
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")

#: Source kinds by the ``library`` an adapter records in ``metadata_["source"]``.
_KINDS = {"scikit-learn": "sklearn", "numpy": "array", "_tomotopy": "tomotopy"}
#: Source kinds by the format :func:`tealeaves.models.adapters.paths.sniff_format` finds.
_FILE_KINDS = {"tealeaves": "npz", "gensim-model": "gensim", "tomotopy": "tomotopy"}


def split_corpus(corpus: Corpus, test_fraction: float = 0.2, seed: int = 0) -> tuple[Corpus, Corpus]:
    """``(train, test)``: ``round(test_fraction * D)`` documents drawn by ``default_rng(seed).permutation``.

    Both keep the corpus's order and vocabulary; each must hold at least one document.

    Parameters
    ----------
    corpus : Corpus
        The documents to split.
    test_fraction : float, default 0.2
        Share of documents held out, strictly between 0 and 1.
    seed : int, default 0
        Seed of the draw.

    Returns
    -------
    tuple of Corpus
        ``(train, test)``.

    Raises
    ------
    ParameterError
        When the fraction or seed is invalid, or one side would be empty.
    """
    fraction = check_float(test_fraction, "test fraction", min_value=0.0, max_value=1.0,
                           include_min=False, include_max=False)
    seed = check_seed(seed, "split seed")
    n_test = int(round(fraction * len(corpus)))
    if n_test < 1 or n_test >= len(corpus):
        raise ParameterError(f"a test fraction of {fraction:g} of {len(corpus)} documents leaves "
                             f"{n_test} test and {len(corpus) - n_test} training documents",
                             fix="choose a test fraction that leaves at least one document on each side")
    chosen = np.sort(np.random.default_rng(seed).permutation(len(corpus))[:n_test])
    rest = np.setdiff1d(np.arange(len(corpus)), chosen)
    return corpus.subset(rest), corpus.subset(chosen)


def word_vectors(vectors, words) -> object:
    """The word vectors of a store's embedding measures, read from a file or checked.

    Parameters
    ----------
    vectors : WordVectors, str, path or None
        Vectors already read (:class:`tealeaves.comparison.WordVectors`), a word2vec or GloVe
        text file (:func:`tealeaves.comparison.read_vectors`), or None for none.
    words : iterable of str
        The words whose vectors can be needed (every model's vocabulary): only these are kept
        from a file.

    Returns
    -------
    WordVectors or None
        The vectors, or None when ``vectors`` is None.

    Raises
    ------
    ParameterError
        When ``vectors`` is neither WordVectors nor a path.
    InputFormatError, EmptyInputError
        When the file is malformed, or holds no vector of ``words``.
    """
    from tealeaves.comparison.embedding import WordVectors, read_vectors

    if vectors is None or isinstance(vectors, WordVectors):
        return vectors
    if not isinstance(vectors, (str, os.PathLike)):
        raise ParameterError(f"vectors must be WordVectors or the path of a word2vec/GloVe text file, got "
                             f"{type(vectors).__name__}", fix="e.g. vectors=\"glove.6B.100d.txt\"")
    return read_vectors(vectors, words=words)


def vectors_description(vectors) -> dict:
    """The ``meta.sweep`` entry naming a store's word vectors: ``{}`` without, else ``{"vectors": name@sha}``.

    The checksum is over the vectors used (those of the models' words, as :func:`word_vectors`
    keeps them), so the same file read for the same vocabulary always gives the same entry; a
    store resumed with other vectors (another checksum) is refused, as with another reference.

    Parameters
    ----------
    vectors : WordVectors or None
        The vectors (:func:`word_vectors`).

    Returns
    -------
    dict
        Empty, or one entry: the vectors' name, ``@`` and :attr:`~tealeaves.comparison.WordVectors.checksum`.
    """
    return {} if vectors is None else {"vectors": f"{vectors.name}@{vectors.checksum}"}


def evaluation_data(train: Corpus, test: Corpus | None, test_fraction: float, split_seed: int, reference,
                    measures: Sequence[str], n_top: int, kind: str, check_train: Callable | None = None
                    ) -> tuple[SweepData, dict]:
    """``(data, description)``: what every model of one store is scored on, and its ``meta.sweep`` record.

    Parameters
    ----------
    train : Corpus
        The training corpus (the whole corpus, split, when ``test`` is None).
    test : Corpus or None
        The test documents, or None to hold out ``test_fraction`` of ``train``.
    test_fraction : float
        Share held out when ``test`` is None.
    split_seed : int
        Seed of the split and of the held-out halves.
    reference : optional
        Coherence reference (an index, its path, a Corpus; None: the training corpus).
    measures : sequence of str
        Coherence measures (resolved names).
    n_top : int
        Top words per topic.
    kind : str
        ``"sweep"`` or ``"evaluate"`` (recorded in the description).
    check_train : callable, optional
        Called with the training documents (after the split) before the reference is built.

    Returns
    -------
    tuple
        The :class:`~tealeaves.sweep.measures.SweepData` and the description (JSON-able).

    Raises
    ------
    ParameterError
        When the inputs are not corpora or the split is invalid.
    EmptyInputError
        When the test corpus has no documents.
    """
    from tealeaves.likelihood._perplexity import check_corpus

    check_corpus(train, "training corpus")
    split = {"split_seed": SPLIT_SEED.check(split_seed)}
    if test is None:
        split["test_fraction"] = test_fraction
        train, test = split_corpus(train, test_fraction, split_seed)
    check_corpus(test, "test corpus")
    if len(test) == 0:
        raise EmptyInputError("the test corpus has no documents", fix="give test documents")
    if check_train is not None:
        check_train(train)
    data = SweepData(train, test, _reference(reference, train), tuple(measures), n_top, split["split_seed"])
    ref = data.reference
    description = {"kind": kind, "train": corpus_hash(train), "test": corpus_hash(test),
                   "test_given": "test_fraction" not in split, **split, "measures": list(measures),
                   "top_n": n_top, "reference": f"{ref.name}@{ref.short_checksum}"}
    description.update(reference_mismatch(ref, train))  # {} or the warning, also printed
    return data, description


def _reference(reference, train: Corpus):
    from tealeaves.coherence import build_index
    from tealeaves.coherence.measure import as_reference

    if reference is None:
        return build_index(train, name="training-corpus")
    return as_reference(reference)


def score_row(model, data: SweepData, identity: dict) -> dict:
    """One store row: :func:`~tealeaves.sweep.measures.score_model` plus the model's identity.

    The one scoring path of :func:`tealeaves.sweep.sweep` and :func:`evaluate`.  The stored
    topic-word rows are over the training vocabulary (``meta.vocabulary``) when the model's
    words are the same words (in any order: its columns are put in the training order);
    otherwise they stay over the model's own words, listed in ``vocabulary``.  A model
    without word probabilities (NMF, BERTopic) stores its weights normalised per topic and
    ``"probabilistic": false`` in its ``source``, so a reader does not take them for
    probabilities.

    Parameters
    ----------
    model : TopicModel
        The fitted model.
    data : SweepData
        What every model is scored on.
    identity : dict
        ``name``, ``k``, ``seed``, ``engine``, ``settings``, ``fit_seconds`` and optionally
        ``config``, ``run``, ``source`` (defaults: ``<engine>-K<k>``, the seed, a sweep fit).

    Returns
    -------
    dict
        The row :func:`tealeaves.sweep.store.write_model` takes.
    """
    row = score_model(model, data)
    topic_word, vocabulary = on_training_words(row["topic_word"], list(model.vocabulary_),
                                               list(data.train.vocabulary))
    alpha = getattr(model, "doc_topic_prior_", None)
    out = {**row, "description": describe_model(model), "config": f"{identity['engine']}-K{identity['k']}",
           "run": identity["seed"], "source": {"kind": "sweep"}, **identity, "topic_word": topic_word,
           "vocabulary": vocabulary, "alpha": None if alpha is None else np.asarray(alpha, dtype=np.float64)}
    if not_probabilistic(model) is not None:  # the stored rows are normalised weights, not probabilities
        out["source"] = {**out["source"], "probabilistic": False}
    return out


def on_training_words(topic_word: np.ndarray, words: list[str], training: list[str]
                      ) -> tuple[np.ndarray, list[str] | None]:
    """``(rows, vocabulary)`` to store: rows over ``training`` when ``words`` are the same words, else as is.

    Parameters
    ----------
    topic_word : numpy.ndarray
        The model's ``K x len(words)`` rows.
    words : list of str
        The model's vocabulary (its column order).
    training : list of str
        The training vocabulary.

    Returns
    -------
    tuple
        The rows and ``None`` (they are over ``training``, columns reordered when needed), or the
        rows unchanged and ``words``.
    """
    if words == training:
        return topic_word, None
    if len(words) == len(training) and set(words) == set(training):
        column = {w: i for i, w in enumerate(words)}
        return topic_word[:, [column[w] for w in training]], None
    return topic_word, words


@dataclass
class Candidate:
    """One model to evaluate: its name, configuration, run index and where it came from.

    Parameters
    ----------
    name : str
        The model's name in the store (``<config>-r<run>`` for a run of a group).
    config : str
        The configuration it is one run of.
    run : int
        Its index among the configuration's runs.
    source : object
        The model object or path, as given.
    """

    name: str
    config: str
    run: int
    source: object


def candidates(models: Mapping) -> list[Candidate]:
    """The models of ``models`` (name -> model or path, or name -> list of runs), checked and named.

    Parameters
    ----------
    models : Mapping
        See :func:`evaluate`.

    Returns
    -------
    list of Candidate
        One per model, in the order given (runs of a group named ``<group>-r<i>``).

    Raises
    ------
    ParameterError
        When ``models`` is not a non-empty mapping, a name is malformed or repeated, a group is
        empty, or a group lists the same model twice.
    """
    if not isinstance(models, Mapping):
        raise ParameterError(f"models must be a mapping of name -> model (or list of runs), got "
                             f"{type(models).__name__}",
                             fix='e.g. {"lda": model, "lda20": ["a.bin", "b.bin"]}')
    if not models:
        raise ParameterError("no model to evaluate (models is empty)",
                             fix='give at least one, e.g. {"lda": model}')
    out = []
    for config, value in models.items():
        _check_name(config)
        if isinstance(value, (list, tuple)):
            if not value:
                raise ParameterError(f"group {config!r} lists no model", fix="give its runs, or leave it out")
            _check_distinct(config, value)
            out += [Candidate(f"{config}-r{i}", config, i, v) for i, v in enumerate(value)]
        else:
            out.append(Candidate(config, config, 0, value))
    check_unique([c.name for c in out], "model names")
    return out


def _check_name(name: object) -> None:
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
        raise ParameterError(f"model name {name!r} is not usable: a name is 1 to 100 letters, digits, "
                             "'.', '_' or '-', starting with a letter or digit", fix="rename it, e.g. lda20")


def _check_distinct(config: str, runs: Sequence) -> None:
    """Refuse a group that lists the same object or file twice (its stability would be faked)."""
    seen = set()
    for value in runs:
        key = os.path.realpath(value) if isinstance(value, (str, os.PathLike)) else id(value)
        if key in seen:
            raise ParameterError(f"group {config!r} lists the same model twice ({value!r})",
                                 fix="give each run once")
        seen.add(key)


def load_candidate(candidate: Candidate):
    """``(model, source)``: the model of ``candidate`` (:func:`tealeaves.load_model`) and its source record.

    Parameters
    ----------
    candidate : Candidate
        The model to load.

    Returns
    -------
    tuple
        The tealeaves model, and ``{"kind", "path", "bytes", "sha256"}`` (path, bytes and sha256
        only for a file; ``STORE#MODEL`` gives kind ``store``, the store's path and digest and
        ``model``).
    """
    from tealeaves.models.adapters import load_model

    value = candidate.source
    model = load_model(value)
    library = ((getattr(model, "metadata_", None) or {}).get("source") or {}).get("library")
    kind = _KINDS.get(library, library) or "tealeaves"
    if not isinstance(value, (str, os.PathLike)):
        return model, {"kind": "octis" if isinstance(value, dict) else kind}
    from tealeaves.models.adapters.paths import sniff_format

    path = Path(value).expanduser()
    if not path.exists() and "#" in str(value):  # STORE#MODEL: a model of a results store
        store, _, model_id = str(value).rpartition("#")
        store_path = Path(store).expanduser()
        return model, {"kind": "store", "path": str(store_path.resolve()), "model": model_id,
                       **_file_digest(store_path)}
    fmt = sniff_format(path) if path.is_file() else None
    kind = _FILE_KINDS.get(fmt, kind if library else "tealeaves")
    return model, {"kind": kind, "path": str(path.resolve()), **_file_digest(path)}


def engine_of(model, source: dict) -> str:
    """The library that fitted ``model`` (the store's ``engine``): its recorded library, else the source kind.

    A scikit-learn NMF saved as a tealeaves ``.npz`` has source kind ``npz`` and engine ``sklearn``.

    Parameters
    ----------
    model : TopicModel
        The loaded model (its ``metadata_["source"]["library"]``).
    source : dict
        Its source record (:func:`load_candidate`).

    Returns
    -------
    str
        The engine's name.
    """
    library = ((getattr(model, "metadata_", None) or {}).get("source") or {}).get("library")
    return _KINDS.get(library, library) if library else source["kind"]


def _file_digest(path: Path) -> dict:
    """``bytes`` and ``sha256`` of a file, or of every file of a folder (in name order)."""
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    h, size = hashlib.sha256(), 0
    for p in files:
        with open(p, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
                size += len(block)
    return {"bytes": size, "sha256": h.hexdigest()}


def check_coverage(name: str, model, test: Corpus) -> dict:
    """The model's :func:`~tealeaves.sweep.measures.vocabulary_coverage`; refused below the minimum.

    The minimum is :data:`MIN_TEST_COVERAGE` of the test tokens.

    Parameters
    ----------
    name : str
        The model's name (for the message).
    model : TopicModel
        The model.
    test : Corpus
        The test documents.

    Returns
    -------
    dict
        The coverage.

    Raises
    ------
    IncomparableError
        When the model knows fewer than ``MIN_TEST_COVERAGE`` of the test tokens.
    """
    coverage = vocabulary_coverage(model, test)
    share = coverage["test_tokens_known_share"] or 0.0
    if share < MIN_TEST_COVERAGE:
        raise IncomparableError(
            f"model {name!r} knows {share:.1%} of the test tokens ({coverage['test_tokens_dropped']} of "
            f"{test.n_tokens} tokens, {coverage['test_types_dropped']} distinct words are not in its "
            f"vocabulary of {len(model.vocabulary_)} words); at least {MIN_TEST_COVERAGE:.0%} are needed",
            fix="evaluate it on test documents tokenised as its training data was (same preprocessing)")
    return coverage


def evaluate(models: Mapping, train: Corpus, test: Corpus | None = None, reference=None,
             output: str | os.PathLike = "results.sqlite", *, test_fraction: float = 0.2, split_seed: int = 0,
             measures: Sequence[str] = DEFAULT_MEASURES, n_top: int = 10, vectors=None,
             progress=True) -> dict:
    """Score models fitted anywhere, exactly as :func:`~tealeaves.sweep.sweep` scores its own, into a store.

    See the module docstring for how models are named and grouped and how foreign
    vocabularies are matched.  Every model is loaded and its vocabulary checked against
    the test documents before anything is scored.  Models the store already holds under
    the same name with the same topic-word rows are skipped (a rerun resumes); a different
    model under a stored name is refused.

    Parameters
    ----------
    models : Mapping
        Name -> model (object or path: anything :func:`tealeaves.load_model` reads), or
        name -> list of several runs of one configuration.
    train : Corpus
        The training documents the models were fitted on (the unigram baseline, the default
        reference, the documents of the few-documents flag); the whole corpus, split, when
        ``test`` is None.
    test : Corpus, optional
        Test documents the models have not seen (default: hold out ``test_fraction`` of
        ``train``, which is right only when the models were fitted on the rest).
    reference : optional
        Coherence reference (an index, its path, a Corpus; default: the training corpus).
    output : str or path
        The results store (SQLite), created or resumed.
    test_fraction : float
        Share of ``train`` held out when ``test`` is not given.
    split_seed : int
        Seed of the train/test split and of the held-out halves.
    measures : sequence of str
        Coherence measures (at least one).
    n_top : int
        Top words per topic scored for coherence.
    vectors : WordVectors, str, path or None
        Word vectors for the word-embedding measures (:func:`word_vectors`: a word2vec or
        GloVe text file is read for the models' words only); None stores those measures as
        unavailable, with the reason.
    progress : SweepProgress or bool
        Progress output (standard error).

    Returns
    -------
    dict
        ``{"output", "evaluated": [names], "skipped": [names]}``; the numbers are in the store
        (:func:`tealeaves.sweep.load_results`).

    Raises
    ------
    ParameterError
        For malformed ``models`` (see :func:`candidates`), measures or options, or a stored
        name holding another model.
    IncomparableError
        When a model knows too little of the test data (:data:`MIN_TEST_COVERAGE`).
    UnsupportedModelError
        When a model cannot be read.
    """
    from tealeaves.coherence.presets import resolve
    from tealeaves.store.writer import store_run
    from tealeaves.sweep.params import N_TOP

    chosen = candidates(models)
    measures = tuple(check_unique([resolve(m).name for m in measures], "measures"))
    if not measures:
        raise ParameterError("no coherence measure given", fix='e.g. measures=["npmi"]')
    data, description = evaluation_data(train, test, test_fraction, split_seed, reference, measures,
                                        N_TOP.check(n_top), "evaluate")
    if data.test.n_tokens == 0:
        raise EmptyInputError("the test documents have no token in the training vocabulary",
                              fix="give test documents tokenised as the training corpus")
    loaded = []
    for c in chosen:
        model, source = load_candidate(c)
        check_coverage(c.name, model, data.test)
        loaded.append((c, model, source))
    words = set(data.train.vocabulary).union(*(m.vocabulary_ for _, m, _ in loaded))
    data.vectors = word_vectors(vectors, sorted(words))
    description.update(vectors_description(data.vectors))
    with store_run(output, description, list(data.train.vocabulary),
                   getattr(data.train, "preprocessing", None)) as conn:  # a failed new store is removed
        return _evaluate_into(conn, data, loaded, progress, output)


def _evaluate_into(conn, data: SweepData, loaded: list, progress, output) -> dict:
    from tealeaves.sweep.progress import SweepProgress
    from tealeaves.sweep.store import write_model

    stored = {name: blob for name, blob in conn.execute("SELECT name, topic_word FROM models")}
    todo, skipped = [], []
    for c, model, source in loaded:
        if c.name not in stored:
            todo.append((c, model, source))
            continue
        from tealeaves.sweep.measures import stored_topic_word

        rows, _ = on_training_words(stored_topic_word(model), list(model.vocabulary_),
                                    list(data.train.vocabulary))
        if np.asarray(rows, dtype="<f8").tobytes() != stored[c.name]:
            raise ParameterError(f"the results store '{output}' holds another model named {c.name!r}",
                                 fix="give another name, or another output path")
        skipped.append(c.name)
    bar = progress if isinstance(progress, SweepProgress) else (
        SweepProgress(len(todo), label="evaluate") if progress else None)
    if bar is not None and skipped:
        bar.note(f"{len(skipped)} models already in {output}; scoring the other {len(todo)}")
    done = []
    for c, model, source in todo:
        start = time.perf_counter()
        # the seed of a model fitted elsewhere is unknown: None (stored as NULL)
        identity = {"name": c.name, "k": int(np.shape(model.topic_word_weights_)[0]), "seed": None,
                    "engine": engine_of(model, source), "settings": {}, "fit_seconds": 0.0,
                    "config": c.config, "run": c.run, "source": source}
        row = score_row(model, data, identity)
        row["score_seconds"] = time.perf_counter() - start
        write_model(conn, row)
        done.append(c.name)
        if bar is not None:
            bar.update(c.name)
    return {"output": str(output), "evaluated": done, "skipped": skipped}
