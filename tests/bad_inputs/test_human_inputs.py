"""The study inputs read from files (``tealeaves.human.inputs``) and ``build_study`` given paths or arrays:
truncated, empty, NaN, complex, huge, wrong-typed, non-UTF-8, deeply nested, a folder, a missing file.

API cases assert the error class and a fragment; CLI cases the exit code and a fragment.  A comment
"before:" says what the case did before its fix."""

from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import DEEP
from tealeaves.errors import (
    InputEncodingError,
    InputFormatError,
    InputNotFoundError,
    ParameterError,
    TealeavesError,
)
from tealeaves.human import inputs
from tealeaves.human.items import StudyError
from tealeaves.human.study import build_study
from tealeaves.models.base import FixedTopicModel

RECORDS = "".join(json.dumps({"title": f"t{i}", "text": "x"}) + "\n" for i in range(3))


def _model() -> FixedTopicModel:
    phi = np.random.default_rng(0).dirichlet(np.full(80, 0.05), size=6)
    return FixedTopicModel(phi, [f"w{i}" for i in range(80)])


def _npy(tmp_path, array, name="t.npy"):
    np.save(tmp_path / name, array, allow_pickle=True)
    return tmp_path / name


def _file(tmp_path, content: str | bytes, name="f"):
    path = tmp_path / name
    (path.write_bytes if isinstance(content, bytes) else path.write_text)(content)
    return path


# -- load_doc_topic ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("make, cls, fragment", [
    (lambda p: _file(p, _npy(p, np.ones((3, 2))).read_bytes()[:100], "c.npy"), InputFormatError,
     "is not a .npy array"),
    (lambda p: _file(p, b"", "e.npy"), InputFormatError, "is not a .npy array"),
    (lambda p: _npy(p, np.array([[np.nan, 1.0]])), InputFormatError, "finite numbers"),
    (lambda p: _npy(p, np.array([[np.inf, 1.0]])), InputFormatError, "finite numbers"),
    (lambda p: _npy(p, np.array([["a", "b"]])), InputFormatError, "of <U1"),
    (lambda p: _npy(p, np.array([1.0, 2.0])), InputFormatError, "got shape (2,)"),
    (lambda p: _npy(p, np.array([[True, False]])), InputFormatError, "of bool"),
    (lambda p: _npy(p, np.array([[1 + 1j, 2]])), InputFormatError, "of complex128"),  # before: accepted
    (lambda p: _npy(p, np.array([[1, 2]], dtype=object)), InputFormatError, "allow_pickle"),
    (lambda p: _file(p, RECORDS, "d.jsonl"), InputFormatError, "is not a .npy array"),
    (lambda p: p / "absent.npy", InputNotFoundError, "does not exist"),
    (lambda p: p, TealeavesError, "is a folder"),
])
def test_load_doc_topic(tmp_path, make, cls, fragment):
    with pytest.raises(cls) as info:
        inputs.load_doc_topic(make(tmp_path))
    assert fragment in str(info.value) and info.value.param == "doc_topic"


def test_load_doc_topic_reads_integers_and_huge_finite_values(tmp_path):
    assert inputs.load_doc_topic(_npy(tmp_path, np.full((2, 3), 1e308))).shape == (2, 3)
    assert inputs.load_doc_topic(_npy(tmp_path, np.ones((2, 3), dtype=int))).dtype.kind == "i"


# -- load_documents -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("content, cls, fragment", [
    ('{"title": "a", "te', InputFormatError, "line 1 is not JSON"),
    (b'{"title": "\xff\xfe", "text": "x"}\n', InputEncodingError, "is not valid utf-8"),
    ("[1,2]\n", InputFormatError, "must be an object with string 'title' and 'text'"),
    ('{"title": 1, "text": "x"}\n', InputFormatError, "must be an object with string 'title'"),
    ('{"title": "a", "text": "x", "id": 1}\n{"title": "b", "text": "y", "id": "1"}\n', ParameterError,
     "lists '1' more than once"),
    ('{"title": "a", "text": "x", "id": NaN}\n' * 2, ParameterError, "lists 'nan' more than once"),
    ('{"title": "a", "text": "x", "id": ' + "9" * 5000 + "}\n", InputFormatError, "is not JSON"),
    # before: RecursionError
    ('{"title": "a", "text": "x", "id": ' + DEEP + "}\n", InputFormatError, "is not JSON"),
])
def test_load_documents(tmp_path, content, cls, fragment):
    with pytest.raises(cls, match=None) as info:
        inputs.load_documents(_file(tmp_path, content, "d.jsonl"))
    assert fragment in str(info.value)


@pytest.mark.parametrize("documents, n_rows, cls, fragment", [
    ("absent.jsonl", None, InputNotFoundError, "does not exist"),
    (".", None, TealeavesError, "is a folder"),
    (5, None, ParameterError, "got int"),
    ({"title": "a"}, None, ParameterError, "got dict"),
    ([], 3, InputFormatError, "has 0 records but `doc_topic` 3 rows"),
    ([{"title": "a", "text": None}], None, InputFormatError, "string 'title' and 'text'"),
])
def test_load_documents_arguments(tmp_path, monkeypatch, documents, n_rows, cls, fragment):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(cls) as info:
        inputs.load_documents(documents, n_rows)
    assert fragment in str(info.value)


def test_load_documents_empty_file_and_row_count(tmp_path):
    assert inputs.load_documents(_file(tmp_path, "", "d.jsonl"))["titles"] == []
    with pytest.raises(InputFormatError, match="has 3 records but `doc_topic` 2 rows"):
        inputs.load_documents(_file(tmp_path, RECORDS, "d.jsonl"), n_rows=2)


# -- load_multilingual ------------------------------------------------------------------------------
@pytest.mark.parametrize("content, cls, fragment", [
    ("", InputFormatError, "is not JSON"),
    ('{"en": [["a", ""]]}', InputFormatError, "an object {language: [[word, ...], ...]} with"),
    ("[]", InputFormatError, "one non-empty list of words"),
    ('{"en": NaN}', InputFormatError, "one non-empty list of words"),
    (b'{"en": [["\xff"]]}', InputEncodingError, "is not valid utf-8"),
    (DEEP, InputFormatError, "is not JSON"),  # before: RecursionError
])
def test_load_multilingual(tmp_path, content, cls, fragment):
    with pytest.raises(cls) as info:
        inputs.load_multilingual(_file(tmp_path, content, "m.json"))
    assert fragment in str(info.value)


@pytest.mark.parametrize("content, fragment", [
    ("{}", "needs at least two languages, got []"),
    ('{"en": [["a", "b"]]}', "needs at least two languages, got ['en']"),
    ('{"en": [["a", "b"]], "fr": [["c", "d"], ["e"]]}', "the same number of topics"),
])
def test_build_study_multilingual_file(tmp_path, content, fragment):
    with pytest.raises(StudyError, match=None) as info:
        build_study(tasks=["multilingual_rating"], multilingual=_file(tmp_path, content, "m.json"))
    assert fragment in str(info.value)


# -- build_study with doc_topic given as a path or in memory -----------------------------------------
@pytest.mark.parametrize("doc_topic, fragment", [
    (np.full((3, 6), np.nan), "finite real numbers"),  # before: "the study has no items"
    (np.full((3, 6), np.inf), "finite real numbers"),  # before: "the study has no items"
    ([["a"] * 6] * 3, "of <U1"),  # before: ValueError could not convert string to float
    (np.full((3, 6), 1j), "of complex128"),  # before: imaginary part dropped, no items
    ([[1, 2], [3]], "got shape ()"),  # before: ValueError inhomogeneous shape
    (np.array([[None] * 6] * 3), "of object"),  # before: "the study has no items"
    (np.zeros((0, 6)), "got shape (0, 6)"),
    (5, "got shape ()"),  # before (with documents): TypeError object of type 'int' has no len()
])
def test_build_study_bad_doc_topic(doc_topic, fragment):
    with pytest.raises(StudyError) as info:
        build_study(_model(), tasks=["topic_intrusion"], doc_topic=doc_topic, titles=["a"] * 3,
                    texts=["b"] * 3)
    assert fragment in str(info.value)


def test_build_study_unsized_doc_topic_with_documents(tmp_path):
    with pytest.raises(StudyError, match="got shape"):  # before: TypeError
        build_study(_model(), tasks=["topic_intrusion"], doc_topic=5,
                    documents=_file(tmp_path, RECORDS, "d.jsonl"))


@pytest.mark.parametrize("make, cls, fragment", [
    (lambda p: {"doc_topic": _npy(p, np.full((3, 6), 1 / 6) + 0j)}, InputFormatError, "complex128"),
    (lambda p: {"doc_topic": _npy(p, np.full((3, 3), 1 / 3))}, StudyError, "3 columns but the model 6"),
    (lambda p: {"doc_topic": _npy(p, np.zeros((3, 0)))}, StudyError, "0 columns but the model 6"),
    (lambda p: {"documents": _file(p, '{"a": ' + DEEP + "}\n", "d2.jsonl")}, InputFormatError, "not JSON"),
    (lambda p: {"documents": p}, TealeavesError, "is a folder"),
    (lambda p: {"documents": None}, ParameterError, "doc_topic needs `documents`"),
    (lambda p: {"titles": ["a"] * 3, "texts": ["b"] * 3}, ParameterError, "not both"),
])
def test_build_study_paths(tmp_path, make, cls, fragment):
    kwargs = {"doc_topic": _npy(tmp_path, np.full((3, 6), 1 / 6), "ok.npy"),
              "documents": _file(tmp_path, RECORDS, "d.jsonl"), **make(tmp_path)}
    with pytest.raises(cls) as info:
        build_study(_model(), tasks=["topic_intrusion"], **kwargs)
    assert fragment in str(info.value)


def test_build_study_from_files_equals_in_memory(tmp_path):
    theta = np.random.default_rng(1).dirichlet(np.ones(6), size=3)
    from_files = build_study(_model(), tasks=["topic_intrusion"], doc_topic=_npy(tmp_path, theta),
                             documents=_file(tmp_path, RECORDS, "d.jsonl"))
    in_memory = build_study(_model(), tasks=["topic_intrusion"], doc_topic=theta, titles=["t0", "t1", "t2"],
                            texts=["x"] * 3)
    assert from_files.items == in_memory.items


# -- through the command line -------------------------------------------------------------------------------
@pytest.mark.parametrize("setup, fragment", [
    (lambda p: ["--doc-topic", _npy(p, np.full((3, 6), 1j))], "complex128"),
    (lambda p: ["--doc-topic", _npy(p, np.full((3, 6), 1 / 6)), "--documents",
                _file(p, '{"a": ' + DEEP + "}\n", "deep.jsonl")], "is not JSON"),  # before: exit 70
    (lambda p: ["--doc-topic", p], "is a folder"),
])
def test_build_study_cli(tmp_path, cli_error, setup, fragment):
    _model().save(tmp_path / "model.npz")
    cli_error(["human", "build-study", tmp_path / "model.npz", "-o", tmp_path / "s.json", "--tasks",
               "topic_intrusion", *setup(tmp_path)], fragment)
    assert not (tmp_path / "s.json").exists()


def test_build_study_multilingual_deep_json_cli(tmp_path, cli_error):  # before: exit 70 (RecursionError)
    _model().save(tmp_path / "model.npz")
    cli_error(["human", "build-study", tmp_path / "model.npz", "-o", tmp_path / "s.json", "--tasks",
               "multilingual_rating",
               "--multilingual", _file(tmp_path, DEEP, "m.json")], "is not JSON")
