"""Bad inputs to automated word intrusion (`tealeaves human auto-intrusion`): a study without word-intrusion
items, an unknown method, too many folds, a missing reference -- one `tealeaves: error:` line, no traceback;
through the API, the error class.  An option absent from the reference is predicted the intruder
(documented)."""

from __future__ import annotations

import pytest

from tealeaves.coherence import index_from_token_lists
from tealeaves.errors import ParameterError
from tealeaves.human import Study, auto_intrusion
from tealeaves.human.items import rating_item

DOCS = [["a", "b", "c"], ["a", "b"], ["b", "c"], ["x", "y"]]
ITEM = {"id": "wi-0", "task": "word_intrusion", "topic": 0, "options": ["a", "b", "c", "x"], "answer": "x",
        "top_words": ["a", "b", "c"], "check": False}
RATING = rating_item(0, ["a", "b"])


@pytest.fixture
def files(tmp_path, run_cli):
    docs = tmp_path / "ref.txt"
    docs.write_text("\n".join(" ".join(d) for d in DOCS) + "\n", encoding="utf-8")
    index = tmp_path / "ref.tlx"
    assert run_cli(["index", "build", str(docs), "-o", str(index)]).code == 0
    Study(name="wi", seed=0, settings={}, items=[ITEM]).save(tmp_path / "wi.json")
    Study(name="r", seed=0, settings={}, items=[RATING]).save(tmp_path / "rating.json")
    return tmp_path


def test_auto_intrusion_cli_refusals(files, cli_error):
    out = ["-o", str(files / "auto.csv")]
    cli_error(["human", "auto-intrusion", str(files / "rating.json"), "--reference", str(files / "ref.tlx"),
               *out], "has no word-intrusion items")
    cli_error(["human", "auto-intrusion", str(files / "wi.json"), "--reference", str(files / "ref.tlx"),
               "--method", "cosine", *out], "method", code=2)
    cli_error(["human", "auto-intrusion", str(files / "wi.json"), "--reference", str(files / "ref.tlx"),
               "--method", "ranker", "--n-folds", "3", *out], "n_folds=3 is more than the 1")
    cli_error(["human", "auto-intrusion", str(files / "wi.json"), "--reference", str(files / "none.tlx"),
               *out], "none.tlx")
    cli_error(["human", "auto-intrusion", str(files / "wi.json"), "--reference", str(files / "ref.tlx"),
               "--window", "0", *out], "jhlau's window 0 (the whole document) is --window doc", code=2)



@pytest.mark.cli_subprocess
def test_auto_intrusion_cli_refuses_damaged_files(files, cli_error):
    """A non-UTF-8 or empty study, a text file or a truncated index as the reference, an output in a
    folder that does not exist: one error line each, nothing written."""
    (files / "latin1.json").write_bytes(b"\xff\xfe not a study")
    (files / "empty.json").write_text("", encoding="utf-8")
    (files / "trunc.tlx").write_bytes((files / "ref.tlx").read_bytes()[:100])
    ref, out = ["--reference", str(files / "ref.tlx")], ["-o", str(files / "auto.csv")]
    cli_error(["human", "auto-intrusion", str(files / "latin1.json"), *ref, *out], "not valid utf-8")
    cli_error(["human", "auto-intrusion", str(files / "empty.json"), *ref, *out], "not valid JSON")
    study = ["human", "auto-intrusion", str(files / "wi.json")]
    cli_error([*study, "--reference", str(files / "ref.txt"), *out], "not a tealeaves reference index")
    cli_error([*study, "--reference", str(files / "trunc.tlx"), *out], "truncated")
    cli_error(["human", "auto-intrusion", str(files / "wi.json"), *ref, "-o", str(files / "no" / "auto.csv")],
              "does not exist")
    assert not (files / "auto.csv").exists() and not (files / "no").exists()

def test_auto_intrusion_api_errors_and_absent_words():
    ref = index_from_token_lists(DOCS)
    with pytest.raises(ParameterError, match="no word-intrusion items"):
        auto_intrusion(Study(name="r", seed=0, settings={}, items=[RATING]), ref)
    with pytest.raises(ParameterError, match="method"):
        auto_intrusion(Study(name="wi", seed=0, settings={}, items=[ITEM]), ref, method="cosine")
    absent = dict(ITEM, options=["a", "b", "c", "zzz"], answer="zzz")
    res = auto_intrusion(Study(name="wi", seed=0, settings={}, items=[absent]), ref)
    assert res.predictions.loc[0, "predicted"] == "zzz" and res.to_dict()["n_absent_items"] == 1
    # no option in the reference: the first option is predicted (documented), and the item counted
    nowhere = dict(ITEM, options=["q", "r", "s", "t"], answer="r")
    res = auto_intrusion(Study(name="wi", seed=0, settings={}, items=[nowhere]), ref, window=2)
    assert res.predictions.loc[0, "predicted"] == "q" and res.predictions.loc[0, "absent"] == 4
