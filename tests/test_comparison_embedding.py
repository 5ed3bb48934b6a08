"""Word-embedding coherence: the vectors-file reader, hand-computed pairwise and centroid cosines, and
reproducible Word2Vec training (fixed seed, one worker, process-independent hash)."""

from __future__ import annotations

import math
import os
import subprocess
import sys

import numpy as np
import pytest

from tealeaves.comparison import WordVectors, embedding_coherence, read_vectors, train_vectors
from tealeaves.errors import InputFormatError

VECTORS = "3 2\na 1 0\nb 0 1\nc 1 1\n"


def test_read_word2vec_and_glove_files(tmp_path):
    w2v = tmp_path / "v.txt"
    w2v.write_text(VECTORS, encoding="utf-8")
    vec = read_vectors(w2v)
    assert vec.words == ["a", "b", "c"] and vec.dimension == 2 and vec.name == "v"
    glove = tmp_path / "glove.txt"
    glove.write_text("\ufeffa 1.0 0.0\n\nb 0 1e0\nc 1 1\n", encoding="utf-8")  # BOM, blank line, no header
    assert np.array_equal(read_vectors(glove).vectors, vec.vectors)


def test_pairwise_and_centroid_by_hand():
    vec = WordVectors(["a", "b", "c"], np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]), "toy")
    res = embedding_coherence([["a", "b", "c"], ["a", "zzz", "b"]], vec, n_top=3)
    t = res.per_topic
    # cos(a,b) = 0, cos(a,c) = cos(b,c) = 1/sqrt 2: pairwise sqrt(2)/3; centroid (2/3, 2/3): (sqrt 2 + 1)/3
    assert t.loc[0, "pairwise"] == pytest.approx(math.sqrt(2) / 3, abs=1e-15)
    assert t.loc[0, "centroid"] == pytest.approx((math.sqrt(2) + 1) / 3, abs=1e-15)
    # 'zzz' has no vector: counted, left out; a and b: pairwise 0, centroid 1/sqrt 2
    assert t.loc[1, "pairwise"] == pytest.approx(0.0, abs=1e-15)
    assert t.loc[1, "centroid"] == pytest.approx(1 / math.sqrt(2), abs=1e-15)
    assert t.loc[1, "missing"] == "zzz" and res.details["n_missing_words"] == 1
    assert res.value == pytest.approx(math.sqrt(2) / 6)
    assert str(res.signature).startswith("embedding-coherence|vectors=toy|dim=2|top=3|model=topics|")


def test_topic_with_one_known_word_is_unscored():
    vec = WordVectors(["a", "b"], np.eye(2), "toy")
    res = embedding_coherence([["a", "b"], ["a", "q"]], vec, n_top=2)
    assert res.per_topic.loc[1, "pairwise"] is None and res.details["n_unscored"] == 1
    assert res.value == 0.0


DOCS = [["oil", "gas", "price", "crude"], ["bank", "rate", "interest", "money"]] * 40


def test_train_vectors_is_reproducible():
    pytest.importorskip("gensim")
    a = train_vectors(DOCS, vector_size=8, epochs=3, seed=3)
    b = train_vectors(DOCS, vector_size=8, epochs=3, seed=3)
    assert a.words == b.words and np.array_equal(a.vectors, b.vectors)
    assert sorted(a.words) == sorted({w for d in DOCS for w in d})
    assert a.name == "w2v-reference-d8-w5-e3-s3"
    c = train_vectors(DOCS, vector_size=8, epochs=3, seed=4)
    assert not np.array_equal(a.vectors, c.vectors)


def test_train_vectors_does_not_depend_on_the_hash_seed(tmp_path):
    """gensim's default hash (Python's hash) changes with PYTHONHASHSEED; train_vectors' does not."""
    pytest.importorskip("gensim")
    code = ("import numpy as np; from tealeaves.comparison import train_vectors; "
            f"v = train_vectors({DOCS[:2]!r} * 40, vector_size=8, epochs=3, seed=3); "
            "print(np.round(v.vectors, 10).tobytes().hex())")
    outs = []
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        outs.append(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                   check=True).stdout)
    assert outs[0] == outs[1] and outs[0]


def test_embedding_coherence_with_vectors_trained_on_reuters(reuters):
    pytest.importorskip("gensim")
    train = reuters[0].subset(range(1500))
    vec = train_vectors(train, vector_size=50, epochs=5, seed=0, name="reuters-1500")
    oil = ["oil", "crude", "opec", "barrels", "bpd"]
    mixed = ["oil", "dividend", "wheat", "shr", "yen"]
    res = embedding_coherence([oil, mixed], vec, n_top=5)
    assert res.per_topic.loc[0, "pairwise"] > res.per_topic.loc[1, "pairwise"]
    assert "|vectors=w2v-reuters-1500-d50-w5-e5-s0|dim=50|" in str(res.signature)


def test_read_only_the_needed_words(tmp_path):
    path = tmp_path / "v.txt"
    path.write_text(VECTORS, encoding="utf-8")
    vec = read_vectors(path, words=["c", "a", "zzz"])
    assert vec.words == ["a", "c"] and vec.vectors.tolist() == [[1.0, 0.0], [1.0, 1.0]]
    # every line is still checked for its dimension and counted against the header
    path.write_text("3 2\na 1 0\nb 0 1 5\nc 1 1\n", encoding="utf-8")
    with pytest.raises(InputFormatError, match="line 3: the vector of 'b' has 3 values, but the header says"):
        read_vectors(path, words=["a"])
