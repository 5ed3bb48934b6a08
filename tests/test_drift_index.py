"""Meaning drift fitted from saved reference folders (indices only) equals drift fitted from the texts,
on real Bible text: the documents' token sequences are rebuilt from the index's positions."""

from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import require_data
from tealeaves.multilingual.drift import MeaningDrift


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """The built-in Bible (poor) and UDHR (rich) references, and the same saved and loaded back."""
    require_data("bible/ebible/eng-engwebp.txt")
    require_data("parallel/udhr/eng.articles.jsonl")
    from tealeaves.multilingual.aligned_files import load_aligned_reference, save_aligned_reference
    from tealeaves.multilingual.reference import named_reference

    folder = tmp_path_factory.mktemp("refs")
    poor, rich = named_reference("bible", ["en", "sv"]), named_reference("udhr", ["en", "sv"])
    save_aligned_reference(poor, folder / "bible")
    save_aligned_reference(rich, folder / "udhr")
    loaded = load_aligned_reference(folder / "bible"), load_aligned_reference(folder / "udhr")
    return poor, rich, *loaded, folder


def test_rebuilt_documents_equal_the_indexed_texts(saved):
    poor, _, loaded, _, _ = saved
    assert loaded.corpus is None
    text, rebuilt = poor.corpus.language("en"), loaded.language_corpus("en")
    assert rebuilt.ids == text.ids and len(rebuilt) == 1188
    assert np.array_equal(rebuilt.offsets, text.offsets)
    for a, b in zip(rebuilt, text, strict=True):
        assert rebuilt.vocabulary.decode(a) == text.vocabulary.decode(b)


def test_drift_from_indices_equals_drift_from_texts(saved):
    poor, rich, lpoor, lrich, _ = saved
    index = poor.index.indices["en"]
    frequent = np.argsort(-index.document_frequencies(), kind="stable")[:300]  # the commonest Bible words
    rng = np.random.default_rng(0)
    rare = rng.choice(index.n_words, 100, replace=False)
    words = [index.vocabulary[int(i)] for i in [*frequent, *rare]] + ["internet", "zzzz", "rights"]
    by_text = MeaningDrift(window=5).fit(poor.corpus.language("en"), rich.corpus.language("en"))
    by_index = MeaningDrift(window=5).fit(lpoor.index.indices["en"], lrich.index.indices["en"])
    assert by_index.context_vocabulary_ == by_text.context_vocabulary_
    a, b = by_text.similarity(words), by_index.similarity(words)
    assert np.array_equal(a, b)  # bitwise: the same integer context counts
    assert (a > 0).sum() > 50 and (a == 0).sum() > 0  # words with evidence, and missing ones
    assert by_index.features(words[:10]) == by_text.features(words[:10])


def test_estimator_features_drift_from_folders_equals_builtins(saved, tmp_path, run_cli):
    """The refusal is lifted: ``--drift-rich FOLDER`` with a ``--reference FOLDER`` gives the same table
    as the built-in names."""
    _, _, _, _, folder = saved
    topics = tmp_path / "t.json"
    en = [["god", "lord", "people", "king"], ["rights", "freedom", "law", "all"]]
    sv = [["gud", "herren", "folket", "kungen"], ["rätt", "frihet", "lag", "alla"]]
    topics.write_text(json.dumps({"en": en, "sv": sv}), encoding="utf-8")
    import pandas as pd

    tables = []
    for ref, rich, name in ((folder / "bible", folder / "udhr", "f.csv"), ("bible", "udhr", "b.csv")):
        r = run_cli(["estimator", "features", topics, "--reference", ref, "--drift-rich", rich, "--top", "4",
                     "-o", tmp_path / name])
        assert r.code == 0, r.err
        tables.append(pd.read_csv(tmp_path / name, comment="#"))
    assert tables[0]["drift_mean"].tolist() == tables[1]["drift_mean"].tolist()
    assert tables[0]["drift_std"].tolist() == tables[1]["drift_std"].tolist()
    assert tables[0]["drift_mean"].notna().all() and (tables[0]["drift_mean"] > 0).any()


def test_restricted_index_is_refused():
    from tealeaves.errors import InputFormatError
    from tealeaves.index import index_from_token_lists
    from tealeaves.multilingual.reference import index_corpus

    full = index_from_token_lists([["a", "b", "a"], ["c"]])
    assert [full.vocabulary.decode(d) for d in index_corpus(full)] == [["a", "b", "a"], ["c"]]
    restricted = index_from_token_lists([["a", "b", "a"], ["c"]], words=["a"])
    with pytest.raises(InputFormatError, match="a restricted index"):
        index_corpus(restricted)
