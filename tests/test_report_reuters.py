"""``tealeaves reproduce reuters --report``: the article's story told from the reproduction's numbers."""

from __future__ import annotations

import html
import json
import re

import pytest

from conftest import CACHE_DIR, FULL, require_data
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
    # measures and perplexity (one seed: no stability), ldatuning's panel and exclusivity against
    # coherence, 3 explorer views
    assert page.count("<svg") == 7


@pytest.mark.slow
@pytest.mark.xdist_group("reuters")
def test_reuters_sweep_verdict_states_the_article_from_the_store(reuters, tmp_path):
    """A 3-seed sklearn sweep of the ModApte stories (K = 5 ... 80; CI: K = 5, 10, 20 on the first 2,000
    training and 600 test stories, to keep CI's run short): the verdict says
    that completion perplexity improves at every K, that scikit-learn's bound points the other way and
    (full size) that coherence peaks at a middle K, each with the store's own means and t intervals."""
    from tealeaves.report.html import report_data
    from tealeaves.report.verdict import interval
    from tealeaves.store.format import SCHEMA_VERSION
    from tealeaves.sweep import load_results, sweep

    train, test = reuters[0], reuters[1]
    ks = (5, 10, 20, 40, 80) if FULL else (5, 10, 20)
    if not FULL:
        train, test = train.subset(range(2000)), test.subset(range(600))
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    size = "full" if FULL else "2000"
    # the store's format version in the name: a cache left by another version is not resumed into
    path = CACHE_DIR / f"report_reuters_sweep_v{SCHEMA_VERSION}_{size}_{'-'.join(map(str, ks))}.sqlite"
    sweep(train, ks, 3, "sklearn", path, test=test, progress=False)  # resumes: only missing models are fitted
    results = load_results(path)
    data = report_data(results)
    sentences = {s["kind"]: s for s in data["verdict"]["questions"]["Which K?"]}
    by_k = {k: rows for k, rows in results.models.groupby("k")}

    def cited(column, digits):
        return "; ".join(f"K={k}: {_cite(interval(by_k[k][column].tolist()), digits)}" for k in ks)

    held, library = sentences["heldout"], sentences["library"]
    assert "improves (falls) at every K tried: " + cited("completion_perplexity", 0) in held["text"]
    assert "rises at every K tried: " + cited("library_perplexity", 0) in library["text"]
    assert "it points the other way from document completion" in library["text"]
    coherence = sentences["coherence"]["text"]
    assert cited("npmi", 3) in coherence
    if FULL:
        assert "at a middle K and is lower on both sides" in coherence
    # every flagged row explained, JSON's flags are the table's, the share per K is in the closing note
    assert all(len(t["flags"]) == len(t["flag_explanations"]) for t in data["topics"])
    assert all(e.split(": ", 1)[1] for t in data["topics"] for e in t["flag_explanations"])
    shares = {r["k"]: r["share"] for r in data["flag_summary"]["rows"]}
    for k in ks:
        flagged = sum(1 for t in data["topics"] if t["k"] == k and t["flags"])
        assert shares[k] == flagged / (3 * k)


def _cite(stats, digits):
    return f"{stats['mean']:,.{digits}f} [{stats['low']:,.{digits}f}, {stats['high']:,.{digits}f}]"
