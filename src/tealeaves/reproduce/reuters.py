"""The article's Reuters table: LDA with K topics, document completion vs scikit-learn's perplexity.

LDA is fitted with scikit-learn to the 7,769 ModApte training stories
(preprocessed by :func:`tealeaves.corpus.reuters.load_reuters_modapte`) and
evaluated on the 3,019 test stories, for each K:

* document-completion perplexity (:func:`tealeaves.likelihood.document_completion`);
* scikit-learn's own ``perplexity()`` on the whole test stories (the article's
  figure), encoded over the model's vocabulary;
* the uniform and add-one unigram baselines on the same held-out words, over the
  model's vocabulary (checked token for token: ``heldout_words`` is the count of
  both, and a mismatch is an error, never a row).

Fitted models are cached on disk (per-user cache by default) so other
measures (coherence, human evaluation, estimators) reuse exactly the same
models through :func:`fit_reuters_models`.
"""

from __future__ import annotations

import hashlib
import pickle
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

from tealeaves import data
from tealeaves._docs import shared_doc
from tealeaves._io import atomic_write
from tealeaves._params import SEED, SPLIT_SEED, renamed_parameters
from tealeaves.corpus import Corpus
from tealeaves.errors import OutputError, TealeavesError
from tealeaves.likelihood import align_corpus, baselines, document_completion
from tealeaves.models import SklearnLDA
from tealeaves.signature import Signature
from tealeaves.sweep.params import check_n_components

DEFAULT_KS = (5, 10, 20, 40, 80)

#: scikit-learn settings of the reproduction: its defaults (batch variational Bayes, alpha = eta = 1/K,
#: no perplexity evaluation during fitting) with 20 iterations; with ``random_state=0`` they bring
#: scikit-learn's reported perplexity within about 1% of the article's for K = 20, 40, 80 (see
#: docs/likelihood.md for the settings compared).
LDA_PARAMS: dict = {"learning_method": "batch", "max_iter": 20}

#: Reduced settings (``quick=True``): scikit-learn's default 10 iterations.
QUICK_PARAMS: dict = {"learning_method": "batch", "max_iter": 10}

#: The article's figures: K -> (document-completion perplexity, scikit-learn's perplexity).
ARTICLE = {5: (1517, 2158), 10: (1339, 2240), 20: (1174, 2376), 40: (1096, 2916), 80: (1066, 4319)}
ARTICLE_BASELINES = {"uniform": 6855, "unigram": 2238}

Progress = Callable[[str], None]


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


@shared_doc
def lda_params(seed: int = 0, quick: bool = False) -> dict:
    """The scikit-learn keyword arguments of the reproduction's LDA fits.

    Parameters
    ----------
    %(reuters_seed)s
    quick : bool, default False
        Use :data:`QUICK_PARAMS` instead of :data:`LDA_PARAMS`.

    Returns
    -------
    dict
        The settings with ``random_state``.
    """
    return {**(QUICK_PARAMS if quick else LDA_PARAMS), "random_state": seed}


def load_corpora() -> tuple[Corpus, Corpus]:
    """The preprocessed ModApte training and test stories.

    Returns
    -------
    train, test : Corpus
        The 7,769 training and 3,019 test stories, as
        :func:`tealeaves.corpus.reuters.load_reuters_modapte` preprocesses them.
    """
    from tealeaves.corpus.reuters import load_reuters_modapte

    train, test, _ = load_reuters_modapte()
    return train, test


@shared_doc
def corpus_fingerprint(corpus: Corpus) -> str:
    """A short hash of a corpus's vocabulary and tokens (changes when the preprocessing does).

    Parameters: %(hashed_corpus)s

    Returns
    -------
    str
        The first 12 hex digits of the SHA-1 of its vocabulary, tokens and offsets.
    """
    h = hashlib.sha1()
    h.update("\n".join(corpus.vocabulary).encode())
    h.update(corpus.tokens.tobytes())
    h.update(corpus.offsets.tobytes())
    return h.hexdigest()[:12]


def model_key(k: int, params: dict, train: Corpus) -> str:
    """The stable cache key of one fitted model: K, settings, training data and scikit-learn version.

    Parameters
    ----------
    k : int
        The number of topics.
    params : dict
        The scikit-learn settings (:func:`lda_params`).
    train : Corpus
        The training stories (:func:`corpus_fingerprint`).

    Returns
    -------
    str
        ``reuters-lda-K<k>-<corpus fingerprint>-<settings digest>``.
    """
    settings = ",".join(f"{name}={params[name]}" for name in sorted(params))
    from sklearn import __version__ as sklearn_version

    digest = hashlib.sha1(f"{settings}|sklearn={sklearn_version}".encode()).hexdigest()[:10]
    return f"reuters-lda-K{k}-{corpus_fingerprint(train)}-{digest}"


def default_cache_dir() -> Path:
    """Where fitted Reuters models are kept: ``<per-user cache>/models``.

    Returns
    -------
    pathlib.Path
        ``tealeaves.data.cache_dir() / "models"``.
    """
    return data.cache_dir() / "models"


@renamed_parameters({"ks": "n_components"})
@shared_doc
def fit_reuters_models(
    n_components: Iterable[int] = DEFAULT_KS,
    seed: int = 0,
    quick: bool = False,
    cache_dir: str | Path | None = None,
    use_cache: bool = True,
    train: Corpus | None = None,
    progress: Progress | None = _stderr,
) -> dict[int, SklearnLDA]:
    """Fit (or load from the disk cache) scikit-learn LDA on the Reuters training stories for each K.

    Models are pickled under ``cache_dir`` (default :func:`default_cache_dir`)
    with the key of :func:`model_key`; ``use_cache=False`` neither reads nor writes it.
    A cache file that cannot be unpickled (truncated, from another version) is refitted
    and overwritten.  ``n_components`` are whole numbers >= 2, each given once
    (:func:`~tealeaves.sweep.params.check_n_components`; old name ``ks``).

    Parameters
    ----------
    %(reuters_n_components)s %(reuters_seed)s %(reuters_quick)s %(reuters_cache_dir)s %(reuters_use_cache)s
    train : Corpus, optional
        The training stories; default :func:`load_corpora`'s.
    %(reuters_progress)s

    Returns
    -------
    dict of int to SklearnLDA
        The fitted model of each K.

    Raises
    ------
    ParameterError
        If ``n_components`` or ``seed`` is out of range.
    OutputError
        If the cache folder is a file or cannot be created.
    """
    n_components = check_ks(n_components)
    seed = SEED.check(seed)
    train = load_corpora()[0] if train is None else train
    params = lda_params(seed, quick)
    folder = _cache_folder(cache_dir) if use_cache else None
    models: dict[int, SklearnLDA] = {}
    for k in n_components:
        path = folder / f"{model_key(k, params, train)}.pkl" if folder is not None else None
        cached = _load_cached(path, progress) if path is not None else None
        if cached is not None:
            models[k] = cached
            continue
        if progress:
            progress(f"fitting scikit-learn LDA with K={k} ({params}) on {len(train)} stories ...")
        models[k] = SklearnLDA(k, **params).fit(train)
        if path is not None:
            with atomic_write(path, "wb", what="model cache file") as fh:
                pickle.dump(models[k], fh, protocol=pickle.HIGHEST_PROTOCOL)
    return models


def _check_same_words(result, base: dict) -> None:
    """Refuse to report a model and baselines scored on different held-out words (a bug if it happens)."""
    for name, b in base.items():
        if (b.n_heldout_words, b.n_documents_split) != (result.n_heldout_words, result.n_documents_split):
            raise TealeavesError(f"the {name} baseline scored {b.n_heldout_words} held-out words of "
                                 f"{b.n_documents_split} stories but the model {result.n_heldout_words} of "
                                 f"{result.n_documents_split}", fix="this is a bug in tealeaves; report it")


def check_ks(n_components: Iterable[int]) -> list[int]:
    """Numbers of topics: whole numbers >= 2, each once, kept in the order given (none is allowed).

    Parameters
    ----------
    n_components : iterable of int
        The numbers of topics.

    Returns
    -------
    list of int
        The checked numbers, in the order given.

    Raises
    ------
    ParameterError
        If a number is not a whole number >= 2, or is given twice.
    """
    return check_n_components(n_components, allow_empty=True)


def _cache_folder(cache_dir: str | Path | None) -> Path:
    """The model cache folder, created if needed; a clear error when it cannot be."""
    folder = Path(cache_dir).expanduser() if cache_dir is not None else default_cache_dir()
    if folder.exists() and not folder.is_dir():
        raise OutputError(f"model cache folder '{folder}' is a file", fix="give a folder as cache_dir")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"cannot create model cache folder '{folder}': {exc.strerror or exc}",
                          fix="give a writable folder as cache_dir, or use_cache=False") from None
    return folder


def _load_cached(path: Path, progress: Progress | None) -> SklearnLDA | None:
    """The model pickled at ``path``, or ``None`` when there is none or it cannot be read."""
    if not path.is_file():
        return None
    try:
        with open(path, "rb") as fh:
            model = pickle.load(fh)
    except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError, ValueError, TypeError):
        model = None
    if not isinstance(model, SklearnLDA):
        if progress:
            progress(f"ignoring unreadable model cache file {path}; refitting")
        return None
    return model


@renamed_parameters({"ks": "n_components"})
@shared_doc
def reuters_table(
    n_components: Iterable[int] = DEFAULT_KS,
    seed: int = 0,
    split_seed: int = 0,
    quick: bool = False,
    cache_dir: str | Path | None = None,
    use_cache: bool = True,
    corpora: tuple[Corpus, Corpus] | None = None,
    models: dict[int, SklearnLDA] | None = None,
    progress: Progress | None = _stderr,
) -> dict:
    """The reproduction's rows (one per K) and baselines, with signatures and settings.

    Each K's model is scored by document completion (Wallach et al. 2009,
    :func:`tealeaves.likelihood.document_completion`), by scikit-learn's own
    ``perplexity()`` on the whole test stories, and beside the uniform and
    unigram baselines on the same held-out words (module docstring).

    Parameters
    ----------
    %(reuters_n_components)s
    seed : int, default 0
        scikit-learn's ``random_state`` for the LDA fits.
    split_seed : int, default 0
        Seed of the random split of each test story into observed and held-out halves.
    %(reuters_quick)s %(reuters_cache_dir)s %(reuters_use_cache)s
    corpora : tuple of Corpus, optional
        ``(train, test)``; default :func:`load_corpora`'s.
    models : dict of int to SklearnLDA, optional
        Fitted models by K, instead of fitting (or loading) them.
    %(reuters_progress)s

    Returns
    -------
    dict
        ``rows`` (per K: the completion and scikit-learn perplexities, the words
        scored, the baselines' perplexities and the signatures), ``baselines``,
        ``settings`` and the ``article``'s figures.

    Raises
    ------
    ParameterError
        If ``n_components`` or ``split_seed`` is out of range, or ``seed`` when the models
        are fitted here.
    TealeavesError
        If a baseline and the model were scored on different held-out words
        (a bug).
    """
    train, test = load_corpora() if corpora is None else corpora
    n_components = check_ks(n_components)
    split_seed = SPLIT_SEED.check(split_seed)
    if models is None:
        models = fit_reuters_models(n_components, seed, quick, cache_dir, use_cache, train, progress)
    rows = []
    for k in n_components:
        if progress:
            progress(f"scoring K={k} ...")
        model = models[k]
        base = baselines(train, test, seed=split_seed, model=model)
        result = document_completion(model, test, seed=split_seed)
        _check_same_words(result, base)
        whole = align_corpus(test, model.vocabulary_)
        rows.append({
            "k": k,
            "completion_perplexity": result.perplexity,
            "sklearn_perplexity": model.perplexity(whole),
            "vocabulary_size": len(model.vocabulary_),
            "stories_split": result.n_documents_split,
            "heldout_words": result.n_heldout_words,
            "sklearn_words": whole.n_tokens,
            "n_dropped_oov": result.n_dropped_oov,
            "uniform_perplexity": base["uniform"].perplexity,
            "unigram_perplexity": base["unigram"].perplexity,
            "signature": str(result.signature),
            "sklearn_signature": str(Signature("sklearn-perplexity", {
                "bound": "variational", "docs": "whole-test", "model": models[k].description()})),
        })
    return {
        "rows": rows,
        "baselines": {name: r.to_dict() for name, r in base.items()} if n_components else {},
        "settings": {"lda": lda_params(seed, quick), "split_seed": split_seed,
                     "n_train": len(train), "n_test": len(test),
                     "preprocessing": train.metadata.get("preprocessing")},
        "article": {"rows": {k: {"completion_perplexity": a, "sklearn_perplexity": b}
                             for k, (a, b) in ARTICLE.items()}, "baselines": ARTICLE_BASELINES},
    }
