"""``tealeaves.human.tables.load_tables`` (the reader behind ``human correlate/compare/models``) and those
commands given their measure table by ``--measure-scores`` or its old spelling ``--measures``: empty,
header-only, NaN, huge, non-UTF-8, deeply nested, truncated, a folder, a missing file, wrong-typed
arguments.  A comment "before:" says what the case did before its fix."""

from __future__ import annotations

import json

import pytest

from conftest import DEEP
from tealeaves.errors import (
    CorrelationError,
    InputEncodingError,
    InputNotFoundError,
    ParameterError,
    TealeavesError,
)
from tealeaves.human.tables import load_tables

HUMAN = "topic,model_precision\n0,0.9\n1,0.5\n2,0.7\n3,0.2\n4,0.4\n"
MEASURES = "topic,npmi\n0,0.1\n1,0.2\n2,0.3\n3,0.4\n4,0.5\n"


def _file(tmp_path, name, content: str | bytes):
    path = tmp_path / name
    (path.write_bytes if isinstance(content, bytes) else path.write_text)(content)
    return path


@pytest.mark.parametrize("name, content, cls, fragment", [
    ("e.csv", "", CorrelationError, "cannot read"),
    ("h.csv", "topic,npmi\n", CorrelationError, "has no measure column with"),  # before: "measure(s) []"
    ("n.csv", "topic,npmi\n0,nan\n1,nan\n", CorrelationError, "has no measure column"),
    ("u.csv", b"topic,npmi\n0,\xff\n", InputEncodingError, "is not valid utf-8"),
    ("d.json", DEEP, CorrelationError, "cannot read"),  # before: RecursionError
    ("t.json", '{"topics": [{"topic": "0"', CorrelationError, "cannot read"),
    ("i.json", json.dumps({"topics": 5}), CorrelationError, "has no measure column"),
])
def test_bad_measure_table(tmp_path, name, content, cls, fragment):
    with pytest.raises(cls) as info:
        load_tables(_file(tmp_path, "s.csv", HUMAN), _file(tmp_path, name, content))
    assert fragment in str(info.value)


@pytest.mark.parametrize("name, content, cls, fragment", [
    ("e.csv", "", CorrelationError, "cannot read"),
    ("d.json", DEEP, CorrelationError, "cannot read"),  # before: RecursionError
    ("n.json", json.dumps({"topics": [{"topic": 0, "mean_rating": None}]}), CorrelationError,
     "no human score in"),  # before: "no human score 'None'"
    ("u.csv", b"topic,model_precision\n0,\xff\n", InputEncodingError, "is not valid utf-8"),
])
def test_bad_scores_table(tmp_path, name, content, cls, fragment):
    with pytest.raises(cls) as info:
        load_tables(_file(tmp_path, name, content), _file(tmp_path, "m.csv", MEASURES))
    assert fragment in str(info.value)


@pytest.mark.parametrize("kwargs, cls, fragment", [
    ({"measures": "npmi"}, ParameterError, "got the string 'npmi'"),  # before: measure(s) ['n', 'p', ...]
    ({"measures": ["npmi", "npmi"]}, ParameterError, "lists 'npmi' more than once"),
    ({"measures": ["cv"]}, CorrelationError, "measure(s) ['cv'] not in"),
    ({"score": "nope"}, CorrelationError, "no human score 'nope'"),
    ({"key_sep": ""}, ParameterError, "key_sep must not be empty"),
])
def test_bad_arguments(tmp_path, kwargs, cls, fragment):
    with pytest.raises(cls) as info:
        load_tables(_file(tmp_path, "s.csv", HUMAN), _file(tmp_path, "m.csv", MEASURES), **kwargs)
    assert fragment in str(info.value)


@pytest.mark.parametrize("path, cls, fragment", [
    ("absent.csv", InputNotFoundError, "does not exist"),
    (".", TealeavesError, "is a folder"),
])
def test_missing_or_folder(tmp_path, monkeypatch, path, cls, fragment):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(cls, match=fragment):
        load_tables(_file(tmp_path, "s.csv", HUMAN), path)


def test_huge_finite_values_are_read(tmp_path):
    tables = load_tables(_file(tmp_path, "s.csv", HUMAN),
                         _file(tmp_path, "m.csv", "topic,npmi\n0,1e308\n1,-1e308\n2,1e308\n3,1\n"))
    assert tables.measures["npmi"]["0"] == 1e308


@pytest.mark.parametrize("command", ["correlate", "compare", "models"])
@pytest.mark.parametrize("option", ["--measure-scores", "--measures"])
def test_commands_refuse_a_deeply_nested_table(tmp_path, cli_error, command, option):  # before: exit 70
    human = _file(tmp_path, "s.csv", HUMAN)
    extra = {"correlate": [], "models": ["--measure", "npmi"],
             "compare": ["--measure", "a", "--measure", "b"]}[command]
    cli_error(["human", command, human, option, _file(tmp_path, "d.json", DEEP), *extra], "cannot read")
