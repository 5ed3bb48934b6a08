"""tomotopy topic models, in memory or saved with ``model.save(path)`` (``.bin``).

The distributions are those of ``get_topic_word_dist(k)``: ``(n_kw + eta) /
(n_k + V eta)`` over ``used_vocabs`` -- the words left after ``min_cf``,
``min_df`` and ``rm_top`` removal, in tomotopy's order (not ``vocabs``, which
also lists the removed words; they are recorded in
``metadata_["removed_words"]``).  The counts are read unnormalised and divided
in double precision.  ``alpha`` and ``eta`` are the model's own (as optimised
during training, when ``optim_interval`` > 0).

Read: ``LDAModel`` and the models with one flat set of K topics and a
Dirichlet prior per document (``LLDAModel``, ``PLDAModel``, ``SLDAModel``,
``PTModel``); ``DMRModel``/``GDMRModel`` and ``CTModel``, whose document prior
is not one Dirichlet, so they have no ``alpha`` (CT: use ``inference="native"``;
DMR/GDMR: no native inference either, since their documents need metadata --
coherence and studies work, document completion needs an alpha given with
the arrays); ``HDPModel`` through tomotopy's own ``convert_to_lda()`` (its live
topics; the original topic ids are in ``metadata_["topic_ids"]``).  Refused:
hierarchical and dynamic models (``PAModel``, ``HPAModel``, ``HLDAModel``,
``MGLDAModel``, ``DTModel``), whose topics are not one flat set.

``inference="native"`` runs ``model.infer`` (Gibbs sampling,
``native_iterations`` iterations, one worker) on ``make_doc`` documents.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from tealeaves._docs import shared_doc
from tealeaves._optional import optional_import
from tealeaves.corpus import Corpus
from tealeaves.errors import InputFormatError, InputNotFoundError, InvalidModelError, UnsupportedModelError
from tealeaves.models.adapters.arrays import INFERENCE_CHOICES, AdaptedModel, shape_tag, source_metadata
from tealeaves.validation import check_choice, check_int

#: Models whose topics are not one flat set of K distributions.
REFUSED = {
    "PAModel": "its sub-topics hang under super-topics",
    "HPAModel": "its topics form a hierarchy",
    "HLDAModel": "its topics form a tree",
    "MGLDAModel": "it has separate global and local topics",
    "DTModel": "its topics change with each timepoint",
}


def _tomotopy():
    return optional_import("tomotopy", "tomotopy", "reading a tomotopy model")


def topic_word(mdl) -> np.ndarray:
    """``K x V`` topic-word distributions over ``used_vocabs``, normalised in float64.

    Parameters
    ----------
    mdl : tomotopy.LDAModel
        A trained tomotopy model.

    Returns
    -------
    numpy.ndarray
        Row ``k`` is ``(n_kw + eta) / (n_k + V eta)``: the unnormalised
        ``get_topic_word_dist(k, normalize=False)`` divided by its sum.
    """
    counts = np.array([mdl.get_topic_word_dist(k, normalize=False) for k in range(mdl.k)], dtype=np.float64)
    return counts / counts.sum(axis=1, keepdims=True)


def _alpha(mdl) -> np.ndarray | None:
    """The per-document Dirichlet prior as a length-K vector, or ``None`` (DMR, CT: not one Dirichlet)."""
    try:
        alpha = np.asarray(mdl.alpha, dtype=np.float64)
    except AttributeError:  # CTModel: logistic-normal prior
        return None
    if alpha.shape == (mdl.k,):
        return alpha
    return None


def _native_transform(mdl, iterations: int):
    vocab = list(mdl.used_vocabs)

    def transform(corpus: Corpus) -> np.ndarray:
        alpha = _alpha(mdl)
        prior = np.full(mdl.k, 1.0 / mdl.k) if alpha is None else alpha / alpha.sum()
        theta = np.tile(prior, (len(corpus), 1))
        rows = [d for d in range(len(corpus)) if corpus.lengths[d] > 0]
        if rows:
            docs = [mdl.make_doc([vocab[i] for i in corpus.document(d)]) for d in rows]
            inferred, _ = mdl.infer(docs, iterations=iterations, workers=1)
            theta[rows] = np.asarray(inferred, dtype=np.float64)
            theta[rows] /= theta[rows].sum(axis=1, keepdims=True)
        return theta
    return transform


def _words(mdl, file) -> list[str]:
    """``used_vocabs``, refusing an empty word (tomotopy keeps one given to ``add_doc``; so can a damaged
    file): it could not be written to a topics file or matched against a reference."""
    vocab = list(mdl.used_vocabs)
    if not all(vocab):
        where = f"{file} (its word {vocab.index('')})" if file is not None else f"word {vocab.index('')}"
        raise InvalidModelError(f"the tomotopy model's vocabulary holds an empty word: {where}",
                                fix="leave empty tokens out of add_doc (if the model came from a file, the "
                                    "file may be damaged)")
    return vocab


def _check_trained(mdl, name: str) -> None:
    # tomotopy crashes the interpreter (segmentation fault) when an untrained model is asked for topics
    if int(getattr(mdl, "global_step", 0)) == 0 or int(getattr(mdl, "num_words", 0)) == 0:
        raise InvalidModelError(f"the tomotopy {name} has not been trained", fix="call its train() first")


@shared_doc
def from_tomotopy(mdl, *, inference: str = "tealeaves", file: str | os.PathLike | None = None,
                  native_iterations: int = 100) -> AdaptedModel:
    """Adapt a trained tomotopy model (see the module docstring).

    Parameters
    ----------
    mdl : tomotopy.LDAModel
        A trained tomotopy model of a supported class (an ``HDPModel`` is
        converted with ``convert_to_lda(topic_threshold=0)``).
    inference : {"tealeaves", "native"}, default "tealeaves"
        How topic proportions of new documents are inferred; ``"native"`` runs
        ``model.infer`` (not available for ``DMRModel``/``GDMRModel``).
    %(foreign_file)s
    native_iterations : int, default 100
        Gibbs iterations of ``model.infer`` for ``inference="native"`` (>= 1).

    Returns
    -------
    AdaptedModel
        The distributions over ``used_vocabs`` with the model's ``alpha`` (None
        when its document prior is not one Dirichlet) and ``eta``.

    Raises
    ------
    UnsupportedModelError
        If ``mdl`` is not a tomotopy topic model, or is a hierarchical or dynamic
        one (:data:`REFUSED`).
    %(raises_untrained)s
    ParameterError
        If ``native_iterations`` is not an integer >= 1.
    """
    tp = _tomotopy()
    name = type(mdl).__name__
    native_iterations = check_int(native_iterations, "native_iterations", min_value=1)
    if not isinstance(mdl, tp.LDAModel):
        raise UnsupportedModelError(f"tomotopy {name} is not a topic model tealeaves can read")
    if name in REFUSED or isinstance(mdl, (tp.PAModel, tp.HLDAModel, tp.MGLDAModel, tp.DTModel)):
        raise UnsupportedModelError(f"tomotopy {name} is not supported: {REFUSED.get(name, 'hierarchical')}",
                                    fix="use an LDAModel, or pass one set of topics as an array")
    _check_trained(mdl, name)
    extra: dict = {}
    if isinstance(mdl, tp.HDPModel):
        lda, ids = mdl.convert_to_lda(topic_threshold=0.0)
        extra["topic_ids"] = [int(np.flatnonzero(np.asarray(ids) == j)[0]) for j in range(lda.k)]
        extra["converted"] = "HDPModel.convert_to_lda(topic_threshold=0)"
        mdl = lda
    vocab = _words(mdl, file)
    phi = topic_word(mdl)
    removed = list(getattr(mdl, "removed_top_words", []) or [])
    if removed:
        extra["removed_words"] = removed
    meta = source_metadata("tomotopy", tp.__version__, f"tomotopy.{name}",
                           f"tomotopy-{tp.__version__}:{name}/{shape_tag(*phi.shape)}",
                           file=None if file is None else str(file), **extra)
    # DMR/GDMR documents need their metadata to be inferred (tomotopy aborts without it)
    native = None if isinstance(mdl, tp.DMRModel) else _native_transform(mdl, native_iterations)
    return AdaptedModel(phi, vocab, _alpha(mdl), metadata=meta,
                        topic_word_prior=float(mdl.eta), inference=inference, native_transform=native)


#: The model-type tag in the first four bytes of a tomotopy file (``LDA\0`` is shared: :func:`model_class`).
_TAGS = {b"LDA\0": "LDAModel", b"CTM\0": "CTModel", b"LLDA": "LLDAModel", b"PLDA": "PLDAModel",
         b"PTM\0": "PTModel", b"hLDA": "HLDAModel", b"DMR\0": "DMRModel", b"SLDA": "SLDAModel",
         b"DTM\0": "DTModel"}
#: Constructor arguments (recorded in the file's ``extra`` pickle) that tell the classes of one tag apart.
_KEYS = {"initial_k": "HDPModel", "degrees": "GDMRModel", "subalpha": "PAModel", "alpha_g": "MGLDAModel"}


def _extra_keys(head: bytes) -> set[str]:
    """The argument names in the file's ``extra`` section, read with pickletools (nothing is unpickled)."""
    import pickletools

    at = head.find(b"extra\0")
    if at < 0:
        return set()
    start = at + len(b"extra\0") + 4
    names: set[str] = set()
    try:
        for op, arg, _ in pickletools.genops(head[start:]):
            if op.name in ("SHORT_BINUNICODE", "BINUNICODE") and isinstance(arg, str):
                names.add(arg)
            if op.name == "STOP":
                break
    except (ValueError, IndexError):  # truncated or not a pickle: decided by the tag alone
        pass
    return names


def model_class(path: Path) -> str:
    """The tomotopy class that saved ``path``, from its type tag and recorded constructor arguments.

    tomotopy aborts the interpreter when a file is loaded with the wrong class
    (its own ``load_model`` tries them in turn), so the class is read first.

    Parameters
    ----------
    path : pathlib.Path
        A file written by a tomotopy model's ``save()``.

    Returns
    -------
    str
        The tomotopy class name, e.g. ``"LDAModel"`` or ``"HDPModel"``.

    Raises
    ------
    InputFormatError
        If the file does not start with a tomotopy type tag.
    """
    with open(path, "rb") as fh:
        head = fh.read(1 << 22)
    name = _TAGS.get(head[:4])
    if name is None:
        raise InputFormatError(f"{path} is not a tomotopy model file (it starts with {head[:4]!r})",
                               fix="give a file written by a tomotopy model's save()")
    keys = _extra_keys(head[head.find(b"globalStep"):] if b"globalStep" in head else b"")
    for key, cls in _KEYS.items():
        if key in keys:
            return cls
    return name


#: Seconds the probe's child process may take to import tomotopy (then: the file is reported unreadable).
PROBE_SECONDS = 60.0
#: Seconds the probe's child may take to load the file once tomotopy is imported, plus one second per
#: 20 MB of file: a valid model loads in well under that; a truncated one (even of 64 bytes) makes
#: tomotopy spin reading past its end, forever.
LOAD_SECONDS = 5.0
#: Seconds the probe's child may then take to convert the loaded model and write its arrays (a large
#: K x V model on a busy machine: the load budget is for spotting a truncated file, not for this).
CONVERT_SECONDS = 600.0


def _probe(cls: str, path: Path, inference: str, native_iterations: int) -> dict | None:
    """Load and convert ``path`` in a child process: a corrupt file aborts tomotopy there, not here.

    The child reports when tomotopy is imported (which may take up to :data:`PROBE_SECONDS` on a busy
    machine); the load itself then gets :data:`LOAD_SECONDS` plus one second per 20 MB, so a truncated
    file is refused within seconds instead of after a minute of spinning.  A damaged file can pass
    tomotopy's load in one process and abort its allocator in the next (the heap differs), so with
    ``inference="tealeaves"`` the child's arrays are used and this process never loads the file.

    Returns
    -------
    dict or None
        :func:`_fields` of the converted model (``inference="tealeaves"``), else None once the child
        loaded and converted the file without dying.
    """
    import subprocess
    import sys
    import tempfile

    load = LOAD_SECONDS + path.stat().st_size / 20e6
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    with tempfile.TemporaryDirectory(prefix="tealeaves-tomotopy-") as tmp:
        out = Path(tmp) / "converted.pickle"
        child = subprocess.Popen([sys.executable, "-c", _CHILD, cls, str(path), str(out), inference,
                                  str(native_iterations)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True, env=env)
        stage = f"tomotopy was still reading it after {load:.0f} s"
        try:
            _wait_ready(child, PROBE_SECONDS)  # tomotopy imported
            _wait_ready(child, load)  # the file loaded: a truncated one never gets here
            stage = f"its conversion took over {CONVERT_SECONDS:.0f} s"
            _, err = child.communicate(timeout=CONVERT_SECONDS)
        except subprocess.TimeoutExpired:
            child.kill()
            child.communicate()
            raise InputFormatError(f"{path} could not be read as a saved tomotopy {cls} ({stage})",
                                   fix="the file may be truncated") from None
        if child.returncode != 0 or not out.is_file():
            lines = [ln.strip() for ln in err.splitlines() if ln.strip() and "Warning" not in ln]
            raise InputFormatError(f"{path} could not be read as a saved tomotopy {cls} "
                                   f"({lines[-1] if lines else f'exit status {child.returncode}'})",
                                   fix="the file may be truncated or written by another tomotopy version")
        return _read_child(out)


#: The child's program: load, convert as :func:`from_tomotopy` does (every native accessor it calls: a
#: loaded damaged file can still abort tomotopy there), and write the outcome (:func:`convert_saved`).
_CHILD = ("import sys, tomotopy; print('ready', flush=True)\n"
          "from tealeaves.models.adapters.tomotopy import convert_saved\n"
          "convert_saved(*sys.argv[1:5], int(sys.argv[5]))")


def convert_saved(cls: str, path: str, out: str, inference: str, native_iterations: int) -> None:
    """The probe child's work: load ``path`` with tomotopy's ``cls``, convert it, pickle the outcome.

    Parameters
    ----------
    cls : str
        The tomotopy class (:func:`model_class`).
    path : str
        The saved model.
    out : str
        Where the outcome is written: ``("model", fields)`` with :func:`_fields`, or
        ``("error", name, what, fix)`` for a tealeaves error or an undecodable word.
    inference : str
        As in :func:`from_file`; for ``"native"`` the fields are None (the live model stays in the parent).
    native_iterations : int
        As in :func:`from_file`.

    Returns
    -------
    None
    """
    import pickle

    from tealeaves import errors

    try:
        mdl = getattr(_tomotopy(), cls).load(path)
        print("loaded", flush=True)  # the parent's load budget ends here; the conversion has its own
        adapted = from_file_loaded(mdl, Path(path), "tealeaves", native_iterations)
        outcome: tuple = ("model", _fields(adapted) if inference == "tealeaves" else None)
    except errors.TealeavesError as exc:
        outcome = ("error", type(exc).__name__, exc.what, exc.fix)
    with open(out, "wb") as fh:
        pickle.dump(outcome, fh)


def _fields(adapted: AdaptedModel) -> dict:
    """What rebuilds ``adapted`` in another process (the native inference is not carried over)."""
    return {"topic_word": adapted.topic_word_, "vocabulary": list(adapted.vocabulary_),
            "doc_topic_prior": adapted.doc_topic_prior_, "metadata": dict(adapted.metadata_),
            "topic_word_prior": adapted.topic_word_prior_}


def _read_child(out: Path) -> dict | None:
    """The child's outcome: the model's fields, or its error raised here."""
    import pickle

    from tealeaves import errors

    with open(out, "rb") as fh:
        outcome = pickle.load(fh)  # written by this package's own child, never by the user
    if outcome[0] == "error":
        _, name, what, fix = outcome
        raise getattr(errors, name, InputFormatError)(what, fix=fix)
    return outcome[1]


def _wait_ready(child, seconds: float) -> None:
    """Wait up to ``seconds`` for the probe's next line (``ready``: tomotopy imported; ``loaded``: the
    file loaded), or for it to exit.  The pipe is read a byte at a time, unbuffered, so a line that
    came early is never held in a buffer while the next wait watches the pipe."""
    import select
    import subprocess
    import time

    fd = child.stdout.fileno()
    deadline = time.monotonic() + seconds
    while True:
        try:
            ready, _, _ = select.select([fd], [], [], max(deadline - time.monotonic(), 0.0))
        except (OSError, ValueError):  # no select on pipes (Windows): the whole probe gets CONVERT_SECONDS
            return
        if not ready:
            raise subprocess.TimeoutExpired(child.args, seconds)
        byte = os.read(fd, 1)
        if byte in (b"", b"\n"):  # the line, or the end (the child died: its exit status says how)
            return


@shared_doc
def from_file(path: str | os.PathLike, *, inference: str = "tealeaves", native_iterations: int = 100
              ) -> AdaptedModel:
    """Adapt a tomotopy model saved with ``model.save(path)`` (the class is read from the file).

    The file is first loaded in a child process (:data:`PROBE_SECONDS`), so a
    corrupt file cannot abort this interpreter.

    Parameters
    ----------
    %(saved_model_path)s
    inference : {"tealeaves", "native"}, default "tealeaves"
        As in :func:`from_tomotopy`.
    native_iterations : int, default 100
        As in :func:`from_tomotopy`.

    Returns: %(returns_saved_model)s

    Raises
    ------
    %(raises_no_saved_model)s
    UnsupportedModelError
        If the file holds a refused class (:data:`REFUSED`).
    InputFormatError
        If the file is not a tomotopy model or tomotopy cannot read it.
    """
    path = Path(path)
    if not path.is_file():
        raise InputNotFoundError(f"no tomotopy model file at {path}")
    tp = _tomotopy()
    cls = model_class(path)
    if cls in REFUSED:
        raise UnsupportedModelError(f"{path} holds a tomotopy {cls}, which is not supported: {REFUSED[cls]}",
                                    fix="use an LDAModel, or pass one set of topics as an array")
    native_iterations = check_int(native_iterations, "native_iterations", min_value=1)
    check_choice(inference, "inference", INFERENCE_CHOICES)
    fields = _probe(cls, path, inference, native_iterations)
    if fields is not None:
        return AdaptedModel(fields.pop("topic_word"), fields.pop("vocabulary"), fields.pop("doc_topic_prior"),
                            **fields, inference="tealeaves")
    return from_file_loaded(getattr(tp, cls).load(str(path)), path, inference, native_iterations)


def from_file_loaded(mdl, path: Path, inference: str, native_iterations: int) -> AdaptedModel:
    """:func:`from_tomotopy` on a model loaded from ``path``, with an undecodable word reported as damage.

    Parameters
    ----------
    mdl : tomotopy.LDAModel
        The model tomotopy loaded from ``path``.
    path : pathlib.Path
        Its file (recorded in the metadata).
    inference : str
        As in :func:`from_tomotopy`.
    native_iterations : int
        As in :func:`from_tomotopy`.

    Returns
    -------
    AdaptedModel
        As :func:`from_tomotopy`.
    """
    try:
        return from_tomotopy(mdl, inference=inference, file=path, native_iterations=native_iterations)
    except UnicodeDecodeError as exc:  # tomotopy loads the bytes, then cannot decode a word
        raise InputFormatError(f"{path} holds a word that is not UTF-8 ({exc.reason} at byte {exc.start}): "
                               "the file is damaged",
                               fix="save the model again with tomotopy's save()") from None
