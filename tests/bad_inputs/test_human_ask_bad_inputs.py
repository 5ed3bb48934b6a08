"""Bad inputs to `tealeaves human ask`: an endpoint that is not http(s), a study without items, a rating
scale the prompt cannot express, an unknown task, an output that is not a judgment database -- one
`tealeaves: error:` line, no traceback, nothing sent and no database written; through the API, the error
class."""

from __future__ import annotations

import json

import pytest

from conftest import ChatServer
from tealeaves.errors import EmptyInputError, ParameterError, StudyError
from tealeaves.human import Study
from tealeaves.human.items import rating_item
from tealeaves.human.llm.ask import ask

WI = {"id": "wi-0", "task": "word_intrusion", "topic": 0, "options": ["a", "b", "c", "x"], "answer": "x",
      "top_words": ["a", "b", "c"], "check": False}


def _rating(options: list[str]) -> dict:
    return {**rating_item(0, ["a", "b", "c"]), "options": options}


@pytest.fixture
def files(tmp_path):
    Study(name="wi", seed=0, settings={}, items=[WI]).save(tmp_path / "wi.json")
    Study(name="r11", seed=0, settings={}, items=[_rating([str(v) for v in range(1, 12)])]).save(
        tmp_path / "eleven.json")
    Study(name="rhalf", seed=0, settings={}, items=[_rating(["0", "0.5", "1"])]).save(tmp_path / "half.json")
    Study(name="checks", seed=0, settings={}, items=[{**WI, "id": "check-0", "check": True,
                                                      "expected": ["x"]}]).save(tmp_path / "checks.json")
    (tmp_path / "empty.json").write_text(json.dumps({"format": "tealeaves-study", "format_version": 1,
                                                     "name": "none", "items": []}), encoding="utf-8")
    return tmp_path


@pytest.mark.cli_subprocess
def test_ask_cli_refusals(files, cli_error):
    with ChatServer(lambda body: "x") as server:
        def refuse(study: str, fragment: str, *extra: str) -> None:
            out = files / "j.sqlite"
            cli_error(["human", "ask", str(files / study), "--endpoint", extra[0] if extra else server.url,
                       "--model", "m", "-o", str(out), *extra[1:]], fragment)
            assert not out.exists()

        refuse("wi.json", "--endpoint", "ftp://127.0.0.1/v1")
        refuse("wi.json", "not an http:// or https:// url", "file:///etc/passwd")
        refuse("empty.json", "no items")
        refuse("eleven.json", "cannot be put to a language model")
        refuse("half.json", "consecutive whole numbers")
        refuse("checks.json", "no item to ask")
        refuse("wi.json", "--tasks", server.url, "--tasks", "word_intrusion,colour")
        refuse("wi.json", "--tasks", server.url, "--tasks", "multilingual_rating")
        cli_error(["human", "ask", str(files / "wi.json"), "--endpoint", server.url, "--model", "m",
                   "-o", str(files / "j.csv")], "judgment database")
        cli_error(["human", "ask", str(files / "wi.json"), "--endpoint", server.url, "--model", "m",
                   "-o", str(files / "j.sqlite"), "--n-samples", "0"], "--n-samples", code=2)
        cli_error(["human", "ask", str(files / "wi.json"), "--endpoint", server.url, "--model", "m",
                   "-o", str(files / "j.sqlite"), "--temperature", "3"], "--temperature", code=2)
        assert server.requests == []


def test_ask_api_refusals(files):
    with ChatServer(lambda body: "x") as server:
        def call(study, **kw):
            args = {"endpoint": server.url, "model": "m", "output": files / "api.sqlite", **kw}
            return ask(study, **args)

        with pytest.raises(ParameterError, match="endpoint"):
            call(files / "wi.json", endpoint="ftp://127.0.0.1/v1")
        with pytest.raises(EmptyInputError, match="no items"):
            call(files / "empty.json")
        with pytest.raises(StudyError, match="cannot be put to a language model"):
            call(Study.load(files / "eleven.json"))
        with pytest.raises(StudyError, match="consecutive whole numbers"):
            call(files / "half.json")
        with pytest.raises(ParameterError, match="no prompt for"):
            call(files / "wi.json", tasks=["colour"])
        with pytest.raises(ParameterError, match="model"):
            call(files / "wi.json", model="  ")
        with pytest.raises(ParameterError, match="n_samples"):
            call(files / "wi.json", n_samples=0)
        assert server.requests == []
    assert not (files / "api.sqlite").exists()
