"""Fuzz the readers of saved models: no file may crash the process, hang, or load as an invalid model.

The artefacts (each built here from a real fit of a small synthetic corpus, so every file is what
its writer writes):

* ``pltm``: a polylingual model folder (``pltm fit -o``: ``pltm.npz``, ``en.npz``, ``sv.npz``,
  ``topics.json``), read by :func:`tealeaves.multilingual.load_pltm`;
* ``estimator``: a coherence estimator file (``estimator train -o``), read by
  :func:`tealeaves.multilingual.estimator_io.load_estimator`;
* every model-file format :func:`tealeaves.load_model` reads: ``npz`` (a tealeaves model),
  ``mallet-state`` (gzip), ``mallet-keys``, ``mallet-weights``, ``mallet-counts``,
  ``mallet-doc-topics`` (read by :func:`~tealeaves.models.adapters.mallet.read_doc_topics`), ``gensim``
  (``LdaModel.save``: the pickle and its siblings), ``tomotopy`` (``LDAModel.save``), ``octis`` (an OCTIS
  output dict, stored as JSON and given to ``load_model(dict, vocabulary=...)``) and the topics
  files (``topics-words``, ``topics-json``, ``topics-csv``, ``topics-gensim``).

Mutations (seeded; each changes one file of an artefact): bytes XOR-ed (``flip``), the file cut
short (``truncate``) or lengthened (``extend``); for text, a line deleted, duplicated or swapped, a
number replaced by ``NaN``, ``inf``, ``1e999``, ``-1``, ``0``, ``10^20``, ``x`` or nothing (``text_*``); for
``.npz`` files, one array's element set to NaN/inf/-1/1e300, its shape or dtype changed, an array
dropped, or one header field removed or given a wrong type (``npz_*``); for JSON files, one value
replaced by ``null``, ``-1``, ``NaN``, ``1e999``, ``"x"``, ``[]``, ``{}`` or JSON nested 50,000 deep, or
one key removed (``json_*``).

Oracle: each file is loaded in a worker subprocess (a signal is an exit status, a hang a per-file
timeout).  The load either raises a :class:`~tealeaves.errors.TealeavesError` subclass (``refused``:
a named error), or loads, and then its numbers must be a valid model of the format: topic-word
probabilities finite, non-negative, rows summing to 1, over a vocabulary of distinct words of the
right length, alpha positive and finite; fold-in of fixed documents (``pltm``, probabilistic
models) gives finite proportions summing to 1; the estimator's estimates of a fixed table are
finite; doc-topics rows are proportions.  A loaded file equal to the unmutated artefact's load is
``loaded-identical``, a valid other one ``loaded-valid`` (the oracle cannot know the value a
changed file *should* give beyond these invariants).  Anything else (another exception, a signal,
a hang, an invalid loaded value) is a FAILURE.

Run from the repository root::

    python benchmarks/model_fuzz.py [--n 1000] [--seed 0] [--artefacts pltm,estimator,...]

``--n`` mutations per artefact.  It prints the counts per artefact and outcome (and per mutation
kind with ``--by-kind``) and exits with status 1 on any failure.
``tests/bad_inputs/test_model_files_fuzz.py`` runs a reduced version.
"""

from __future__ import annotations

import argparse
import collections
import gzip
import importlib.util
import io
import json
import os
import random
import re
import shutil
import signal
import sys
import tempfile
import time
import traceback
import zipfile
from pathlib import Path

import numpy as np

SRC = Path(__file__).resolve().parent.parent / "src"
OUTCOMES = ("refused", "loaded-identical", "loaded-valid", "FAILED")
_spec = importlib.util.spec_from_file_location("index_fuzz",
                                               Path(__file__).resolve().parent / "index_fuzz.py")
index_fuzz = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(index_fuzz)

WORDS = ["cat", "dog", "mat", "sun", "moon", "star", "sky", "rug", "tree", "bird", "fish", "lake"]
SV = {"cat": "katt", "dog": "hund", "mat": "matta", "sun": "sol", "moon": "mane", "star": "stjarna",
      "sky": "himmel", "rug": "ryamatta", "tree": "trad", "bird": "fagel", "fish": "fisk", "lake": "sjo"}
K = 3
ARTEFACTS = ("pltm", "estimator", "npz", "mallet-state", "mallet-keys", "mallet-weights", "mallet-counts",
             "mallet-doc-topics", "gensim", "tomotopy", "octis", "topics-words", "topics-json", "topics-csv",
             "topics-gensim")


# --------------------------------------------------------------------------------------------
# the artefacts
# --------------------------------------------------------------------------------------------
def documents(n: int = 60, seed: int = 0) -> list[list[str]]:
    """Documents of two themes over :data:`WORDS`, 8 to 14 tokens each."""
    rng = random.Random(seed)
    return [[rng.choice(WORDS[:6] if d % 2 else WORDS[6:]) for _ in range(rng.randint(8, 14))]
            for d in range(n)]


def _fitted_lda(docs):
    """A GibbsLDA fit (tealeaves' own sampler) whose numbers the MALLET-format files are written from."""
    from tealeaves.corpus import Corpus
    from tealeaves.models.lda_gibbs import GibbsLDA

    corpus = Corpus.from_token_lists(docs)
    return corpus, GibbsLDA(K, n_iter=30, random_state=0).fit(corpus)


def _mallet_files(corpus, model, rng: np.random.Generator) -> dict[str, dict[str, bytes]]:
    """MALLET's output files (state, keys, weights, counts, doc-topics) of a sampled assignment."""
    vocab = list(corpus.vocabulary)
    phi, alpha = model.topic_word_, np.asarray(model.doc_topic_prior_)
    lines = ["#doc source pos typeindex type topic", "#alpha : " + " ".join(f"{a:.6g}" for a in alpha) + " ",
             "#beta : 0.01"]
    nkw = np.zeros((K, len(vocab)), dtype=np.int64)
    ndk = np.zeros((len(corpus), K))
    for d in range(len(corpus)):
        ids = corpus.tokens[corpus.offsets[d]:corpus.offsets[d + 1]]
        for pos, w in enumerate(ids.tolist()):
            p = phi[:, w] / phi[:, w].sum()
            k = int(rng.choice(K, p=p))
            nkw[k, w] += 1
            ndk[d, k] += 1
            lines.append(f"{d} NA {pos} {w} {vocab[w]} {k}")
    state = gzip.compress(("\n".join(lines) + "\n").encode())
    keys = "".join(f"{k}\t{alpha[k]:.6g}\t{' '.join(vocab[w] for w in np.argsort(-nkw[k])[:6])} \n"
                   for k in range(K))
    weights = "".join(f"{k}\t{vocab[w]}\t{nkw[k, w] + 0.01:.6g}\n"
                      for k in range(K) for w in range(len(vocab)))
    counts = "".join(f"{w} {vocab[w]} " + " ".join(f"{k}:{nkw[k, w]}" for k in np.argsort(-nkw[:, w])
                                                     if nkw[k, w]) + "\n" for w in range(len(vocab)))
    theta = (ndk + alpha) / (ndk + alpha).sum(1, keepdims=True)
    doc_topics = "".join(f"{d}\tdoc{d}\t" + "\t".join(f"{x:.6g}" for x in row) + "\n"
                         for d, row in enumerate(theta))
    return {"mallet-state": {"state.gz": state}, "mallet-keys": {"keys.txt": keys.encode()},
            "mallet-weights": {"weights.txt": weights.encode()},
            "mallet-counts": {"counts.txt": counts.encode()},
            "mallet-doc-topics": {"doc-topics.txt": doc_topics.encode()}}


def _read_folder(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def build_artefacts(wanted=ARTEFACTS) -> dict[str, dict[str, bytes]]:
    """Every artefact as ``{file name: bytes}`` (the first name is the one loaded)."""
    docs = documents()
    corpus, model = _fitted_lda(docs)
    vocab = list(corpus.vocabulary)
    out: dict[str, dict[str, bytes]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        if "npz" in wanted:
            model.save(tmp / "model.npz")
            out["npz"] = {"model.npz": (tmp / "model.npz").read_bytes()}
        out.update({k: v for k, v in _mallet_files(corpus, model, np.random.default_rng(0)).items()
                    if k in wanted})
        top = [[vocab[w] for w in np.argsort(-model.topic_word_[k])[:6]] for k in range(K)]
        if "topics-words" in wanted:
            out["topics-words"] = {"topics.txt": "".join(" ".join(t) + "\n" for t in top).encode()}
        if "topics-json" in wanted:
            pairs = [[[vocab[w], round(float(model.topic_word_[k, w]), 6)]
                      for w in np.argsort(-model.topic_word_[k])[:6]] for k in range(K)]
            out["topics-json"] = {"topics.json": json.dumps(pairs).encode()}
        if "topics-csv" in wanted:
            rows = "".join(f"{k},{vocab[w]},{model.topic_word_[k, w]:.6g}\n" for k in range(K)
                           for w in np.argsort(-model.topic_word_[k])[:6])
            out["topics-csv"] = {"topics.csv": ("topic,word,weight\n" + rows).encode()}
        if "topics-gensim" in wanted:
            lines = "".join(f"({k}, '" + " + ".join(f'{model.topic_word_[k, w]:.3f}*"{vocab[w]}"'
                                                    for w in np.argsort(-model.topic_word_[k])[:6]) + "')\n"
                            for k in range(K))
            out["topics-gensim"] = {"topics.txt": lines.encode()}
        if "octis" in wanted:
            output = {"topics": top, "topic-word-matrix": model.topic_word_.round(8).tolist(),
                      "topic-document-matrix": model.transform(corpus).T.round(8).tolist()}
            out["octis"] = {"octis.json": json.dumps(output).encode(),
                            "vocabulary.json": json.dumps(vocab).encode()}
        if "gensim" in wanted:
            out["gensim"] = _gensim_files(docs, tmp / "gensim")
        if "tomotopy" in wanted:
            out["tomotopy"] = _tomotopy_files(docs, tmp / "tomotopy")
        if "pltm" in wanted:
            out["pltm"] = _pltm_files(docs, tmp / "pltm")
        if "estimator" in wanted:
            out["estimator"] = _estimator_files(tmp / "estimator")
    return out


def _gensim_files(docs, folder: Path) -> dict[str, bytes]:
    from gensim.corpora import Dictionary
    from gensim.models import LdaModel

    folder.mkdir()
    d = Dictionary(docs)
    lda = LdaModel([d.doc2bow(x) for x in docs], num_topics=K, id2word=d, random_state=0, passes=2)
    lda.save(str(folder / "lda.model"))
    files = _read_folder(folder)
    return {"lda.model": files.pop("lda.model"), **files}


def _tomotopy_files(docs, folder: Path) -> dict[str, bytes]:
    import tomotopy as tp

    folder.mkdir()
    mdl = tp.LDAModel(k=K, seed=0)
    for x in docs:
        mdl.add_doc(x)
    mdl.train(20, workers=1)
    mdl.save(str(folder / "lda.bin"))
    return {"lda.bin": (folder / "lda.bin").read_bytes()}


def tuples(n: int = 40) -> list[dict]:
    """Aligned en/sv tuples (word-by-word translations) of :func:`documents`."""
    return [{"id": f"d{i}", "en": " ".join(x), "sv": " ".join(SV[w] for w in x)}
            for i, x in enumerate(documents(n, seed=1))]


def _pltm_files(docs, folder: Path) -> dict[str, bytes]:
    from tealeaves.cli import main

    src = folder.parent / "tuples.jsonl"
    src.write_text("".join(json.dumps(t) + "\n" for t in tuples()), encoding="utf-8")
    assert main(["pltm", "fit", str(src), "-k", str(K), "--n-chains", "1", "--n-iter", "20", "--max-df", "1",
                 "--seed", "0", "-o", str(folder)]) == 0
    files = _read_folder(folder)
    return {"pltm.npz": files.pop("pltm.npz"), **files}


ESTIMATOR_COLUMNS = ("C", "cnpmi", "inpmi", "mta", "twc")


def estimator_table():
    import pandas as pd

    rng = np.random.default_rng(3)
    frame = pd.DataFrame({c: rng.uniform(0, 1, 12) for c in ESTIMATOR_COLUMNS})
    frame["C"] = 3
    frame["lang"] = "sv"
    return frame


def _estimator_files(folder: Path) -> dict[str, bytes]:
    from tealeaves.multilingual.estimator import CoherenceEstimator
    from tealeaves.multilingual.estimator_io import save_estimator

    folder.mkdir()
    frame = estimator_table()
    y = 0.5 * frame["cnpmi"].to_numpy() + 0.1
    est = CoherenceEstimator(features=("base",), n_estimators=4, random_state=0).fit(frame, y, frame["lang"])
    save_estimator(est, folder / "est.json", {"cnpmi": {"ref": "poor"}}, ["sv"], 12)
    return {"est.json": (folder / "est.json").read_bytes()}


# --------------------------------------------------------------------------------------------
# mutations
# --------------------------------------------------------------------------------------------
NUMBERS = ("NaN", "nan", "inf", "-inf", "1e999", "-1", "0", "-0", "100000000000000000000", "1e-320", "x", "")
JSON_VALUES = (None, -1, float("nan"), float("inf"), "x", [], {}, 0, True)
_NUMBER = re.compile(rb"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def _text_mutation(rng: random.Random, data: bytes) -> tuple[str, bytes] | None:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    lines = data.split(b"\n")
    kind = rng.choice(["text_delete_line", "text_duplicate_line", "text_swap_lines", "text_number",
                       "text_number", "text_word"])
    if kind == "text_number":
        spans = [m.span() for m in _NUMBER.finditer(data)]
        if not spans:
            return None
        a, b = rng.choice(spans)
        return kind, data[:a] + rng.choice(NUMBERS).encode() + data[b:]
    if kind == "text_word":
        words = [m.span() for m in re.finditer(rb"[a-z]{3,}", data)]
        if len(words) < 2:
            return None
        (a, b), (c, d) = rng.sample(words, 2)
        if a > c:
            (a, b), (c, d) = (c, d), (a, b)
        return kind, data[:a] + data[c:d] + data[b:c] + data[a:b] + data[d:] if rng.random() < 0.5 \
            else data[:a] + data[c:d] + data[b:]
    i = rng.randrange(len(lines))
    if kind == "text_delete_line":
        del lines[i]
    elif kind == "text_duplicate_line":
        lines.insert(i, lines[i])
    else:
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    return kind, b"\n".join(lines)


def _json_mutation(rng: random.Random, data: bytes, deep: bool = True) -> tuple[str, bytes] | None:
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError):
        return None
    paths = []

    def walk(node, path):
        paths.append(path)
        if isinstance(node, dict):
            for k, v in node.items():
                walk(v, path + [k])
        elif isinstance(node, list):
            for i, v in enumerate(node[:50]):
                walk(v, path + [i])

    walk(doc, [])
    path = rng.choice(paths[1:] or paths)
    if not path:
        return None
    parent = doc
    for p in path[:-1]:
        parent = parent[p]
    if rng.random() < 0.2 and isinstance(parent, dict):
        del parent[path[-1]]
        kind = "json_drop_key"
    elif deep and rng.random() < 0.05:
        deep = "[" * 50_000 + "]" * 50_000
        return "json_deep", json.dumps(doc).replace(json.dumps(parent[path[-1]]), deep, 1).encode()
    else:
        parent[path[-1]] = rng.choice(JSON_VALUES)
        kind = "json_value"
    return kind, json.dumps(doc).encode()


def _npz_mutation(rng: random.Random, data: bytes) -> tuple[str, bytes] | None:
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
    except (OSError, ValueError, zipfile.BadZipFile, EOFError):
        return None
    name = rng.choice(sorted(arrays))
    value = arrays[name]
    if value.dtype.kind == "U" and value.ndim == 0:  # the JSON header
        kind, text = "npz_header", str(value)
        got = _json_mutation(rng, text.encode())
        if got is None:
            return None
        arrays[name] = np.array(got[1].decode())
    else:
        kind = rng.choice(["npz_value", "npz_value", "npz_shape", "npz_dtype", "npz_drop"])
        if kind == "npz_value" and value.size:
            value = value.astype(np.float64).copy() if value.dtype.kind in "fiu" else value.copy()
            flat = value.reshape(-1)
            flat[rng.randrange(flat.size)] = rng.choice([np.nan, np.inf, -1.0, 1e300, 0.0]) \
                if value.dtype.kind == "f" else flat[0]
            arrays[name] = value
        elif kind == "npz_shape" and value.ndim >= 1 and value.shape[0] > 1:
            arrays[name] = value[:-1] if rng.random() < 0.5 or value.ndim < 2 else value[:, :-1]
        elif kind == "npz_dtype":
            arrays[name] = value.astype(rng.choice([np.int8, np.float32, np.complex64]))
        else:
            kind = "npz_drop"
            del arrays[name]
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return kind, buf.getvalue()


def mutate(rng: random.Random, files: dict[str, bytes]) -> tuple[str, str, dict[str, bytes]]:
    """One mutation of one file of an artefact: ``(kind, file name, files)``."""
    files = dict(files)
    name = rng.choice(sorted(files))
    data = files[name]
    if "octis.json" in files:  # a dict in memory: its values change, not its serialisation
        while True:
            got = _json_mutation(rng, data, deep=False)
            if got is not None:
                files[name] = got[1]
                return got[0], name, files
    while True:
        choice = rng.random()
        got = None
        if choice < 0.15:
            buf = bytearray(data)
            for _ in range(rng.randint(1, 4)):
                if buf:
                    buf[rng.randrange(len(buf))] ^= rng.randint(1, 255)
            got = ("flip", bytes(buf))
        elif choice < 0.27:
            got = ("truncate", data[:rng.randrange(len(data))] if data else data)
        elif choice < 0.32:
            got = ("extend", data + bytes(rng.randrange(256) for _ in range(rng.randint(1, 64))))
        elif name.endswith(".npz"):
            got = _npz_mutation(rng, data)
        elif name.endswith(".json"):
            got = _json_mutation(rng, data) if rng.random() < 0.7 else _text_mutation(rng, data)
        elif name.endswith(".gz"):
            try:
                text = gzip.decompress(data)
            except (OSError, EOFError):
                text = None
            inner = _text_mutation(rng, text) if text is not None else None
            got = None if inner is None else (inner[0], gzip.compress(inner[1]))
        else:
            got = _text_mutation(rng, data)
        if got is not None:
            files[name] = got[1]
            return got[0], name, files


def mutations(bases: dict[str, dict[str, bytes]], n: int, seed: int):
    """``n`` mutations of every artefact: ``(artefact, kind, file, files)``."""
    for artefact in sorted(bases):
        rng = random.Random(f"{seed}-{artefact}")
        for _ in range(n):
            kind, name, files = mutate(rng, bases[artefact])
            yield artefact, kind, name, files


# --------------------------------------------------------------------------------------------
# the worker: load, then check what was loaded
# --------------------------------------------------------------------------------------------
class Invalid(Exception):
    """A loaded artefact whose numbers break its format's invariants (a FAILURE)."""


def _check_probabilities(phi, what: str) -> None:
    phi = np.asarray(phi, dtype=np.float64)
    if phi.ndim != 2 or not np.isfinite(phi).all() or (phi < 0).any():
        raise Invalid(f"{what}: not finite non-negative K x V")
    if np.abs(phi.sum(1) - 1).max() > 1e-6:
        raise Invalid(f"{what}: rows do not sum to 1")


def _check_theta(theta, what: str) -> None:
    theta = np.asarray(theta, dtype=np.float64)
    if theta.ndim != 2 or not np.isfinite(theta).all() or (theta < 0).any() or \
            np.abs(theta.sum(1) - 1).max() > 1e-6:
        raise Invalid(f"{what}: proportions not finite, non-negative, summing to 1")


def _check_model(model) -> tuple:
    """Invariants of a loaded topic model; returns its comparable value."""
    from tealeaves.corpus import Corpus

    vocab = list(model.vocabulary_)
    if len(set(vocab)) != len(vocab) or not all(isinstance(w, str) and w for w in vocab):
        raise Invalid("vocabulary with duplicates or non-words")
    weights = np.asarray(model.topic_word_weights_, dtype=np.float64)
    if weights.ndim != 2 or weights.shape[1] != len(vocab) or weights.shape[0] == 0 or \
            not np.isfinite(weights).all():
        raise Invalid(f"weights {weights.shape} not finite K x {len(vocab)}")
    alpha = model.doc_topic_prior_
    if alpha is not None and (not np.isfinite(alpha).all() or (np.asarray(alpha) <= 0).any()):
        raise Invalid("alpha not positive and finite")
    if model.topic_word_ is not None:
        _check_probabilities(model.topic_word_, "topic_word_")
    if model.topic_word_ is not None and alpha is not None:  # fold-in needs alpha
        docs = [vocab[:3], vocab[-2:] * 2]
        theta = model.transform(Corpus.from_token_lists(docs, vocabulary=model.vocabulary_))
        _check_theta(theta, "transform")
    top = [list(t) for t in model.top_words(min(5, len(vocab)))]
    alpha = None if alpha is None else np.asarray(alpha).round(12).tobytes()
    return tuple(vocab), weights.round(12).tobytes(), alpha, json.dumps(top)


def load_and_check(artefact: str, path: Path) -> tuple:
    """Load ``path`` as ``artefact`` and check it; return a comparable value (raises on refusal/invalid)."""
    import tealeaves

    if artefact == "pltm":
        from tealeaves.corpus.aligned import AlignedCorpus
        from tealeaves.multilingual import load_pltm

        model, preps = load_pltm(path)
        for x in model.languages_:
            _check_probabilities(model.topic_word_[x], f"topic_word_{x}")
            view = model.language_model(x)
            _check_model(view)
        held = tuples(4)
        texts = {x: [t[x] for t in held] for x in ("en", "sv")}
        corpus = AlignedCorpus.from_texts(texts, [t["id"] for t in held], preps, fit=False)
        theta = model.transform(corpus, n_iter=20, burn_in=5, random_state=0)
        _check_theta(theta, "pltm transform")
        phis = [model.topic_word_[x].round(12).tobytes() for x in model.languages_]
        return (tuple(model.languages_), np.asarray(model.alpha_).round(12).tobytes(), *phis,
                theta.round(12).tobytes())
    if artefact == "estimator":
        from tealeaves.multilingual.estimator_io import load_estimator

        est, _ = load_estimator(path)
        estimates = np.asarray(est.predict(estimator_table()), dtype=np.float64)
        if not np.isfinite(estimates).all():
            raise Invalid("non-finite estimates")
        return (estimates.round(12).tobytes(),)
    if artefact == "mallet-doc-topics":
        from tealeaves.models.adapters.mallet import read_doc_topics

        theta = read_doc_topics(path).proportions
        _check_theta(theta, "doc-topics")
        return (np.asarray(theta).round(12).tobytes(),)
    if artefact == "octis":
        # an OCTIS output is a dict in memory: the JSON holds it (mutated only as JSON values)
        output = json.loads(path.read_text(encoding="utf-8"))
        vocab = json.loads((path.parent / "vocabulary.json").read_text(encoding="utf-8"))
        return _check_model(tealeaves.load_model(output, vocabulary=vocab, alpha=0.1))
    return _check_model(tealeaves.load_model(path))


def check_files(artefact: str, folder: str, base_value) -> tuple[str, str, object]:
    """``(outcome, detail, value)`` of one artefact's files in ``folder``."""
    from tealeaves.errors import TealeavesError

    files = sorted(Path(folder).iterdir())
    main = Path(folder) / json.loads((Path(folder) / ".main").read_text())
    del files
    try:
        value = load_and_check(artefact, main if artefact != "pltm" else Path(folder))
    except Invalid as exc:
        return "FAILED", f"loaded an invalid {artefact}: {exc}", None
    except TealeavesError as exc:
        return "refused", f"{type(exc).__name__}: {str(exc)[:300]}", None
    except RecursionError as exc:
        return "FAILED", f"RecursionError: {exc}", None
    except Exception as exc:  # noqa: BLE001 - any other exception is the failure being looked for
        return "FAILED", f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=6)}", None
    if base_value is None or repr(value) == base_value:
        return "loaded-identical", "", repr(value)
    return "loaded-valid", "", repr(value)


def worker_main() -> int:
    """Serve ``{"artefact", "folder", "base"}`` JSON lines from stdin, answering ``{"outcome", ...}``."""
    import warnings

    warnings.simplefilter("ignore")
    answer, sys.stdout = sys.stdout, sys.stderr
    print(json.dumps({"ready": True}), file=answer, flush=True)
    for line in sys.stdin:
        job = json.loads(line)
        if job.get("fault") == "crash":
            os.kill(os.getpid(), signal.SIGSEGV)
        if job.get("fault") == "hang":
            time.sleep(3600)
        outcome, detail, value = check_files(job["artefact"], job["folder"], job.get("base"))
        print(json.dumps({"outcome": outcome, "detail": detail[:2000], "value": value}), file=answer,
              flush=True)
    return 0


class Worker(index_fuzz.Worker):
    """The index fuzzer's worker subprocess (crash and hang detection), serving this script's jobs."""

    def __init__(self, startup_timeout: float = 120.0):
        super().__init__(startup_timeout=startup_timeout, command=[sys.executable, __file__, "--worker"])


def _write(folder: Path, files: dict[str, bytes], main: str) -> None:
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir()
    for name, data in files.items():
        (folder / name).write_bytes(data)
    (folder / ".main").write_text(json.dumps(main))


def fuzz(bases: dict[str, dict[str, bytes]], n: int, seed: int = 0, timeout: float = 60.0,
         progress=None) -> list[dict]:
    """``n`` mutations of every artefact, each checked in a worker subprocess; one record per file.

    Each unmutated artefact is checked first as a control (kind ``original``: it must load, and its
    value is what ``loaded-identical`` compares with).
    """
    records, base_values = [], {}
    worker = Worker()
    try:
        with tempfile.TemporaryDirectory(prefix="tealeaves-model-fuzz-") as tmp:
            folder = Path(tmp) / "m"
            for artefact in sorted(bases):
                main = next(iter(bases[artefact]))
                _write(folder, bases[artefact], main)
                reply = worker.request({"artefact": artefact, "folder": str(folder)}, timeout)
                base_values[artefact] = reply.get("value")
                outcome = reply["outcome"] if reply["outcome"] != "refused" else "FAILED"
                records.append({"artefact": artefact, "kind": "original", "file": main, "outcome": outcome,
                                "detail": reply["detail"]})
            for i, (artefact, kind, name, files) in enumerate(mutations(bases, n, seed)):
                _write(folder, files, next(iter(bases[artefact])))
                reply = worker.request({"artefact": artefact, "folder": str(folder),
                                      "base": base_values[artefact]}, timeout)
                records.append({"artefact": artefact, "kind": kind, "file": name, "outcome": reply["outcome"],
                                "detail": reply["detail"]})
                if progress and (i + 1) % 100 == 0:
                    so_far = collections.Counter(r["outcome"] for r in records)
                    progress(f"{i + 1} files checked: " + ", ".join(f"{o} {so_far[o]}" for o in OUTCOMES))
    finally:
        worker.close()
    return records


def summary(records: list[dict], by_kind: bool = False) -> str:
    """Counts per artefact (and mutation kind) and outcome, then every failure."""
    key = (lambda r: f"{r['artefact']}/{r['kind']}") if by_kind else (lambda r: r["artefact"])
    def failure(r):
        return f"FAILED {r['artefact']} {r['kind']} ({r['file']}): {r['detail']}"

    return index_fuzz.outcome_table(records, OUTCOMES, failure, key=key, label="artefact")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1000, help="mutations per artefact (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--artefacts", default=",".join(ARTEFACTS), help="comma-separated artefacts")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds allowed per file")
    parser.add_argument("--by-kind", action="store_true", help="count per mutation kind too")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(SRC))
    if args.worker:
        return worker_main()
    wanted = [a for a in args.artefacts.split(",") if a]
    t0 = time.perf_counter()
    bases = build_artefacts(wanted)
    sizes = ", ".join(f"{k} ({sum(map(len, v.values())):,} bytes)" for k, v in sorted(bases.items()))
    print(f"artefacts: {sizes} ({time.perf_counter() - t0:.1f} s)", flush=True)
    t0 = time.perf_counter()
    records = fuzz(bases, args.n, args.seed, args.timeout, progress=lambda m: print(m, flush=True))
    print(f"{args.n} mutations per artefact (seed {args.seed}) + {len(bases)} controls in "
          f"{time.perf_counter() - t0:.1f} s")
    print(summary(records, args.by_kind))
    return 1 if any(r["outcome"] == "FAILED" for r in records) else 0


if __name__ == "__main__":
    sys.exit(main())
