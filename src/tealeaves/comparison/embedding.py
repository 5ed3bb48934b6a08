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
out of the means and counted in ``n_unscored``).

``compat="octis"`` reproduces OCTIS 1.14's ``WECoherencePairwise`` and
``WECoherenceCentroid``, **including a bug**: OCTIS divides each word vector by the
sum of its components (``v / sum(v)``), which leaves a cosine unchanged except that it
flips the sign of every vector whose components sum below zero (31.5% of the vectors in
docs/peers.md's run), so ``cos`` changes sign for pairs with one flipped vector.  OCTIS
also divides the pairwise sum over ``i != j`` by ``n (n - 1)`` with ``n = n_top`` (not
the number of words with a vector), scores a topic without any vector ``-1`` and keeps
it in the mean, and its centroid variant returns the mean cosine *distance*
``1 / n sum_i (1 - cos(v_i / sum(v_i), c / sum(c)))`` (lower = more coherent).

Between topics (Terragni, Fersini and Messina 2021, *Word embedding-based topic
similarity measures*, NLDB; OCTIS's ``similarity_metrics``), over the pairs of topics
``i < j`` and their top ``n`` words, with ``sim(u, v) = 1 - arccos(cos(u, v)) / pi``
(``normalize=True``, OCTIS's default) or ``cos(u, v)``:

:func:`we_irbo`
    ``1 - mean_{i<j} WE-RBO(i, j)`` (the mean WE-RBO, OCTIS's RBO match, is in its details):
    rank-biased overlap (:func:`~.diversity.rbo_extrapolated`)
    whose overlap at depth ``d`` is the weight of a greedy matching of the first ``d``
    words of each topic: the most similar pair is matched first, then the most similar
    pair of words not yet matched, and so on; ``A_d = X_d / d``.  The same word in both
    topics has similarity 1; a word without a vector is matched only to itself.
:func:`we_irbo` with ``centroid=True``
    ``1 - mean WE-RBO-centroid``: the overlap at depth ``d`` is ``sim`` of the centroids
    of the first ``d`` words' vectors (0 while a topic has no vector yet), ``A_d = X_d / d``
    as OCTIS computes it (so identical topics do not reach 1).
:func:`we_similarity`
    ``mean_{i<j}`` of the mean ``cos(v, w)`` over the words ``v`` of ``i`` and ``w`` of
    ``j`` with vectors (OCTIS's ``WordEmbeddingsPairwiseSimilarity``).
:func:`we_similarity` with ``centroid=True``
    ``mean_{i<j} cos(c_i, c_j)`` of the topics' centroids (mean vectors; 0 for a centroid
    of norm 0), OCTIS's ``WordEmbeddingsCentroidSimilarity``.

Each between-topic measure raises :class:`~tealeaves.errors.EmptyInputError` when a topic
has no top word with a vector (OCTIS divides by zero there).  Vectors come from a
word2vec/GloVe text file (:func:`read_vectors`) or are trained on a reference
corpus with gensim's Word2Vec (:func:`train_vectors`, fixed seed, one worker:
no download, reproducible).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd

from tealeaves._docs import shared_doc
from tealeaves._io import read_lines
from tealeaves._optional import optional_import
from tealeaves._params import Param, renamed_parameters
from tealeaves.comparison._common import COMPAT, N_TOP, Score, model_name, require_topics, top_words
from tealeaves.comparison.diversity import rbo_extrapolated
from tealeaves.corpus import Corpus
from tealeaves.errors import EmptyInputError, InputFormatError, ParameterError
from tealeaves.signature import Signature
from tealeaves.validation import check_float, check_int, check_seed

#: Whether the word-embedding RBOs map a cosine to ``1 - arccos(cos) / pi`` (OCTIS's ``normalize``).
NORMALIZE = Param("normalize", "bool", help="map cosines to 1 - arccos(cos)/pi")
#: Whether the word-embedding inverted RBO compares centroids (OCTIS's ``...RBOCentroid``).
CENTROID = Param("centroid", "bool", help="compare the centroids of the first d words")


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

    @property
    def checksum(self) -> str:
        """The first 12 hex digits of the SHA-256 of the words (one per line) and their float64 vectors.

        Two sets of vectors with the same checksum give the same embedding measures; it names the
        vectors in signatures and results stores beside their :attr:`name`, which alone does not
        say whether a file changed.

        Returns
        -------
        str
            12 lowercase hex digits.
        """
        import hashlib

        digest = hashlib.sha256("\n".join(self.words).encode("utf-8"))
        digest.update(np.ascontiguousarray(self.vectors, dtype="<f8").tobytes())
        return digest.hexdigest()[:12]

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


def _octis_signs(vectors: np.ndarray, words: Sequence[str]) -> np.ndarray:
    """``sign(sum(v))`` of each vector: OCTIS's ``v / sum(v)`` keeps only this of the sum, for cosines."""
    sums = vectors.sum(axis=1)
    if (sums == 0).any():
        word = words[int(np.argmax(sums == 0))]
        raise InputFormatError(f"the components of the vector of {word!r} sum to 0, so OCTIS's normalisation "
                               "(compat='octis') divides by zero", fix="use compat='paper'")
    return np.sign(sums)


def _octis_topic_scores(vectors: np.ndarray, words: Sequence[str], n_top: int) -> tuple[float, float]:
    """OCTIS's (``WECoherencePairwise``, ``WECoherenceCentroid``) of one topic: see the module docstring."""
    m = vectors.shape[0]
    if m == 0:
        return -1.0, -1.0
    signed = vectors * _octis_signs(vectors, words)[:, None]
    unit = signed / np.linalg.norm(signed, axis=1, keepdims=True)
    cos = unit @ unit.T
    pairwise = float((cos.sum() - np.trace(cos)) / (n_top * (n_top - 1)))
    centre = vectors.sum(axis=0)
    total = centre.sum()
    if total != 0:
        centre = centre / (len(centre) * total)
    distances = 1.0 - unit @ (centre / np.linalg.norm(centre))
    return pairwise, float(distances.sum() / n_top)


@renamed_parameters({"top_n": "n_top"})
def embedding_coherence(topics: object, vectors: WordVectors, n_top: int = 10,
                        compat: str = "paper") -> Score:
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
    compat : {"paper", "octis"}, default "paper"
        ``"octis"`` reproduces OCTIS's numbers, **bug included** (module docstring): vectors
        divided by the sum of their components, the centroid variant as a distance, a topic
        without vectors ``-1``.

    Returns
    -------
    Score
        ``value`` is the mean pairwise score over the scored topics; ``per_topic`` has
        ``pairwise``, ``centroid``, ``words`` and ``missing``; the details hold
        ``mean_centroid``, ``n_unscored`` and ``n_missing_words``.

    Raises
    ------
    ParameterError
        If ``vectors`` is not a ``WordVectors`` or ``n_top`` or ``compat`` is invalid.
    EmptyInputError
        If no topic has two top words with a vector (``"paper"``).
    InputFormatError
        Under ``"octis"``, if a used vector's components sum to 0.
    """
    _check_vectors(vectors)
    compat = COMPAT.check(compat)
    n_top = N_TOP.replace(min_value=2).check(n_top)
    words = top_words(topics, n_top, require=False)
    rows = []
    for k, topic in enumerate(words):
        present = [w for w in topic if w in vectors]
        rows_of = vectors.vectors[[vectors.index[w] for w in present]]
        rows_of = rows_of.reshape(len(present), vectors.dimension)
        if compat == "octis":
            pairwise, centroid = _octis_topic_scores(rows_of, present, n_top)
        else:
            pairwise, centroid = _topic_scores(rows_of)
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
    sig = _signature("embedding-coherence", topics, vectors, n_top, compat=compat)
    value = float(np.mean(scored))
    return Score("embedding-coherence", value, sig, frame,
                 {"mean_centroid": float(np.mean(centroids)), "n_unscored": len(rows) - len(scored),
                  "n_missing_words": int(frame["n_missing"].sum())})


def _check_vectors(vectors: object) -> None:
    if not isinstance(vectors, WordVectors):
        raise ParameterError(f"vectors must be WordVectors (read_vectors or train_vectors), got "
                             f"{type(vectors).__name__}")


def _signature(measure: str, topics: object, vectors: WordVectors, n_top: int, compat: str = "paper",
               **extra) -> Signature:
    fields = {"vectors": vectors.name.replace("|", "/"), "dim": vectors.dimension, "top": n_top, **extra,
              "model": model_name(topics), "vectors_sha": vectors.checksum}
    if compat != "paper":
        fields["compat"] = compat
    return Signature(measure, fields)


def _topics_with_vectors(topics: object, vectors: WordVectors, n_top: int) -> list[list[str]]:
    """The topics' top words, checked: two topics or more, each with at least one word with a vector."""
    _check_vectors(vectors)
    n_top = N_TOP.check(n_top)
    words = top_words(topics, n_top)
    require_topics(len(words), 2, "a word-embedding similarity between topics")
    for k, topic in enumerate(words):
        if not any(w in vectors for w in topic):
            raise EmptyInputError(f"no top word of topic {k} has a vector in {vectors.name!r} "
                                  f"({' '.join(topic[:5])} ...)",
                                  fix="use vectors trained on text like the topics' (train_vectors)")
    return words


def _unit(vectors: WordVectors, words: Sequence[str]) -> np.ndarray:
    """Unit vectors of ``words`` (rows of zeros for words without a vector)."""
    out = np.zeros((len(words), vectors.dimension))
    for i, w in enumerate(words):
        if w in vectors:
            v = vectors.vectors[vectors.index[w]]
            out[i] = v / np.linalg.norm(v)
    return out


def _similarity(cos: np.ndarray, normalize: bool) -> np.ndarray:
    """``1 - arccos(cos) / pi`` (``normalize``) or ``cos``, after clipping ``cos`` to ``[-1, 1]``."""
    cos = np.clip(cos, -1.0, 1.0)
    return 1.0 - np.arccos(cos) / np.pi if normalize else cos


def _greedy_overlap(sim: np.ndarray, depth: int) -> float:
    """The weight of the greedy matching of the first ``depth`` rows and columns of ``sim``.

    Pairs are taken by decreasing similarity (ties in row-major order, as OCTIS's stable
    sort), each word at most once; ``NaN`` entries (no vector) are never matched.
    """
    block = sim[:depth, :depth]
    order = np.argsort(-block, axis=None, kind="stable")
    used_rows: set[int] = set()
    used_cols: set[int] = set()
    total = 0.0
    for flat in order:
        i, j = divmod(int(flat), depth)
        if np.isnan(block[i, j]) or i in used_rows or j in used_cols:
            continue
        total += float(block[i, j])
        used_rows.add(i)
        used_cols.add(j)
    return total


def _pair_similarities(first: Sequence[str], second: Sequence[str], vectors: WordVectors,
                       normalize: bool) -> np.ndarray:
    """``sim`` of each word of ``first`` to each of ``second`` (1 for the same word, NaN without vectors)."""
    a, b = _unit(vectors, first), _unit(vectors, second)
    sim = _similarity(a @ b.T, normalize)
    has_a = np.array([w in vectors for w in first])
    has_b = np.array([w in vectors for w in second])
    sim[~has_a[:, None] | ~has_b[None, :]] = np.nan
    same = np.array([[x == y for y in second] for x in first])
    sim[same] = 1.0
    return sim


def _we_rbo(first: Sequence[str], second: Sequence[str], vectors: WordVectors, p: float,
            normalize: bool) -> float:
    sim = _pair_similarities(first, second, vectors, normalize)
    k = len(first)
    return rbo_extrapolated([_greedy_overlap(sim, d) / d for d in range(1, k + 1)], p)


def _centroid_rbo(first: Sequence[str], second: Sequence[str], vectors: WordVectors, p: float,
                  normalize: bool) -> float:
    agreements = []
    for d in range(1, len(first) + 1):
        a = [vectors.vectors[vectors.index[w]] for w in first[:d] if w in vectors]
        b = [vectors.vectors[vectors.index[w]] for w in second[:d] if w in vectors]
        overlap = float(_similarity(np.asarray(_cosine(np.mean(a, axis=0), np.mean(b, axis=0))), normalize)) \
            if a and b else 0.0
        agreements.append(overlap / d)
    return rbo_extrapolated(agreements, p)


def _cosine(u: np.ndarray, v: np.ndarray) -> float:
    """``u.v / (|u| |v|)``, 0 when either has norm 0."""
    norm = float(np.linalg.norm(u) * np.linalg.norm(v))
    return float(u @ v) / norm if norm > 0 else 0.0


def _pairwise_measure(measure: str, topics: object, vectors: WordVectors, n_top: int,
                      pair: Callable[[list[str], list[str]], float], **fields) -> Score:
    words = _topics_with_vectors(topics, vectors, n_top)
    values = [pair(a, b) for a, b in combinations(words, 2)]
    return Score(measure, float(np.mean(values)), _signature(measure, topics, vectors, n_top, **fields),
                 details={"n_topics": len(words), "n_pairs": len(values)})


@shared_doc
def we_irbo(topics: object, vectors: WordVectors, n_top: int = 10, p: float = 0.9,
            normalize: bool = True, centroid: bool = False) -> Score:
    """Word-embedding inverted RBO (Terragni et al. 2021): ``1 - mean_{i<j} WE-RBO(i, j)``.

    See the module docstring.  ``centroid=False`` is OCTIS's ``WordEmbeddingsInvertedRBO``
    (the greedy matching of words), ``centroid=True`` its
    ``WordEmbeddingsInvertedRBOCentroid`` (the similarity of the first ``d`` words'
    centroids); OCTIS's defaults are ``n_top=10``, ``p=0.9``, ``normalize=True``.  0 when
    all topics are alike, higher = more diverse.  The mean WE-RBO itself, OCTIS's
    ``WordEmbeddingsRBOMatch`` (``RBOCentroid``), is ``details["rbo_match"]``.

    Parameters
    ----------
    %(ranked_topics)s %(embedding_vectors)s
    n_top : int, default 10
        Top words per topic.
    p : float, default 0.9
        RBO's persistence, in ``(0, 1]``.
    normalize : bool, default True
        Similarity ``1 - arccos(cos) / pi`` (True) or the cosine itself.
    centroid : bool, default False
        Compare the centroids of the first ``d`` words instead of matching words.

    Returns
    -------
    Score
        ``we-irbo`` or ``we-irbo-centroid``, with ``rbo_match``, ``n_topics`` and
        ``n_pairs`` in its details.

    Raises
    ------
    ParameterError
        If a parameter is invalid or there are fewer than two topics.
    EmptyInputError
        If a topic has no top word with a vector.
    """
    p = check_float(p, "p", min_value=0.0, max_value=1.0, include_min=False)
    normalize = NORMALIZE.check(normalize)
    measure, pair = ("we-irbo-centroid", _centroid_rbo) if CENTROID.check(centroid) else ("we-irbo", _we_rbo)
    score = _pairwise_measure(measure, topics, vectors, n_top, lambda a, b: pair(a, b, vectors, p, normalize),
                              p=p, normalize=normalize)
    score.details["rbo_match"] = score.value
    score.value = 1.0 - score.value
    return score


@shared_doc
def we_similarity(topics: object, vectors: WordVectors, n_top: int = 10, centroid: bool = False) -> Score:
    """Mean word-embedding similarity over the pairs of topics ``i < j`` (Terragni et al. 2021).

    ``centroid=False``: OCTIS's ``WordEmbeddingsPairwiseSimilarity``, for each pair of topics
    ``1 / |P| sum_{(v, w) in P} cos(v, w)`` over the pairs ``P`` of a word of ``i`` and a word
    of ``j`` that both have a vector.  ``centroid=True``: OCTIS's
    ``WordEmbeddingsCentroidSimilarity``, ``cos(c_i, c_j)`` of the topics' mean vectors
    (words without a vector left out; 0 for a centroid of norm 0).  Then the mean over the
    pairs of topics; higher = more similar topics.

    Parameters
    ----------
    %(ranked_topics)s %(embedding_vectors)s
    n_top : int, default 10
        Top words per topic.
    centroid : bool, default False
        Compare the topics' centroids instead of every pair of words.

    Returns
    -------
    Score
        ``we-pairwise-similarity`` or ``we-centroid-similarity``, with ``n_pairs``.

    Raises
    ------
    ParameterError
        If ``n_top`` is invalid or there are fewer than two topics.
    EmptyInputError
        If a topic has no top word with a vector.
    """
    def words_pair(a: list[str], b: list[str]) -> float:
        ua = _unit(vectors, [w for w in a if w in vectors])
        ub = _unit(vectors, [w for w in b if w in vectors])
        return float((ua @ ub.T).mean())

    def centre(words: list[str]) -> np.ndarray:
        return np.mean([vectors.vectors[vectors.index[w]] for w in words if w in vectors], axis=0)

    if CENTROID.check(centroid):
        return _pairwise_measure("we-centroid-similarity", topics, vectors, n_top,
                                 lambda a, b: _cosine(centre(a), centre(b)))
    return _pairwise_measure("we-pairwise-similarity", topics, vectors, n_top, words_pair)
