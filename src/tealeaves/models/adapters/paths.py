"""One entry point for model and topics files: :func:`load_path` sniffs the format of any of them.

Recognised, in this order (``format=`` skips the sniffing):

=====================  =====================================================  =========================
format                 recognised by                                          gives
=====================  =====================================================  =========================
``results-store``      SQLite (``STORE`` or ``STORE#MODEL``)                  the stored model (``model=``)
``tealeaves``          a zip (``.npz``) holding ``meta.npy``                  the saved model
``mallet-state``       gzip, or text starting ``#doc source pos typeindex``   probabilistic (exact counts)
``tomotopy``           ``TPTK`` in the first 32 bytes, or a binary ``.bin``   ``tomotopy.from_file``
``gensim-model``       a pickle with ``.state``/``.expElogbeta.npy`` siblings ``gensim.from_file``
``mallet-doc-topics``  ``#doc name topic proportion`` or rows of proportions  refused: not a model
``mallet-weights``     ``topic<TAB>word<TAB>weight`` for every topic and word probabilistic
``mallet-counts``      ``typeindex word topic:count ...``                     ranked (probabilistic with beta)
topics formats         see :mod:`~tealeaves.models.adapters.topic_files`      ranked word lists
=====================  =====================================================  =========================

Other pickles are refused: tealeaves never unpickles a file it cannot identify.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

from tealeaves._io import decode, existing_file
from tealeaves._optional import optional_import
from tealeaves._params import renamed_parameters
from tealeaves.errors import InputFormatError, ParameterError, UnsupportedModelError, naming
from tealeaves.models.adapters import mallet, topic_files
from tealeaves.store.models import is_store_path

MODEL_FORMATS = ("tealeaves", "mallet-state", "mallet-weights", "mallet-counts", "mallet-doc-topics",
                 "gensim-model", "tomotopy")
FORMATS = MODEL_FORMATS + topic_files.TOPIC_FORMATS
#: The format name of a results store (``STORE`` or ``STORE#MODEL``, :mod:`tealeaves.store.models`,
#: read by :mod:`tealeaves.models.adapters.results_store`).
STORE_FORMAT = "results-store"
GENSIM_SIBLINGS = (".state", ".expElogbeta.npy", ".id2word")
_SNIFF_LINES = 200


#: the options each format takes (besides ``format``); any other option is refused
_OPTIONS = {"mallet-state": {"encoding"}, "mallet-weights": {"encoding", "alpha", "topic_keys"},
            "mallet-counts": {"encoding", "alpha", "beta", "topic_keys", "n_components"},
            **{f: {"encoding"} for f in topic_files.TOPIC_FORMATS}}


@renamed_parameters({"n_topics": "n_components"})
def load_path(path, format: str | None = None, **options):
    """The model in the file ``path``, whatever tool wrote it (see the module docstring).

    A results store is read as ``"STORE#MODEL"`` or ``STORE`` with ``model="MODEL"``
    (:func:`tealeaves.models.adapters.results_store.load_store_model`).  Options: ``model`` (results
    stores); ``encoding`` (text files and the MALLET state); ``alpha`` /
    ``topic_keys`` (the Dirichlet parameter for MALLET files that lack it:
    topic-word weights, word-topic counts); ``beta`` (makes word-topic counts
    probabilistic); ``n_components`` (word-topic counts; old name ``n_topics``).  Saved gensim and
    tomotopy files take their adapter's options (e.g. ``inference``), passed to
    its ``from_file``.  ``inference="tealeaves"`` (the default everywhere) is
    accepted by every format; an option a format does not use is refused.

    Parameters
    ----------
    path : str or os.PathLike
        The model or topics file.
    format : str, optional
        One of :data:`FORMATS`; sniffed from the file (:func:`sniff_format`) when
        None.
    **options
        The format's options, listed above.

    Returns
    -------
    TopicModel
        The model: a saved tealeaves model, an :class:`AdaptedModel`, a MALLET
        model or a ranked-words model of a topics file.

    Raises
    ------
    ParameterError
        If ``format`` is not known, or an option does not apply to the format.
    UnsupportedModelError
        If the file is a MALLET doc-topics file (not a model) or of a kind
        tealeaves does not read.
    InputFormatError
        If the file is damaged or not in the format.
    """
    if format in (None, STORE_FORMAT) and is_store_path(path):
        return _from_store(path, options)
    if options.get("model") is not None:
        raise ParameterError(f"option 'model' names a model of a results store, and '{path}' is not one",
                             fix="leave out model=, or give the path of a results store")
    options.pop("model", None)
    p = existing_file(path, "model or topics file")
    fmt = format or sniff_format(p, options.get("encoding"))
    if fmt not in FORMATS:
        raise ParameterError(f"format {fmt!r} is not known; choose one of {', '.join(FORMATS)}")
    if fmt in ("gensim-model", "tomotopy"):
        return _native(p, fmt, options)
    if options.pop("inference", "tealeaves") != "tealeaves":
        raise ParameterError(f"'{p}' ({fmt}) has no library of its own to infer topic proportions with: "
                             "it uses tealeaves' fold-in only",
                             fix="leave out inference= or give 'tealeaves'")
    unused = sorted(set(options) - _OPTIONS.get(fmt, set()))
    if unused:
        raise ParameterError(f"option {unused[0]!r} does not apply to '{p}' ({fmt})",
                             fix="leave it out" + (f"; {fmt} takes {', '.join(sorted(_OPTIONS[fmt]))}"
                                                   if fmt in _OPTIONS else ""))
    return _read(p, fmt, **options)


def _from_store(path, options: dict):
    """Model ``options["model"]`` (or the ``#MODEL`` of ``path``) of a results store."""
    from tealeaves.models.adapters.results_store import load_store_model

    model = options.pop("model", None)
    if options.pop("inference", "tealeaves") != "tealeaves":
        raise ParameterError(f"a model of results store '{path}' is inferred with tealeaves' fold-in only",
                             fix="leave out inference= or give 'tealeaves'")
    if options:
        raise ParameterError(f"option {sorted(options)[0]!r} does not apply to a model of results store "
                             f"'{path}'", fix="leave it out; a stored model takes only model=")
    return load_store_model(path, model)


def _read(p: Path, fmt: str, encoding=None, alpha=None, beta=None, topic_keys=None, n_components=None):
    """Read ``p`` in the non-native format ``fmt``."""
    if fmt in topic_files.TOPIC_FORMATS:
        return topic_files.read_topics(p, fmt, encoding)
    if fmt == "tealeaves":
        from tealeaves.models.base import load_npz_model

        return load_npz_model(p)
    if fmt == "mallet-state":
        return mallet.load_state(p, encoding)
    if fmt == "mallet-weights":
        return mallet.read_topic_word_weights(p, alpha, topic_keys, encoding)
    if fmt == "mallet-counts":
        return mallet.read_word_topic_counts(p, beta, alpha, topic_keys, n_components, encoding)
    raise UnsupportedModelError(f"'{p}' is a MALLET doc-topics file: it holds document proportions, "
                                "not topics",
                                fix="give the run's --output-state, --topic-word-weights-file or "
                                    "--output-topic-keys file (tealeaves.models.adapters.mallet."
                                    "read_doc_topics reads this one)")


def _native(p: Path, fmt: str, options: dict):
    """A saved gensim or tomotopy model through its adapter's ``from_file(path, **options)``."""
    import importlib
    import inspect

    name = "gensim" if fmt == "gensim-model" else "tomotopy"
    try:
        module = importlib.import_module(f"tealeaves.models.adapters.{name}")
    except ModuleNotFoundError as exc:
        if exc.name != f"tealeaves.models.adapters.{name}":  # the adapter is there, its library is not
            optional_import(name, name, f"reading the saved {name} model '{p}'")
            raise
        module = None
    reader = getattr(module, "from_file", None)
    if reader is None:
        raise UnsupportedModelError(f"'{p}' is a saved {name} model, but this tealeaves has no {name} "
                                    "adapter",
                                    fix=f"install a tealeaves with the {name} adapter, or export its topics")
    try:
        inspect.signature(reader).bind(p, **options)
    except TypeError as exc:
        raise ParameterError(f"bad option for the saved {name} model '{p}': {exc}",
                             fix=f"see tealeaves.models.adapters.{name}.from_file for its options") from None
    return reader(p, **options)


def sniff_format(path: Path, encoding: str | None = None) -> str:
    """The format of ``path`` (one of :data:`FORMATS`), from its first bytes and lines.

    Parameters
    ----------
    path : pathlib.Path
        The file.
    encoding : str, optional
        The encoding of a text file; detected when None.

    Returns
    -------
    str
        The format name (the table of the module docstring, in its order).

    Raises
    ------
    InputFormatError
        If a ``.npz`` or zip file is damaged or not a zip, or the file looks like
        a truncated MALLET weights file.
    UnsupportedModelError
        If the file is a zip without ``meta.npy``, an unidentified pickle or
        another binary file.
    """
    with open(path, "rb") as fh:
        head = fh.read(64)
    if head[:4] == b"PK\x03\x04":
        return _zip_format(path)
    if head[:2] == b"\x1f\x8b":
        return "mallet-state"
    if b"TPTK" in head[:32]:
        return "tomotopy"
    if head[:1] == b"\x80":
        return _pickle_format(path)
    if b"\x00" in head and path.suffix == ".bin":
        return "tomotopy"  # a damaged tomotopy file: its reader says what is wrong
    if path.suffix.lower() == ".npz":  # named as a numpy archive, but not one: refuse, never read as words
        raise InputFormatError(f"'{path}' is not a tealeaves model file: a .npz is a zip archive, and this "
                               "file is not one", fix="save the model again with model.save('model.npz')")
    if b"\x00" in head:
        raise UnsupportedModelError(f"'{path}' is a binary file (or UTF-16 text) of a kind tealeaves does "
                                    "not read",
                                    fix="give a tealeaves .npz, a MALLET output file or a topics file")
    return _text_format(path, encoding)


def _zip_format(path: Path) -> str:
    try:
        with zipfile.ZipFile(path) as z:
            names = z.namelist()
    except (zipfile.BadZipFile, OSError, NotImplementedError) as exc:  # e.g. a flipped version field
        raise InputFormatError(f"'{path}' is a damaged zip/.npz file ({exc})",
                               fix="save the model again") from None
    if "meta.npy" in names:
        return "tealeaves"
    raise UnsupportedModelError(f"'{path}' is a zip file but not a tealeaves model (no meta.npy)",
                                fix="save the model with model.save('model.npz')")


def _pickle_format(path: Path) -> str:
    if any(Path(str(path) + s).exists() for s in GENSIM_SIBLINGS):
        return "gensim-model"
    raise UnsupportedModelError(f"'{path}' is a Python pickle, but not a saved gensim model (no "
                                f"{path.name}.state or {path.name}.expElogbeta.npy beside it); tealeaves "
                                "does "
                                "not unpickle files it cannot identify",
                                fix="pass the model object to tealeaves.load_model, or save it with its own "
                                    "save() next to its sibling files")


def _text_format(path: Path, encoding: str | None) -> str:
    text = decode(path.read_bytes(), path, encoding)
    lines = [ln for ln in text.splitlines() if ln.strip()]
    first = lines[0] if lines else ""
    if first.strip() == mallet.STATE_HEADER:
        return "mallet-state"
    if first.startswith(mallet.SPARSE_DOC_TOPICS_HEADER):
        return "mallet-doc-topics"
    sample = lines[:_SNIFF_LINES]
    if sample and all(mallet.looks_like_word_topic_counts(ln) or _is_bare_type(ln) for ln in sample) \
            and any(mallet.looks_like_word_topic_counts(ln) for ln in sample):
        return "mallet-counts"
    if sample and _looks_like_dense_doc_topics(sample):
        return "mallet-doc-topics"
    if sample and _looks_like_weights_grid(lines):
        return "mallet-weights"
    _refuse_truncated_weights(lines, path)
    return topic_files.sniff_topic_format(text, path) if lines else "words"


def _is_bare_type(line: str) -> bool:
    parts = line.split(" ")
    return len(parts) == 2 and parts[0].isdigit()


def _floats(fields: list[str]) -> bool:
    try:
        [float(x) for x in fields]
    except ValueError:
        return False
    return True


def _looks_like_dense_doc_topics(lines: list[str]) -> bool:
    """Rows ``doc<TAB>name<TAB>p_0 ... p_{K-1}`` (K >= 2) of proportions summing to one."""
    rows = [ln.rstrip("\t").split("\t") for ln in lines]
    if len(rows[0]) < 4 or not all(r[0].isdigit() and _floats(r[2:]) for r in rows):
        return False
    return all(abs(sum(float(x) for x in r[2:]) - 1) < 1e-3 for r in rows if len(r) == len(rows[0]))


def _looks_like_weights_grid(lines: list[str]) -> bool:
    """``topic<TAB>word<TAB>weight`` rows forming a complete topics x words table (MALLET weights)."""
    rows = [ln.split("\t") for ln in lines]
    if not all(len(r) == 3 and r[0].isdigit() and _floats(r[2:]) for r in rows):
        return False
    words: dict[str, set[str]] = {}
    for r in rows:
        words.setdefault(r[0], set()).add(r[1])
    sets = list(words.values())
    return (len(sets) > 1 and len(sets[0]) > 1 and all(s == sets[0] for s in sets)
            and len(rows) == len(sets) * len(sets[0]))


def _refuse_truncated_weights(lines: list[str], path: Path) -> None:
    """Refuse a MALLET weights file with rows missing (its top words could be wrong).

    A top-words table lists different words in each topic; MALLET's weights file
    lists every word in every topic.  Headerless ``topic<TAB>word<TAB>weight``
    rows of at least two topics over at least 20 distinct words, each topic
    listing at least half of them but not all, are an incomplete weights file.
    """
    rows = [ln.split("\t") for ln in lines]
    if not all(len(r) == 3 and r[0].isdigit() and _floats(r[2:]) for r in rows):
        return
    words: dict[str, set[str]] = {}
    for r in rows:
        words.setdefault(r[0], set()).add(r[1])
    union = set().union(*words.values())
    if len(words) < 2 or len(union) < 20 or any(2 * len(w) < len(union) for w in words.values()):
        return
    short = next(k for k, w in words.items() if len(w) < len(union))
    raise naming(InputFormatError(f"'{path}' looks like an incomplete or truncated MALLET topic-word weights "
                                  f"file: topic {short} lists {len(words[short])} of the {len(union)} words",
                                  fix=("write the file again with MALLET's --topic-word-weights-file",
                                       "choose `format='csv'` to read it as a table of top words")), "format")
