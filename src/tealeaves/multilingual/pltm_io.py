"""Saving and loading a fitted :class:`~tealeaves.models.polylingual.PolylingualTopicModel`.

A saved polylingual model is a folder (``tealeaves pltm fit -o MODEL``):

* ``MODEL/pltm.npz``: the whole model: a JSON header (``format`` ``tealeaves-pltm``,
  ``format_version``, languages, vocabularies, each language's preprocessing recipe,
  hyperparameters and fitted ``beta_``, the fit's settings and metadata) and arrays
  ``alpha``, ``doc_topic``, ``topic_word_<lang>``, ``language_doc_topic_<lang>``,
  ``log_likelihood_trace``, ``log_likelihood_iterations``, ``chain_log_likelihoods``;
* ``MODEL/<lang>.npz``: each language's topics as an ordinary tealeaves model file
  (:meth:`tealeaves.models.base.TopicModel.save`), accepted by every monolingual measure
  (``tealeaves coherence``, ``perplexity``...) and by ``tealeaves human build-study``;
* ``MODEL/topics.json``: each language's top words per topic in the schema of
  :mod:`tealeaves.multilingual.topics` (``tealeaves cnpmi`` and ``human build-study
  --multilingual`` read it).

:func:`load_pltm` returns a :class:`SavedPolylingualTopicModel`: ``top_words``,
``language_model`` and ``transform`` (fold-in of new tuples) behave as on the fitted model,
``transform`` giving the same numbers for the same ``random_state``.
"""

from __future__ import annotations

import json
import os
import zipfile
import zlib
from pathlib import Path

import numpy as np

from tealeaves._docs import shared_doc
from tealeaves._io import check_format
from tealeaves.errors import InputFormatError, InputNotFoundError, InvalidModelError, TealeavesError
from tealeaves.models.polylingual import PolylingualTopicModel

FORMAT = "tealeaves-pltm"
FORMAT_VERSION = 1
MODEL_FILE = "pltm.npz"
TOPICS_FILE = "topics.json"
#: Words per topic written to ``topics.json``.
TOPICS_WORDS = 20
HYPERPARAMETERS = ("n_components", "alpha", "beta", "n_iter", "optimize_interval", "optimize_burn_in",
                   "sample_interval", "n_chains", "link_fraction", "evaluate_every", "random_state")
#: Keys of the header's ``hyperparameters`` that differ from the Python names: the number of
#: topics keeps its format-1 key ``n_topics`` (the parameter ``n_components``), so that every
#: tealeaves reading format 1 reads every saved folder.
HEADER_KEYS = {"n_components": "n_topics"}


class SavedPolylingualTopicModel(PolylingualTopicModel):
    """A polylingual model read back by :func:`load_pltm` (per-language training ``theta`` stored).

    The polylingual topic model of Mimno et al. (2009), as
    :class:`~tealeaves.models.polylingual.PolylingualTopicModel` fitted it; built by
    :func:`load_pltm`, not by hand.
    """

    def language_doc_topic(self, lang: str) -> np.ndarray:
        """``theta`` of each training tuple's side in ``lang`` as saved.

        Parameters
        ----------
        lang : str
            One of the model's languages.

        Returns
        -------
        numpy.ndarray
            The saved per-language document-topic proportions of the training tuples.
        """
        return self.language_doc_topic_[self.languages_[self._language_index(lang)]]


@shared_doc
def save_pltm(model: PolylingualTopicModel, folder: str | os.PathLike[str], preprocessors: dict,
              metadata: dict | None = None) -> Path:
    """Write ``model`` (fitted) and its per-language ``preprocessors`` as a folder (module docstring).

    Parameters
    ----------
    model : PolylingualTopicModel
        A fitted polylingual topic model (Mimno et al. 2009).
    folder : str or os.PathLike
        The folder to write (created if needed).
    preprocessors : dict
        The fitted :class:`~tealeaves.corpus.preprocess.Preprocessor` of each language.
    metadata : dict, optional
        Stored in the header's ``metadata``.

    Returns: %(returns_folder)s

    Raises: %(raises_folder_is_file)s
    """
    from tealeaves import _io

    folder = _io.folder_path(folder)
    with _io.output_folder(folder):  # a failed write leaves no partial new folder
        _write_pltm(model, folder, preprocessors, metadata)
    return folder


def _write_pltm(model: PolylingualTopicModel, folder: Path, preprocessors: dict,
                metadata: dict | None) -> None:
    from tealeaves import _io

    langs = list(model.languages_)
    header = {
        "format": FORMAT, "format_version": FORMAT_VERSION, "languages": langs,
        "vocabularies": {x: list(model.vocabularies_[x]) for x in langs},
        "preprocessing": {x: preprocessors[x].get_params() for x in langs},
        "hyperparameters": {HEADER_KEYS.get(h, h): getattr(model, h) for h in HYPERPARAMETERS},
        "beta_": {x: float(model.beta_[x]) for x in langs},
        "n_tokens": int(model.n_tokens_), "n_tuples": int(model.n_tuples_),
        "best_chain": int(model.best_chain_), "metadata": metadata or {},
        "n_threads": int(getattr(model, "n_threads_", 1)),
    }
    arrays = {"alpha": np.asarray(model.alpha_, dtype=np.float64), "doc_topic": model.doc_topic_,
              "log_likelihood_trace": np.asarray(model.log_likelihood_trace_, dtype=np.float64),
              "log_likelihood_iterations": np.asarray(model.log_likelihood_iterations_, dtype=np.int64),
              "chain_log_likelihoods": np.asarray(model.chain_log_likelihoods_, dtype=np.float64)}
    for x in langs:
        arrays[f"topic_word_{x}"] = model.topic_word_[x]
        arrays[f"language_doc_topic_{x}"] = model.language_doc_topic(x)
    with _io.atomic_write(folder / MODEL_FILE, mode="wb", encoding=None, what="model file") as fh:
        np.savez_compressed(fh, header=np.array(json.dumps(header)), **arrays)
    for x in langs:
        view = model.language_model(x)
        view.metadata_ = {"description": view.description(),
                          "source": {"library": "tealeaves", "class": "PolylingualTopicModel", "language": x},
                          "preprocessing": preprocessors[x].get_params()}
        view.save(folder / f"{x}.npz")
    topics = {x: model.top_words(x, min(TOPICS_WORDS, len(model.vocabularies_[x]))) for x in langs}
    _io.write_text(folder / TOPICS_FILE, json.dumps(topics, ensure_ascii=False, indent=1), what="topics file")


def is_pltm_folder(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a folder written by :func:`save_pltm`.

    Parameters
    ----------
    path : str or os.PathLike
        A path.

    Returns
    -------
    bool
        True when ``path`` holds a ``pltm.npz`` file.
    """
    return (Path(path) / MODEL_FILE).is_file()


def _bad(path: Path, what: str) -> InputFormatError:
    return InputFormatError(f"'{path}' is not a saved polylingual model: {what}",
                            fix="give the folder written by `tealeaves pltm fit -o MODEL`")


def _hyperparameters(saved: dict) -> dict:
    """The header's hyperparameters by their Python names (:data:`HEADER_KEYS`)."""
    python = {v: k for k, v in HEADER_KEYS.items()}
    return {python.get(k, k): v for k, v in saved.items()}


def load_pltm(folder: str | os.PathLike[str]) -> tuple[SavedPolylingualTopicModel, dict]:
    """Read a folder written by :func:`save_pltm`; returns (model, {lang: fitted Preprocessor}).

    Parameters
    ----------
    folder : str or os.PathLike
        The model folder.

    Returns
    -------
    tuple of (SavedPolylingualTopicModel, dict)
        The model and each language's fitted preprocessor.

    Raises
    ------
    InputNotFoundError
        When ``folder`` does not exist.
    InputFormatError
        When it holds no readable ``pltm.npz`` of this format and version, or the file lacks
        a field or holds topics of the wrong shape.
    """
    from tealeaves.corpus import Vocabulary
    from tealeaves.corpus.preprocess import Preprocessor

    folder = Path(folder)
    if not folder.exists():
        raise InputNotFoundError(f"model '{folder}' does not exist", fix="give the folder written by "
                                 "`tealeaves pltm fit -o MODEL`")
    if not is_pltm_folder(folder):
        raise _bad(folder, f"no {MODEL_FILE} in it")
    try:
        with np.load(folder / MODEL_FILE, allow_pickle=False) as z:
            header = json.loads(str(z["header"]))
            arrays = {k: z[k] for k in z.files if k != "header"}
    except (OSError, EOFError, KeyError, ValueError, NotImplementedError, zipfile.BadZipFile, zlib.error,
            json.JSONDecodeError) as exc:
        raise _bad(folder, f"{MODEL_FILE} is unreadable, truncated or corrupted ({exc})") from None
    except RecursionError:
        raise _bad(folder, f"the header of {MODEL_FILE} is nested too deeply") from None
    check_format(header, FORMAT, FORMAT_VERSION, bad=lambda problem: _bad(folder, problem), holder=MODEL_FILE,
                 what=f"model '{folder}'", fix="refit it with `tealeaves pltm fit`")
    try:
        model = SavedPolylingualTopicModel(**_hyperparameters(header["hyperparameters"]))
        langs = list(header["languages"])
        model.languages_ = langs
        model.vocabularies_ = {x: Vocabulary(header["vocabularies"][x]) for x in langs}
        model.topic_word_ = {x: arrays[f"topic_word_{x}"] for x in langs}
        model.language_doc_topic_ = {x: arrays[f"language_doc_topic_{x}"] for x in langs}
        model.alpha_, model.doc_topic_ = arrays["alpha"], arrays["doc_topic"]
        model.beta_ = dict(header["beta_"])
        model.log_likelihood_trace_ = arrays["log_likelihood_trace"]
        model.log_likelihood_iterations_ = arrays["log_likelihood_iterations"]
        model.chain_log_likelihoods_ = arrays["chain_log_likelihoods"]
        model.best_chain_, model.n_tokens_, model.n_tuples_ = (header["best_chain"], header["n_tokens"],
                                                               header["n_tuples"])
        sizes = [len(model.vocabularies_[x]) for x in langs]
        model._offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)  # the fold-in layout's
        model.metadata_ = header.get("metadata") or {}
        model.n_threads_ = int(header.get("n_threads", 1))  # files written before threads: the serial chain
        preprocessors = {x: Preprocessor.from_params(header["preprocessing"][x], model.vocabularies_[x])
                         for x in langs}
    except KeyError as exc:
        raise _bad(folder, f"{MODEL_FILE} lacks {exc}") from None
    except (TypeError, ValueError, AttributeError, TealeavesError) as exc:
        raise _bad(folder, f"{MODEL_FILE} holds a malformed header field ({exc})") from None
    check_pltm(folder, model)
    model.alpha_ = np.asarray(model.alpha_, dtype=np.float64)  # checked real numbers: the kernels' type
    model.doc_topic_ = np.asarray(model.doc_topic_, dtype=np.float64)
    model.topic_word_ = {x: np.asarray(v, dtype=np.float64) for x, v in model.topic_word_.items()}
    model.language_doc_topic_ = {x: np.asarray(v, dtype=np.float64)
                                 for x, v in model.language_doc_topic_.items()}
    return model, preprocessors


def check_pltm(folder: Path, model: SavedPolylingualTopicModel) -> None:
    """Validate the arrays of a read polylingual model: the one check of a saved folder's numbers.

    Every language's topics are ``K x V`` probability rows (finite, non-negative, summing to one:
    :func:`~tealeaves.models.base.check_topic_word`), ``alpha`` is ``K`` positive finite values
    (:func:`~tealeaves.models.base.check_alpha`), every ``beta_`` is positive and finite, and the
    training ``theta`` (``doc_topic`` and each language's) are finite, non-negative, with ``K``
    columns.  A NaN row or a negative alpha would otherwise fold in NaN or negative proportions.

    Parameters
    ----------
    folder : Path
        The model folder (named in messages).
    model : SavedPolylingualTopicModel
        The model as read.

    Raises
    ------
    InputFormatError
        Naming the first bad array.
    """
    from tealeaves.models.base import check_alpha, check_topic_word

    for x in model.languages_:
        words = list(model.vocabularies_[x])
        if not words or not all(isinstance(w, str) and w for w in words) or len(set(words)) != len(words):
            raise _bad(folder, f"the {x} vocabulary must be distinct non-empty words")
    arrays = {"alpha": model.alpha_, "doc_topic": model.doc_topic_,
              **{f"topic_word_{x}": model.topic_word_[x] for x in model.languages_},
              **{f"language_doc_topic_{x}": model.language_doc_topic_[x] for x in model.languages_}}
    odd = next((n for n, a in arrays.items() if np.asarray(a).dtype.kind not in "fiu"), None)
    if odd is not None:  # complex, text, bool: not what save_pltm writes
        raise _bad(folder, f"{odd} holds {np.asarray(arrays[odd]).dtype} values, not real numbers")
    alpha = np.asarray(model.alpha_)
    if alpha.ndim != 1 or alpha.shape[0] == 0 or not np.issubdtype(alpha.dtype, np.number):
        raise _bad(folder, f"alpha must be a vector of K numbers, got shape {alpha.shape}")
    k = alpha.shape[0]
    if model.n_components != k:
        raise _bad(folder, f"alpha has {k} values for {model.n_components} topics")
    try:
        check_alpha(alpha, k)
        for x in model.languages_:
            if model.topic_word_[x].shape != (k, len(model.vocabularies_[x])):
                raise _bad(folder, f"the {x} topics have shape {model.topic_word_[x].shape}, not K x V")
            check_topic_word(model.topic_word_[x], name=f"topic_word_{x}")
    except InvalidModelError as exc:
        raise _bad(folder, str(exc)) from None
    for x, b in model.beta_.items():
        if isinstance(b, bool) or not isinstance(b, (int, float)) or not np.isfinite(b) or b <= 0:
            raise _bad(folder, f"beta_ of {x} must be a positive finite number, got {b!r}")
    thetas = {"doc_topic": model.doc_topic_,
              **{f"language_doc_topic_{x}": model.language_doc_topic_[x] for x in model.languages_}}
    for name, theta in thetas.items():
        theta = np.asarray(theta)
        if theta.ndim != 2 or theta.shape[1] != k or not np.issubdtype(theta.dtype, np.number):
            raise _bad(folder, f"{name} must be a tuples x K array, got shape {theta.shape}")
        if not np.isfinite(theta).all() or (theta < 0).any():
            raise _bad(folder, f"{name} has NaN, infinite or negative proportions")
