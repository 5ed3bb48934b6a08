"""``tealeaves reproduce reuters --report``: the article's story told from the reproduction's numbers."""

from __future__ import annotations

import html
import json
import re

from conftest import CACHE_DIR, require_data
from tealeaves.cli import main

KS = (10, 20, 80)  # the quick models the test cache holds (tests/conftest.py: reuters_lda)


def test_reuters_report_tells_the_story_from_the_table(tmp_path, capsys):
    require_data("reuters21578/reut2-000.sgm")
    out = tmp_path / "reuters.html"
    argv = ["reproduce", "reuters", "--quick", "--k", *map(str, KS), "--cache-dir", str(CACHE_DIR),
            "--report", str(out), "--format", "json"]
    assert main(argv) == 0
    table = {r["k"]: r for r in json.loads(capsys.readouterr().out)["rows"]}
    page = out.read_text(encoding="utf-8")
    items = re.search(r'<ul class="story">(.*?)</ul>', page, re.S).group(1)
    story = [html.unescape(s) for s in re.findall(r"<li>(.*?)</li>", items)]
    completion = ", ".join(f"{table[k]['completion_perplexity']:.0f} (K={k})" for k in KS)
    library = ", ".join(f"{table[k]['sklearn_perplexity']:.0f} (K={k})" for k in KS)
    # the article's story, stated from this run's own numbers (the same ones the table prints)
    assert story[0] == f"Document-completion perplexity falls at every step as K grows: {completion}."
    assert story[2].startswith("The library's own reported perplexity (scikit-learn's variational bound) "
                               f"rises at every step: {library}; it points the other way")
    assert story[1].startswith("Mean npmi peaks at K=")
    # the incoherent topic is flagged (tealeaves.comparison.flags, stored by the sweep): an outlier of its
    # model, and a mix of word groups that do not co-occur (hong kong / gulf / aluminium in the quick K=80)
    assert story[3].startswith("The least coherent topic is topic") and "flagged low-coherence" in story[3]
    assert page.count("<svg") == 4
