"""``tealeaves coherence --memory`` / ``memory=``: wrong spellings and a budget below what one
document's block of the count needs (refused naming the minimum; nothing written)."""

from __future__ import annotations

import re

import pytest

from conftest import DOCS, TOPICS
from tealeaves.coherence import Coherence, coherence
from tealeaves.errors import ParameterError


@pytest.fixture
def files(tmp_path):
    ref = tmp_path / "ref.txt"
    ref.write_text("\n".join(DOCS) + "\n")
    topics = tmp_path / "topics.txt"
    topics.write_text("\n".join(" ".join(t) for t in TOPICS) + "\n")
    return ref, topics, tmp_path / "scores.csv"


@pytest.mark.parametrize("value, fragment", [
    ("huge", "--memory 'huge' is not a size"),
    ("", "--memory '' is not a size"),
    ("1X", "--memory '1X' is not a size"),
    ("G", "--memory 'G' is not a size"),
    ("0", "--memory '0' is below the smallest budget (1 KiB)"),
    ("=-1G", "--memory '-1G' is below the smallest budget"),
    ("1000", "--memory '1000' is below the smallest budget"),
])
def test_memory_spellings_refused(cli_error, files, value, fragment):
    ref, topics, out = files
    memory = ["--memory" + value] if value.startswith("=") else ["--memory", value]
    cli_error(["coherence", "--reference", ref, "--topics", topics, *memory, "-o", out], fragment)
    assert not out.exists()


@pytest.mark.parametrize("window", ["doc", "10"])
def test_memory_below_one_document_names_the_minimum(cli_error, files, window):
    ref, topics, out = files
    run = cli_error(["coherence", "--reference", ref, "--topics", topics, "--window", window,
                     "--memory", "1K", "-o", out], "is below the")
    assert "--memory 1 KiB" in run.err and "needs with one document per block" in run.err
    need = int(re.search(r"\(([\d,]+) bytes\)", run.err).group(1).replace(",", ""))
    assert not out.exists()
    # the named minimum is enough, one byte less is not (the API takes bytes)
    docs = [d.split() for d in DOCS]
    win = int(window) if window != "doc" else "doc"
    scores = coherence(TOPICS, docs, window=win).scores
    assert coherence(TOPICS, docs, window=win, memory=need).scores == scores
    with pytest.raises(ParameterError, match="needs with one document per block"):
        coherence(TOPICS, docs, window=win, memory=need - 1)


@pytest.mark.parametrize("memory", ["lots", "-5M", 0, -1, 1.5, True])
def test_memory_argument_refused_by_the_api(memory):
    with pytest.raises(ParameterError, match="memory"):
        Coherence("npmi", memory=memory).score(TOPICS, [d.split() for d in DOCS])
