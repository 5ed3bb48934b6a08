"""Word-embedding coherence: how close a topic's top words are in a word-vector space.

For the present top words ``w_1 .. w_m`` of a topic (words without a vector
are left out, listed in ``missing`` and counted), with ``cos(u, v) = u.v / (|u| |v|)``:

``pairwise``
    ``2 / (m (m - 1)) sum_{i<j} cos(v_i, v_j)``, the mean cosine over the pairs
    of top words (Fang, Macdonald, Ounis and Habel 2016, *Using word embedding
    to evaluate the coherence of topics from Twitter data*, SIGIR; OCTIS's
    ``WECoherencePairwise`` up to its normalisation);
``centroid``
    ``1 / m sum_i cos(v_i, c)`` with the centroid ``c = 1 / m sum_i v_i``, the
    mean cosine of each word to the topic's centre (the centroid variant of
    Bianchi et al. 2021 / OCTIS's ``WECoherenceCentroid``, reported here as a
    similarity, not a distance).

A topic with fewer than two words with vectors gets ``None`` for both (left
out of the means and counted in ``n_unscored``).  Vectors come from a
word2vec/GloVe text file (:func:`read_vectors`) or are trained on a reference
corpus with gensim's Word2Vec (:func:`train_vectors`, fixed seed, one worker:
no download, reproducible).
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from tealeaves._io import read_lines
from tealeaves._optional import optional_import
from tealeaves._params import renamed_parameters
from tealeaves.comparison._common import N_TOP, Score, model_name, top_words
from tealeaves.corpus import Corpus
from tealeaves.errors import EmptyInputError, InputFormatError, ParameterError
from tealeaves.signature import Signature
from tealeaves.validation import check_int, check_seed


@dataclass
class WordVectors:
    """Word vectors: ``vectors[i]`` is the vector of ``words[i]``; ``name`` identifies their source.

    Parameters
    ----------
    words : list of str
        The ``n`` words, each once.
    vectors : numpy.ndarray
        The ``n x dimension`` vectors: finite, none all zeros.
    name : str, default "vectors"
        The source of the vectors, recorded in signatures.

    Raises
    ------
    InputFormatError
        If the shapes disagree, there are no words, a vector is non-finite or zero,
        or a word has two vectors.
    """

    words: list[str]
    vectors: np.ndarray = field(repr=False)
    name: str = "vectors"

    def __post_init__(self) -> None:
        self.vectors = np.asarray(self.vectors, dtype=np.float64)
        if self.vectors.ndim != 2 or self.vectors.shape[0] != len(self.words) or not self.words:
            raise InputFormatError(f"word vectors need one row per word, got {len(self.words)} words and "
                                   f"an array of shape {self.vectors.shape}")
        if not np.isfinite(self.vectors).all():
            row = int(np.argmax(~np.isfinite(self.vectors).all(axis=1)))
            raise InputFormatError(f"the vector of {self.words[row]!r} has NaN or infinite values")
        zero = np.linalg.norm(self.vectors, axis=1) == 0
        if zero.any():
            raise InputFormatError(f"the vector of {self.words[int(np.argmax(zero))]!r} is all zeros, so its "
                                   "cosine is undefined", fix="drop that word from the vectors")
        self.index = {w: i for i, w in enumerate(self.words)}
        if len(self.index) != len(self.words):
            dup = next(w for i, w in enumerate(self.words) if self.index[w] != i)
            raise InputFormatError(f"the word {dup!r} has two vectors", fix="keep one vector per word")

    @property
    def dimension(self) -> int:
        return int(self.vectors.shape[1])

    def __contains__(self, word: object) -> bool:
        return word in self.index

    def __len__(self) -> int:
        return len(self.words)


def _parse_row(parts: list[str], path: Path, line: int) -> np.ndarray:
    try:
        row = np.asarray(parts[1:], dtype=np.float64)
    except ValueError:
        bad = next(x for x in parts[1:] if not _is_float(x))
        raise InputFormatError(f"{path}, line {line}: {bad!r} is not a number",
                               fix="each line is a word followed by its vector's numbers") from None
    if not np.isfinite(row).all():
        raise InputFormatError(f"{path}, line {line}: the vector of {parts[0]!r} has NaN or infinite values",
                               fix="remove or repair that vector")
    return row


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _header(first_line: str) -> tuple[int, int | None, int | None]:
    """``(first data line, count, dimension)``: word2vec's ``count dim`` header line is optional."""
    first = first_line.split()
    if len(first) == 2 and all(x.isdigit() for x in first):
        return 1, int(first[0]), int(first[1])
    return 0, None, None


def read_vectors(path: str | Path, encoding: str | None = None, name: str | None = None,
                 words: Iterable[str] | None = None) -> WordVectors:
    """Read word vectors from a word2vec or GloVe text file.

    Each line is a word and its numbers separated by whitespace; word2vec's
    first line ``<count> <dimension>`` is optional (GloVe files have none) and,
    when present, must agree with the file.  Every vector must have the same
    dimension, finite values and a non-zero norm, and no word may appear
    twice; blank lines are skipped.

    Parameters
    ----------
    path : str or Path
        The text file.
    encoding : str or None, default None
        The file's encoding (None: UTF-8; an undecodable file raises
        :class:`~tealeaves.errors.InputEncodingError`).
    name : str or None, default None
        The vectors' name (None: the file's stem).
    words : iterable of str or None, default None
        Keep only these vectors (e.g. the topics' top words): every line is still
        checked for its dimension, but only the kept vectors' numbers are parsed,
        which makes reading a large file several times faster.  None keeps all.

    Returns
    -------
    WordVectors
        The vectors read.

    Raises
    ------
    EmptyInputError
        If the file holds no vectors, or none of ``words``.
    InputFormatError
        If a line is malformed, a dimension or the header's count disagrees, or a value is not a
        finite number.
    """
    path = Path(path)
    lines = read_lines(path, encoding, what="word-vectors file")
    numbered = [(i + 1, ln) for i, ln in enumerate(lines) if ln.strip()]
    if not numbered:
        raise EmptyInputError(f"the word-vectors file {path} is empty")
    start, count, dim = _header(numbered[0][1])
    keep = None if words is None else set(map(str, words))
    source = "header says" if start else "first vector has"
    names, rows, n_vectors = [], [], 0
    for line, text in numbered[start:]:
        parts = text.split()
        if len(parts) < 2:
            raise InputFormatError(f"{path}, line {line}: expected a word and its vector, got {text[:40]!r}")
        dim = len(parts) - 1 if dim is None else dim
        n_vectors += 1
        if len(parts) - 1 != dim:
            raise InputFormatError(f"{path}, line {line}: the vector of {parts[0]!r} has {len(parts) - 1} "
                                   f"values, but the {source} {dim}",
                                   fix="every vector needs the same dimension")
        if keep is None or parts[0] in keep:
            names.append(parts[0])
            rows.append(_parse_row(parts, path, line))
    if n_vectors == 0:
        raise EmptyInputError(f"the word-vectors file {path} has a header but no vectors")
    if count is not None and count != n_vectors:
        raise InputFormatError(f"{path}: the header announces {count} vectors but the file holds {n_vectors}",
                               fix="fix the first line or the file (truncated?)")
    if not rows:
        raise EmptyInputError(f"none of the requested words has a vector in {path}")
    return WordVectors(names, np.vstack(rows), name or path.stem)


def _stable_hash(text: str) -> int:
    """A hash that does not change between Python processes (Word2Vec's default, ``hash``, does)."""
    return zlib.crc32(text.encode("utf-8"))


def train_vectors(reference: Corpus | Sequence[Sequence[str]], vector_size: int = 100, window: int = 5,
                  min_count: int = 1, epochs: int = 5, seed: int = 0, name: str | None = None) -> WordVectors:
    """Train word vectors on ``reference`` with gensim's Word2Vec (CBOW), reproducibly.

    One worker thread, a fixed ``seed`` and a process-independent hash for the
    initial vectors, so the same input gives the same vectors in every run
    (gensim's own default hash changes with ``PYTHONHASHSEED``).  Needs the ``gensim`` extra.

    Parameters
    ----------
    reference : Corpus or sequence of sequence of str
        A :class:`~tealeaves.corpus.Corpus` or token lists.
    vector_size : int, default 100
        The dimension of the vectors.
    window : int, default 5
        Word2Vec's context window.
    min_count : int, default 1
        Words occurring fewer times are left out.
    epochs : int, default 5
        Training passes.
    seed : int, default 0
        Word2Vec's seed.
    name : str or None, default None
        A label for the reference in the vectors' name (None: the corpus's ``name``
        metadata, else ``"reference"``).

    Returns
    -------
    WordVectors
        The trained vectors, named ``w2v-<label>-d<size>-w<window>-e<epochs>-s<seed>``.

    Raises
    ------
    ParameterError
        If a count or the seed is invalid.
    EmptyInputError
        If the reference holds no tokens, or no word occurs ``min_count`` times.
    """
    gensim_models = optional_import("gensim.models", "gensim", "training word vectors")
    vector_size = check_int(vector_size, "vector_size", min_value=1)
    window = check_int(window, "window", min_value=1)
    min_count = check_int(min_count, "min_count", min_value=1)
    epochs = check_int(epochs, "epochs", min_value=1)
    seed = check_seed(seed)
    if isinstance(reference, Corpus):
        docs = reference.token_lists()
    else:
        docs = [[str(w) for w in d] for d in reference]
    if not any(docs):
        raise EmptyInputError("the reference for training word vectors holds no tokens")
    model = gensim_models.Word2Vec(docs, vector_size=vector_size, window=window, min_count=min_count,
                                   epochs=epochs, seed=seed, workers=1, hashfxn=_stable_hash)
    wv = model.wv
    if len(wv.index_to_key) == 0:
        raise EmptyInputError(f"no word occurs at least min_count={min_count} times in the reference")
    label = name or (reference.metadata.get("name") if isinstance(reference, Corpus) else None) or "reference"
    return WordVectors(list(wv.index_to_key), np.asarray(wv.vectors, dtype=np.float64),
                       f"w2v-{label}-d{vector_size}-w{window}-e{epochs}-s{seed}")


def _topic_scores(vectors: np.ndarray) -> tuple[float | None, float | None]:
    """(pairwise, centroid) cosine scores of one topic's word vectors (``None`` below two words)."""
    m = vectors.shape[0]
    if m < 2:
        return None, None
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    cos = unit @ unit.T
    pairwise = float(cos[np.triu_indices(m, 1)].mean())
    centre = vectors.mean(axis=0)
    norm = np.linalg.norm(centre)
    centroid = float((unit @ (centre / norm)).mean()) if norm > 0 else 0.0
    return pairwise, centroid


@renamed_parameters({"top_n": "n_top"})
def embedding_coherence(topics: object, vectors: WordVectors, n_top: int = 10) -> Score:
    """Pairwise and centroid word-embedding coherence of each topic (see the module docstring).

    Pairwise: the mean cosine over pairs of top words (Fang et al. 2016); centroid:
    the mean cosine of each word to the topic's centroid (Bianchi et al. 2021).

    Parameters
    ----------
    topics : object
        A fitted topic model or lists of ranked words.
    vectors : WordVectors
        The word vectors (:func:`read_vectors` or :func:`train_vectors`).
    n_top : int, default 10
        The number of top words per topic (>= 2).

    Returns
    -------
    Score
        ``value`` is the mean pairwise score over the scored topics; ``per_topic`` has
        ``pairwise``, ``centroid``, ``words`` and ``missing``; the details hold
        ``mean_centroid``, ``n_unscored`` and ``n_missing_words``.

    Raises
    ------
    ParameterError
        If ``vectors`` is not a ``WordVectors`` or ``n_top`` is invalid.
    EmptyInputError
        If no topic has two top words with a vector.
    """
    if not isinstance(vectors, WordVectors):
        raise ParameterError(f"vectors must be WordVectors (read_vectors or train_vectors), got "
                             f"{type(vectors).__name__}")
    n_top = N_TOP.replace(min_value=2).check(n_top)
    words = top_words(topics, n_top, require=False)
    rows = []
    for k, topic in enumerate(words):
        present = [w for w in topic if w in vectors]
        pairwise, centroid = _topic_scores(vectors.vectors[[vectors.index[w] for w in present]])
        rows.append({"topic": k, "pairwise": pairwise, "centroid": centroid, "words": " ".join(topic),
                     "missing": " ".join(w for w in topic if w not in vectors),
                     "n_missing": len(topic) - len(present)})
    frame = pd.DataFrame(rows)
    for column in ("pairwise", "centroid"):  # keep None (unscored) rather than NaN
        frame[column] = pd.Series([r[column] for r in rows], dtype=object)
    scored = [r["pairwise"] for r in rows if r["pairwise"] is not None]
    if not scored:
        raise EmptyInputError(f"no topic has two top words with a vector in {vectors.name!r}",
                              fix="use vectors trained on text like the topics' (train_vectors)")
    centroids = [r["centroid"] for r in rows if r["centroid"] is not None]
    name = vectors.name.replace("|", "/")
    sig = Signature("embedding-coherence", {"vectors": name, "dim": vectors.dimension, "top": n_top,
                                            "model": model_name(topics)})
    value = float(np.mean(scored))
    return Score("embedding-coherence", value, sig, frame,
                 {"mean_centroid": float(np.mean(centroids)), "n_unscored": len(rows) - len(scored),
                  "n_missing_words": int(frame["n_missing"].sum())})
