"""Bad inputs to `tealeaves human ask`: an endpoint that is not http(s), a study without items, a rating
scale the prompt cannot express, an unknown task, an unknown prompt version or one of a task not asked, an
output that is not a judgment database -- one
`tealeaves: error:` line, no traceback, nothing sent and no database written; through the API, the error
class."""

from __future__ import annotations

import json

import pytest

from conftest import ChatServer
from tealeaves.errors import ChatCacheError, EmptyInputError, ParameterError, StudyError
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
    Study(name="r5", seed=0, settings={}, items=[_rating(list("12345"))]).save(tmp_path / "five.json")
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
        refuse("wi.json", "--prompts", server.url, "--prompts", "stammbach2023-intrusion-v9")
        refuse("wi.json", "not a prompt version", server.url, "--prompts", "stammbach2023-rating-adapted-v1")
        refuse("wi.json", "rating is not asked", server.url, "--tasks", "word_intrusion", "--prompts",
               "stammbach2023-intrusion-nyt-v1,stammbach2023-rating-nyt-v1")
        refuse("wi.json", "--prompts", server.url, "--prompts", "stammbach2023-intrusion-v1,")
        refuse("five.json", "names a 1-3 scale", server.url, "--prompts", "stammbach2023-rating-nyt-v1")
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
        with pytest.raises(ParameterError, match="'nope-v1' is not a prompt version.*intrusion-nyt-v1"):
            call(files / "wi.json", prompts=["nope-v1"])
        with pytest.raises(ParameterError, match="rating is not asked"):
            call(files / "wi.json", tasks=["word_intrusion"], prompts=["stammbach2023-rating-v1"])
        with pytest.raises(ParameterError, match="listed twice"):
            call(files / "wi.json", prompts=["stammbach2023-intrusion-v1", "stammbach2023-intrusion-v1"])
        with pytest.raises(ParameterError, match="empty list"):
            call(files / "wi.json", prompts=[])
        with pytest.raises(StudyError, match="names a 1-3 scale"):
            call(files / "five.json", prompts=["stammbach2023-rating-wikipedia-v1"])
        with pytest.raises(ParameterError, match="n_samples"):
            call(files / "wi.json", n_samples=0)
        assert server.requests == []
    assert not (files / "api.sqlite").exists()


# ------------------------------------------------------------------------------------------------
# the sweep of every input path of `human ask`: settings, files (cache, database, study), bodies,
# answers, two runs at once, Ctrl-C
# ------------------------------------------------------------------------------------------------
def _study_items(n: int = 4) -> list[dict]:
    """``n`` word-intrusion and ``n`` rating items whose words differ per topic (every question distinct)."""
    out = []
    for k in range(n):
        words = [f"w{k}a", f"w{k}b", f"w{k}c"]
        out.append({"id": f"wi-{k}", "task": "word_intrusion", "topic": k, "options": [*words, f"x{k}"],
                    "answer": f"x{k}", "top_words": words, "check": False})
        out.append(rating_item(k, words))
    return out


def _answer(body: dict) -> str:
    """The intruder ``x<k>`` for an intrusion question, the middle rating otherwise."""
    import re

    found = re.findall(r'"(x\d+)"', body["messages"][1]["content"])
    return found[0] if found else "2"


@pytest.fixture
def sweep(tmp_path):
    Study(name="sweep", seed=0, settings={}, items=_study_items()).save(tmp_path / "s.json")
    return tmp_path


def _cli(server, folder, *extra, output="j.sqlite"):
    return ["human", "ask", str(folder / "s.json"), "--endpoint", server.url, "--model", "m",
            "-o", str(folder / output), "--api-key-env", "TEALEAVES_NO_SUCH_KEY_VARIABLE", *map(str, extra)]


def _api(server, folder, **kw):
    args = {"endpoint": server.url, "model": "m", "output": folder / "j.sqlite", "api_key_env": None, **kw}
    return ask(folder / "s.json", **args)


NUMERIC = [  # (option, value, message fragment); each must be refused by the command line (status 2)
    ("--temperature", "nan", "finite"), ("--temperature=-inf", None, "finite"),
    ("--temperature", "3", "<= 2"),
    ("--temperature", "1e308", "<= 2"), ("--temperature", "-1", ">= 0"),
    ("--requests-per-minute", "nan", "finite"), ("--requests-per-minute", "inf", "finite"),
    ("--requests-per-minute", "-1", ">= 0.001"), ("--requests-per-minute", "1e-300", ">= 0.001"),
    ("--max-requests", "-1", ">= 0"), ("--max-requests", "1e30", "whole number"),
    ("--max-requests", "nan", "whole number"),
    ("--time-budget", "nan", "finite"), ("--time-budget", "inf", "finite"), ("--time-budget", "-1", "> 0"),
    ("--time-budget", "0", "> 0"),
    ("--timeout", "nan", "finite"), ("--timeout", "0", "> 0"), ("--timeout", "-1", "> 0"),
    ("--timeout", "1e308", "<= 86400"),
    ("--max-retries", "-1", ">= 0"), ("--max-retries", "1e9", "whole number"),
    ("--max-retries", "101", "<= 100"),
    ("--backoff", "nan", "finite"), ("--backoff", "inf", "finite"), ("--backoff", "-1", ">= 0"),
    ("--backoff", "1e308", "<= 3600"),
    ("--n-jobs", "0", ">= 1"), ("--n-samples", "99999999999999999999", "<= 100"),
]


@pytest.mark.cli_subprocess
def test_ask_cli_numeric_settings_refused(sweep, cli_error):
    """NaN, infinite, negative and huge temperature, rate, budgets, timeout, retries and backoff: one
    usage error naming the option, nothing sent, no file written.  (before: ``--requests-per-minute
    1e-300`` passed and the pacer's wait overflowed: an internal error after the first request.)"""
    with ChatServer(_answer) as server:
        for option, value, fragment in NUMERIC:
            extra = (option,) if value is None else (option, value)
            cli_error(_cli(server, sweep, *extra), fragment, code=2)
            assert sorted(p.name for p in sweep.iterdir()) == ["s.json"], option
        assert server.requests == []


@pytest.mark.parametrize(("name", "value", "fragment"), [
    ("temperature", float("nan"), "finite"), ("temperature", float("inf"), "finite"),
    ("temperature", -0.5, ">= 0"), ("temperature", 1e308, "<= 2"),
    ("requests_per_minute", float("nan"), "finite"), ("requests_per_minute", float("inf"), "finite"),
    ("requests_per_minute", -1.0, ">= 0.001"), ("requests_per_minute", 1e-300, ">= 0.001"),
    ("max_requests", -1, ">= 0"), ("max_requests", float("nan"), "whole number"),
    ("max_requests", 2.5, "whole"),
    ("max_requests", True, "whole number"),
    ("time_budget", float("nan"), "finite"), ("time_budget", float("inf"), "finite"),
    ("time_budget", -1.0, "> 0"),
    ("timeout", float("nan"), "finite"), ("timeout", float("inf"), "finite"), ("timeout", -1.0, "> 0"),
    ("timeout", 1e308, "<= 86400"),
    ("max_retries", -1, ">= 0"), ("max_retries", 10**9, "<= 100"), ("max_retries", float("nan"), "whole"),
    ("backoff", float("nan"), "finite"), ("backoff", float("inf"), "finite"), ("backoff", -1.0, ">= 0"),
    ("backoff", 1e308, "<= 3600"),
    ("n_jobs", 0, ">= 1"), ("n_jobs", 10**6, "<= 256"), ("n_samples", 10**9, "<= 100"),
    ("n_samples", float("nan"), "whole"),
])
def test_ask_api_numeric_settings_refused(sweep, name, value, fragment):
    with ChatServer(_answer) as server:
        with pytest.raises(ParameterError, match=name) as info:
            _api(server, sweep, **{name: value})
        assert fragment in str(info.value)
        assert server.requests == []
    assert not (sweep / "j.sqlite").exists()


def test_ask_huge_budgets_and_rate_mean_no_bound(sweep):
    """The largest finite values are accepted and bound nothing: every item is asked once and stored."""
    with ChatServer(_answer) as server:
        report = _api(server, sweep, requests_per_minute=1e308, time_budget=1e308, max_requests=10**30)
        assert len(server.requests) == 8
    assert (report.counts["asked"], report.counts["stored"], report.counts["not_asked"]) == (8, 8, 0)


def _good_files(server, folder) -> tuple[bytes, bytes]:
    """The bytes of a judgment database and of its cache after one complete run (then both removed)."""
    _api(server, folder, cache=folder / "c.sqlite")
    store, cache = (folder / "j.sqlite").read_bytes(), (folder / "c.sqlite").read_bytes()
    for p in folder.iterdir():
        if p.name != "s.json":
            p.unlink()
    return store, cache


def _flip(data: bytes, at: int) -> bytes:
    return data[:at] + bytes(b ^ 0x5A for b in data[at:at + 64]) + data[at + 64:]


def _other_sqlite(path) -> None:
    import sqlite3

    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE t (x)")


@pytest.mark.cli_subprocess
def test_ask_damaged_or_foreign_cache_refused_before_any_request(sweep, cli_error):
    """A truncated, tampered or non-SQLite cache, a judgment database or another program's SQLite file as the
    cache, a cache in a missing folder, and the judgment database itself as the cache: one clean error,
    nothing sent.  (before: the output given as the cache was found only after every item was asked.)"""
    with ChatServer(_answer) as server:
        _, good = _good_files(server, sweep)
        n_before = len(server.requests)
        cases = [(lambda p: p.write_bytes(good[:len(good) // 2]), "malformed"),
                 (lambda p: p.write_bytes(good[:200]), "malformed"),
                 (lambda p: p.write_bytes(_flip(good, 0)), "not a SQLite database"),
                 (lambda p: p.write_bytes(_flip(good, 100)), "malformed"),
                 (lambda p: p.write_text("hello", encoding="utf-8"), "not a SQLite database"),
                 (lambda p: _other_sqlite(p), "not an answer cache"),
                 (lambda p: p.mkdir(), "is a folder")]
        for prepare, fragment in cases:
            cache = sweep / "c.sqlite"
            prepare(cache)
            cli_error(_cli(server, sweep, "--cache", cache), fragment)
            with pytest.raises(ChatCacheError, match=fragment):
                _api(server, sweep, cache=cache)
            (cache.rmdir() if cache.is_dir() else cache.unlink())
            assert not (sweep / "j.sqlite").exists()
        cli_error(_cli(server, sweep, "--cache", sweep / "no" / "c.sqlite"), "does not exist")
        cli_error(_cli(server, sweep, "--cache", sweep / "j.sqlite"),
                  "is the judgment database (output) itself")
        with pytest.raises(ParameterError, match="itself"):
            _api(server, sweep, cache=sweep / "j.sqlite")
        (sweep / "j.sqlite").write_bytes(b"")  # an empty judgment database as the cache too
        with pytest.raises(ParameterError, match="itself"):
            _api(server, sweep, cache=str(sweep / "." / "j.sqlite"))
        store_as_cache = sweep / "other.sqlite"
        _api(server, sweep, output=store_as_cache, cache=sweep / "c2.sqlite")
        sent = len(server.requests)
        with pytest.raises(ChatCacheError, match="not an answer cache"):
            _api(server, sweep, cache=store_as_cache, output=sweep / "fresh.sqlite")
        assert len(server.requests) == sent and sent == n_before + 8


def test_ask_cache_of_another_model_or_endpoint_is_not_reused(sweep):
    """A cache filled for model m at one endpoint answers nothing for model m2, nor for m at another
    endpoint: each asks every item (its own annotators); m at the first endpoint then asks nothing."""
    cache = sweep / "c.sqlite"
    with ChatServer(_answer) as first, ChatServer(_answer) as second:
        _api(first, sweep, cache=cache)
        other_model = _api(first, sweep, cache=cache, model="m2")
        other_host = _api(second, sweep, cache=cache)
        again = _api(first, sweep, cache=cache)
        assert len(first.requests) == 16 and len(second.requests) == 8
    assert (other_model.counts["asked"], other_model.counts["cached"]) == (8, 0)
    assert (other_host.counts["asked"], other_host.counts["cached"]) == (8, 0)
    assert all("llm:m2@" in a for a in other_model.annotators)
    assert {a.split("@")[1].split("/")[0] for a in other_host.annotators} == {second.url.split("/")[2]}
    assert (again.counts["asked"], again.counts["cached"], again.counts["stored"]) == (0, 8, 0)


@pytest.mark.cli_subprocess
def test_ask_damaged_or_foreign_database_refused_before_any_request(sweep, cli_error):
    """A truncated, tampered or non-SQLite output, an answer cache or another SQLite file as the output, a
    database of another study, and one whose language-model metadata was edited: one clean error and no
    request.  (before: each was found only after every item had been asked.)"""
    import sqlite3

    from tealeaves.errors import StoreError

    with ChatServer(_answer) as server:
        good, cache = _good_files(server, sweep)
        sent = len(server.requests)
        out = sweep / "j.sqlite"

        def edited_meta(p):
            p.write_bytes(good)
            with sqlite3.connect(p) as db:
                db.execute("UPDATE meta SET value='{not json' WHERE key LIKE 'llm_annotator:%'")

        def other_study(p):
            Study(name="other", seed=1, settings={}, items=_study_items(2)[:1]).save(sweep / "o.json")
            ask(sweep / "o.json", endpoint=server.url, model="m", output=p, api_key_env=None,
                cache=sweep / "o-cache.sqlite")

        cases = [(lambda p: p.write_bytes(good[:len(good) // 2]), "malformed"),
                 (lambda p: p.write_bytes(_flip(good, 0)), "not a SQLite database"),
                 (lambda p: p.write_bytes(good[:-100] + _flip(good[-100:], 0)), "corrupt"),
                 (lambda p: p.write_text("hello", encoding="utf-8"), "not a SQLite database"),
                 (lambda p: p.write_bytes(cache), "not a tealeaves judgment database"),
                 (_other_sqlite, "not a tealeaves judgment database"),
                 (lambda p: p.mkdir(), "is a folder"),
                 (edited_meta, "is not what `tealeaves human ask` writes"),
                 (other_study, "another study")]
        for prepare, fragment in cases:
            prepare(out)
            sent = len(server.requests)
            cli_error(_cli(server, sweep), fragment)
            with pytest.raises(StoreError, match=fragment.replace("`", ".")):
                _api(server, sweep)
            assert len(server.requests) == sent, fragment
            (out.rmdir() if out.is_dir() else out.unlink())
            for p in sweep.glob("j.sqlite*"):
                p.unlink()
        cli_error(_cli(server, sweep, output="no/j.sqlite"), "does not exist")
        assert len(server.requests) == sent


@pytest.mark.cli_subprocess
def test_ask_truncated_or_tampered_study_refused(sweep, cli_error):
    from tealeaves.errors import InputEncodingError, StudyFormatError

    text = (sweep / "s.json").read_text(encoding="utf-8")
    study = json.loads(text)
    with ChatServer(_answer) as server:
        cases = [(text[:0], StudyFormatError, "not valid JSON"), (text[: len(text) // 3], StudyFormatError,
                                                                   "not valid JSON"),
                 (text[:-2], StudyFormatError, "not valid JSON"),
                 (text.replace('"options"', '"optionz"', 1), StudyFormatError, "options must be"),
                 (text.replace('"word_intrusion"', '"word_intrusionX"', 1), StudyFormatError, "task must be"),
                 (json.dumps({**study, "items": [{**study["items"][0], "options": ["a", "a", "b"]}]}),
                  StudyFormatError, "distinct"),
                 (json.dumps({**study, "items": [study["items"][0], {**study["items"][1],
                                                                      "id": study["items"][0]["id"]}]}),
                  StudyFormatError, "unique")]
        for content, error, fragment in cases:
            (sweep / "s.json").write_text(content, encoding="utf-8")
            cli_error(_cli(server, sweep), fragment)
            with pytest.raises(error, match=fragment):
                _api(server, sweep)
        (sweep / "s.json").write_bytes(text.encode()[:30] + b"\xff\xfe" + text.encode()[32:])
        cli_error(_cli(server, sweep), "not valid utf-8")
        with pytest.raises(InputEncodingError):
            _api(server, sweep)
        assert server.requests == []
    assert not (sweep / "j.sqlite").exists()


class RawServer(ChatServer):
    """The tests' server, able to send a body that is not UTF-8 (``("text", bytes)``)."""

    @staticmethod
    def _send(handler, status: int, text, headers: dict | None = None) -> None:
        data = text if isinstance(text, bytes) else text.encode("utf-8")
        try:
            handler.send_response(status)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(len(data)))
            handler.end_headers()
            handler.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass


def _content(text: str) -> str:
    return json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": text}}]})


@pytest.mark.parametrize(("body", "outcome"), [
    ("x" * (16 * 1024 * 1024 + 10), "failed: response over 16777216 bytes"),
    ('{"choices": []}', "failed: the response has no choices[0].message.content"),
    ('{"choices": null}', "failed: the response has no choices[0].message.content"),
    ('{"choices": [{"message": {"content": NaN}}]}', "failed: choices[0].message.content is float"),
    (b"\xff\xfe\x00garbage", "failed: malformed JSON"),
    (b'{"choices": [{"message": {"content": "x0\xff"}}]}', "unusable: not_an_option"),
    ("[" * 100_000 + "]" * 100_000, "failed: malformed JSON"),
], ids=["huge", "choices-empty", "choices-null", "content-nan", "not-utf8", "answer-not-utf8", "deep"])
def test_ask_endpoint_body_fails_only_its_item(sweep, body, outcome):
    """A body over 16 MiB, ``choices: []``, a body that is not UTF-8, nested 100,000 deep: that item fails
    (or is unusable) with its reason, the other seven are stored, and a rerun asks that item alone.
    (before: the deep body raised RecursionError through the transport: an internal error.)"""
    with RawServer(_answer, faults={1: ("text", body)}) as server:
        report = _api(server, sweep, n_jobs=1, max_retries=0)
        kind, reason = outcome.split(": ", 1)
        rows = report.failed if kind == "failed" else report.unusable
        assert len(rows) == 1 and reason in (rows[0].get("error") or rows[0].get("reason")), rows
        assert report.counts["stored"] == 7
        again = _api(server, sweep)
        assert len(server.requests) == 8 + (kind == "failed")  # a failure is asked again, an answer is not
    assert again.counts["stored"] == (1 if kind == "failed" else 0)


@pytest.mark.cli_subprocess
def test_ask_cli_deep_body_is_a_failed_item(sweep, run_cli):
    with ChatServer(_answer, faults={1: ("text", "[" * 100_000 + "]" * 100_000)}) as server:
        run = run_cli(_cli(server, sweep, "-j", "1", "--max-retries", "0", "--format", "json"))
    assert run.code == 0, run.err
    report = json.loads(run.out)
    assert report["counts"]["failed"] == 1 and report["counts"]["stored"] == 7
    assert "malformed JSON" in report["failed"][0]["error"]


def test_ask_long_unusable_reply_kept_to_its_first_characters(sweep):
    """A 2 MB reply that is no option: the report and the database's metadata keep its first
    ``RAW_KEPT`` characters and its length, not the whole reply.  (before: the whole reply, each time.)"""
    from tealeaves.human.llm.ask import RAW_KEPT
    from tealeaves.human.llm.meta import annotator_metadata

    long = "x0 is the intruder because " * 80_000
    with ChatServer(_answer, faults={1: ("text", _content(long))}) as server:
        report = _api(server, sweep, n_jobs=1)
    (row,) = report.unusable
    assert row["raw"] == long[:RAW_KEPT] and row["raw_length"] == len(long)
    kept = annotator_metadata(sweep / "j.sqlite")[row["annotator"]]["unusable"][row["item_id"]]
    assert kept == {"reason": "not_an_option", "raw": long[:RAW_KEPT], "raw_length": len(long)}
    assert (sweep / "j.sqlite").stat().st_size < 200_000


@pytest.mark.parametrize(("reply", "read"), [
    ("x0", "x0"), ("  x0 \n", "x0"), ("X0", "x0"), ('"x0"', "x0"), ("**x0**", "x0"), ("*x0*", "x0"),
    ("__x0__", "x0"), ("`x0`", "x0"), ("```\nx0\n```", "x0"), ("x0.", "x0"), ("\u00a0x0\u00a0", "x0"),
    ("x0\u200b", "x0"), ("\ufeffx0", "x0"),
    ("_w0a", "_w0a"),  # an option that begins with a Markdown mark is read whole first
    ("x0\n\nBecause it does not fit.", None), ("Answer: x0", None), ("X0!", None), ("<b>x0</b>", None),
    ("x0, w0a", None),
])
def test_ask_reply_with_white_space_or_markdown(reply, read):
    """White space, quotes, Markdown emphasis and code, zero-width characters around the answer are read
    as the answer; anything said beside it is unusable (strict reading).  (before: ``__x0__`` and a
    zero-width space were unusable.)"""
    from tealeaves.human.llm import prompts as pr

    item = {"id": "wi-0", "task": "word_intrusion", "topic": 0, "options": ["w0a", "_w0a", "w0c", "x0"]}
    answer = pr.parse_answer(pr.question(item, seed=0, sample=0), reply)
    assert answer.response == read and answer.raw == reply


@pytest.mark.parametrize(("reply", "read"), [
    ("2", "1"), (" 2 \n", "1"), ("**2**", "1"), ("`2`", "1"), ("2.", "1"), ("2.0", None), ("02", None),
    ("two", None), ("2/3", None), ("Rating: 2", None), ("+2", None),
])
def test_ask_rating_reply_with_white_space_or_markdown(reply, read):
    from tealeaves.human.llm import prompts as pr

    answer = pr.parse_answer(pr.question(rating_item(0, ["a", "b", "c"]), seed=0, sample=0), reply)
    assert answer.response == read


def _spawn(server, folder, *extra):
    import os
    import subprocess
    import sys

    from conftest import REPO

    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    env.pop("TEALEAVES_DEBUG", None)
    argv = _cli(server, folder, "-j", "2", "--n-samples", "3", "--format", "json", *extra)
    return subprocess.Popen([sys.executable, "-m", "tealeaves", *argv],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _judgments(path) -> list[tuple]:
    import sqlite3

    with sqlite3.connect(path) as db:
        return db.execute("SELECT annotator, item_id, response FROM judgments").fetchall()


def _wait_for(server, n: int, seconds: float = 60.0) -> None:
    import time

    end = time.monotonic() + seconds
    while len(server.answered) < n:
        assert time.monotonic() < end, f"the server answered {len(server.answered)} requests, not {n}"
        time.sleep(0.01)


def _asked(server) -> list[str]:
    """Each answered question: its messages and sample (seed)."""
    return [json.dumps(b["messages"]) + f"/s{b.get('seed')}" for b in server.answered]


def test_ask_two_runs_at_once_on_one_cache_and_database(sweep):
    """Two `human ask` on the same cache and database at once: the second is refused with one clean line
    while the first holds the cache; nothing is asked twice, nothing lost, nothing stored twice, and a
    third run afterwards sends nothing.  (before: both asked every item.)"""
    import threading

    gate = threading.Event()  # the first run's answers after its second wait until the second run ended

    def held(body: dict) -> str:
        if len(server.answered) >= 2:
            gate.wait(120)
        return _answer(body)

    with ChatServer(held) as server:
        first = _spawn(server, sweep)
        _wait_for(server, 2)
        second = _spawn(server, sweep)
        out2, err2 = second.communicate(timeout=120)
        gate.set()
        out1, err1 = first.communicate(timeout=120)
        assert first.returncode == 0, err1
        assert second.returncode == 1 and out2 == ""
        assert err2.strip().splitlines() == [err2.strip()]
        assert err2.startswith("tealeaves: error: answer cache")
        assert "is in use by another run" in err2 and "Traceback" not in err2
        third = _spawn(server, sweep)
        out3, err3 = third.communicate(timeout=120)
        assert third.returncode == 0, err3
        assert len(_asked(server)) == len(set(_asked(server))) == 24
    assert json.loads(out1)["counts"]["stored"] == 24
    assert json.loads(out3)["counts"] == {**json.loads(out3)["counts"], "asked": 0, "cached": 24, "stored": 0,
                                          "duplicate": 24}
    rows = _judgments(sweep / "j.sqlite")
    assert len(rows) == len({r[:2] for r in rows}) == 24


@pytest.mark.parametrize("when", [0.5, 2, 10], ids=["starting", "after-2-answers", "after-10-answers"])
def test_ask_interrupted_keeps_every_answer_and_resumes(sweep, when):
    """Ctrl-C while the command starts (0.5 s: importing), and after 2 and 10 answers: exit status 130,
    one line ``tealeaves: error: interrupted (Ctrl-C); ...``, nothing printed; every answer received is in
    the cache, so the rerun asks only the rest (an answer in flight at the signal, at most ``-j``, may be
    asked again) and stores every judgment once."""
    import signal
    import time

    from tealeaves._interrupt import MESSAGE

    with ChatServer(_answer, delay=0.15) as server:
        run = _spawn(server, sweep)
        if isinstance(when, float):
            time.sleep(when)
        else:
            _wait_for(server, when)
        run.send_signal(signal.SIGINT)
        out, err = run.communicate(timeout=60)
        assert run.returncode == 130, err
        assert out == "" and err == f"tealeaves: error: {MESSAGE}\n"
        before = set(_asked(server))
        rerun = _spawn(server, sweep)
        out2, err2 = rerun.communicate(timeout=120)
        assert rerun.returncode == 0, err2
        after = _asked(server)[len(before):] if len(_asked(server)) > len(before) else []
    counts = json.loads(out2)["counts"]
    assert counts["cached"] + counts["asked"] == 24 and counts["stored"] == 24
    assert len(before) - 2 <= counts["cached"] <= len(before)  # at most -j answers were in flight
    assert len(set(after) & before) <= len(before) - counts["cached"]
    assert sorted(set(_asked(server))) == sorted(set(before) | set(after)) and len(set(_asked(server))) == 24
    rows = _judgments(sweep / "j.sqlite")
    assert len(rows) == len({r[:2] for r in rows}) == 24
