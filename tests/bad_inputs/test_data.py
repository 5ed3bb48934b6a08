"""Bad inputs to ``tealeaves data`` and the data locator: each gives a clean, specific error."""

from __future__ import annotations

import hashlib

import pytest

from tealeaves import data
from tealeaves.data import fetch as fetch_mod
from tealeaves.data import registry
from tealeaves.errors import DataNotFoundError, OutputError, ParameterError


@pytest.fixture
def fresh(monkeypatch, tmp_path):
    """A machine with no data folder, an empty cache and no mirror."""
    monkeypatch.delenv("TEALEAVES_DATA", raising=False)
    monkeypatch.delenv("TEALEAVES_DATA_MIRROR", raising=False)
    monkeypatch.delenv("TEALEAVES_NO_FETCH", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setattr(fetch_mod, "BACKOFF", 0.0)
    return tmp_path


NOT_HTTP = "is not an http:// or https:// base"


@pytest.mark.parametrize("argv, fragment, code", [
    (["data", "fetch", "udhrr"], "unknown data set 'udhrr' (did you mean 'udhr'?", 1),
    (["data", "fetch", "parallel/nowhere"], "unknown data set 'parallel/nowhere'", 1),
    (["data", "verify", "reuters"], "unknown data set 'reuters'", 1),
    (["data", "fetch"], "no data set named (give NAME ... or --all", 1),
    (["data", "fetch", "udhr", "--all"], "give data set names or --all, not both", 1),
    (["data", "fetch", "udhr", "--mirror", "ftp://example.org/data"], NOT_HTTP, 1),
    (["data", "fetch", "udhr", "--mirror", "example.org/data"], NOT_HTTP, 1),
    (["data", "fetch", "udhr", "--mirror", "http:///data"], NOT_HTTP, 1),
    (["data", "fetch", "udhr", "--mirror", "http://example.org/?x=1"], NOT_HTTP, 1),
    (["data", "fetch", "udhr", "--mirror", "http://example.org:99999/"], "has an invalid port", 1),
    # before: exit 70 (ValueError: Invalid IPv6 URL)
    (["data", "fetch", "udhr", "--mirror", "http://[::1"], "mirror URL 'http://[::1' is not a URL", 1),
    (["data", "fetch", "udhr", "--mirror"], "expected one argument", 2),
    (["data", "list", "--format", "xml"], "invalid choice: 'xml'", 2),
])
def test_cli_bad_arguments(fresh, cli_error, argv, fragment, code):
    cli_error(argv, fragment, code)


def test_mirror_from_the_environment_is_validated(fresh, cli_error, monkeypatch):
    monkeypatch.setenv("TEALEAVES_DATA_MIRROR", "file:///srv/data")
    cli_error(["data", "fetch", "udhr"], "mirror URL 'file:///srv/data' is not an http:// or https://")


def test_unwritable_cache(fresh, cli_error, monkeypatch):
    blocker = fresh / "not-a-folder"
    blocker.write_text("a file where the cache folder should be")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    cli_error(["data", "fetch", "udhr", "--mirror", "http://127.0.0.1:9/"],
              f"cannot write the data cache '{blocker / 'tealeaves' / 'parallel' / 'udhr'}'")


def test_files_no_publisher_serves_need_a_mirror(fresh, cli_error):
    # TICO-19 as kept here was prepared for tealeaves: without a mirror nothing is downloaded
    result = cli_error(["data", "fetch", "tico19"], "files that no publisher serves could not be fetched: "
                       "tico19: 11 files (LICENSE.md, docs/am.jsonl, docs/en.jsonl and 8 more)")
    assert "TEALEAVES_DATA_MIRROR" in result.err and "fetching" not in result.err
    assert not (fresh / "xdg" / "tealeaves" / "parallel" / "tico19" / "LICENSE.md").exists()


def test_verify_reports_a_changed_file(fresh, cli_error):
    entry = registry.get("udhr").file("udhr2.xml")
    path = fresh / "xdg" / "tealeaves" / "parallel" / "udhr" / "udhr2.xml"
    path.parent.mkdir(parents=True)
    path.write_text("<not the registered file/>")
    assert hashlib.sha256(path.read_bytes()).hexdigest() != entry.sha256
    result = cli_error(["data", "verify", "udhr"], f"1 files differ from the registry: {path}")
    assert "1 files verified, 1 differ, 14 missing" in result.out


def test_locate_offline_names_the_fetch_command(fresh, monkeypatch):
    monkeypatch.setenv("TEALEAVES_NO_FETCH", "1")
    with pytest.raises(DataNotFoundError, match=r"belongs to the data set 'udhr'.*tealeaves data fetch udhr"):
        data.locate("parallel/udhr/eng.articles.jsonl", fetch=None)


def test_locate_unregistered_path(fresh):
    with pytest.raises(DataNotFoundError, match="not in tealeaves' data registry"):
        data.locate("corpora/mine/whatever.txt", fetch=True)


def test_locate_unwritable_cache_when_fetching(fresh, monkeypatch):
    blocker = fresh / "file"
    blocker.write_text("x")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    monkeypatch.setenv("TEALEAVES_DATA_MIRROR", "http://127.0.0.1:9/")
    with pytest.raises(OutputError, match="cannot write the data cache"):
        data.locate("parallel/udhr/eng.articles.jsonl", fetch=True)


@pytest.mark.parametrize("name", ["", "  ", "udhr/raw", "UDHR"])
def test_registry_get_unknown(name):
    with pytest.raises(ParameterError, match="unknown data set"):
        registry.get(name)
