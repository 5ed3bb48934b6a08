"""The sweep report: self-contained HTML that opens in headless Chromium with every plot drawn,
PNG figures, JSON equal to the store, and the K story computed from the numbers."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tealeaves.report.html import build_html, choose, report_data
from tealeaves.report.story import k_story
from tealeaves.sweep import Results, load_results, sweep
from test_sweep_runs import lda_corpus

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
FIGURES = ("measures-vs-k", "perplexity-vs-k", "topic-coherence", "pair-heatmap", "stability-vs-k",
           "ldatuning-vs-k", "exclusivity-vs-coherence")
# the page draws the per-topic views itself
INLINE = ("measures-vs-k", "perplexity-vs-k", "stability-vs-k", "ldatuning-vs-k", "exclusivity-vs-coherence")
EXPLORER_SVGS = ("explorer-map", "explorer-words", "explorer-heatmap")


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    path = tmp_path_factory.mktemp("report") / "r.sqlite"
    sweep(lda_corpus(), [2, 3, 5], seeds=2, output=path, measures=["npmi", "umass"], progress=False)
    return path


@pytest.fixture(scope="module")
def page(store, tmp_path_factory):
    out = tmp_path_factory.mktemp("html") / "report.html"
    from tealeaves.cli import main

    assert main(["report", str(store), "-o", str(out), "--figures", str(out.parent / "figs")]) == 0
    return out


def test_the_report_is_self_contained(page):
    text = page.read_text(encoding="utf-8")
    assert not re.search(r"""(src|href)\s*=\s*["'](https?:)?//""", text)  # nothing fetched from anywhere
    assert "<link" not in text and "@import" not in text and "url(http" not in text
    assert text.count("<svg") == len(INLINE) + len(EXPLORER_SVGS)
    ids = re.findall(r'\sid="([^"]+)"', text)
    assert len(ids) == len(set(ids))  # the inline figures share no element id


def test_embedded_json_is_every_stored_number(page, store):
    text = page.read_text(encoding="utf-8")
    pattern = r'<script type="application/json" id="tealeaves-data">(.*?)</script>'
    blob = re.search(pattern, text, re.S).group(1)
    data = json.loads(blob.replace("<\\/", "</"))
    results = load_results(store)
    assert data["models"] == results.models.to_dict(orient="records")  # exact: JSON keeps every digit
    assert len(data["topics"]) == len(results.topics) == 2 * (2 + 3 + 5)
    npmi = {(r["engine"], r["k"]): r for r in data["by_k"]["npmi"]}
    for k, rows in results.models.groupby("k"):
        assert npmi[("sklearn", k)]["mean"] == pytest.approx(rows["npmi"].mean(), rel=1e-12)
        assert npmi[("sklearn", k)]["max"] == rows["npmi"].max()


def test_default_choice_is_best_model_and_its_least_coherent_topic(store):
    results = load_results(store)
    choice = choose(results)
    assert choice.model == results.models.loc[results.models["npmi"].idxmax(), "name"]
    topics = results.topics[results.topics["model"] == choice.model]
    assert choice.topic == int(topics.loc[topics["npmi"].idxmin(), "topic"])


def test_png_figures_are_written_and_not_blank(page):
    import matplotlib.image

    for name in FIGURES:
        pixels = matplotlib.image.imread(page.parent / "figs" / f"{name}.png")
        assert pixels.shape[0] > 100 and pixels[..., :3].std() > 0.01, name


@pytest.mark.browser


def test_the_report_opens_in_chromium_with_every_plot_drawn(page, tmp_path):
    if not CHROMIUM.exists():
        pytest.skip("headless Chromium not found at /usr/bin/chromium (apt-get install chromium)")
    import matplotlib.image
    from playwright.sync_api import sync_playwright

    problems = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        try:
            tab = browser.new_context(viewport={"width": 1200, "height": 900}).new_page()
            tab.on("console", lambda m: problems.append(m.text) if m.type in ("error", "warning") else None)
            tab.on("pageerror", lambda e: problems.append(str(e)))
            tab.on("request", lambda r: problems.append(f"request {r.url}") if not r.url.startswith("file:")
                   else None)
            tab.goto(page.as_uri())
            for name in INLINE:
                box = tab.locator(f"#fig-{name} svg").bounding_box()
                assert box and box["width"] > 200 and box["height"] > 100, (name, box)
                drawn = tab.locator(f"#fig-{name} svg path").count()
                assert drawn > 10, (name, drawn)
            shot = tmp_path / "report.png"
            tab.screenshot(path=str(shot), full_page=True)
            first = tab.locator("#topics tbody tr td").first.text_content()
            tab.click("#topics th:has-text('npmi')")
            values = [float(v) for v in tab.eval_on_selector_all(
                "#topics tbody tr", "rows => rows.map(r => r.cells[4].dataset.value)")]
            assert values == sorted(values) and first is not None
        finally:
            browser.close()
    assert problems == []
    pixels = matplotlib.image.imread(shot)
    assert pixels.shape[0] > 900 and pixels[..., :3].std() > 0.05  # a page with content, not blank


def test_stability_per_k_is_tealeaves_comparison_on_the_stored_topics(store):
    from tealeaves.comparison import topic_stability
    from tealeaves.models import SklearnLDA
    from tealeaves.report.hooks import recurrence_flags, stability_table
    from tealeaves.sweep import split_corpus

    results = load_results(store)
    table = stability_table(results).set_index("k")
    train, _ = split_corpus(lda_corpus(), 0.2, 0)
    runs = [SklearnLDA(3, random_state=s, learning_method="batch", max_iter=10).fit(train) for s in (0, 1)]
    expected = topic_stability(runs, "js")
    assert table.loc[3, "mean_similarity"] == pytest.approx(expected.summary["mean_similarity"], rel=1e-12)
    assert table.loc[3, "mean_recurrence"] == expected.summary["mean_recurrence"]
    same = topic_stability([results.topic_model("sklearn-K5-s0")] * 2, "js")  # a run against itself
    assert same.summary["mean_similarity"] == pytest.approx(1.0) and same.summary["mean_recurrence"] == 1.0
    assert recurrence_flags(results) == {}  # two runs are too few to judge recurrence (hooks.MIN_RUNS)


def _results(rows: list[dict], topics: list[dict]) -> Results:
    return Results("hand-made", {}, pd.DataFrame(rows), pd.DataFrame(topics))


def test_story_states_the_trends_of_a_hand_made_sweep():
    rows = [{"name": f"m{k}", "engine": "sklearn", "k": k, "seed": 0, "completion_perplexity": cp,
             "library_perplexity": lp, "npmi": c}
            for k, cp, lp, c in [(5, 1500.0, 2100.0, 0.20), (10, 1300.0, 2200.0, 0.25),
                                 (20, 1200.0, 2400.0, 0.15)]]
    topics = [{"model": "m10", "k": 10, "seed": 0, "topic": 3, "top_words": ["dutch", "guilders", "hughes"],
               "npmi": -0.2},
              {"model": "m5", "k": 5, "seed": 0, "topic": 0, "top_words": ["oil"], "npmi": 0.3}]
    story = k_story(_results(rows, topics), "npmi")
    assert story[0] == ("Document-completion perplexity falls at every step as K grows: "
                        "1500 (K=5), 1300 (K=10), 1200 (K=20).")
    assert story[1].startswith("Mean npmi peaks at K=10 (0.250), in between, then falls")
    assert "rises at every step: 2100 (K=5), 2200 (K=10), 2400 (K=20); it points the other way" in story[2]
    assert story[3].startswith("The least coherent topic is topic 3 of m10 "
                               "(npmi -0.200: dutch guilders hughes")


def test_html_escapes_text_from_the_store(store, tmp_path):
    results = load_results(store)
    results.topics["top_words"] = results.topics["top_words"].apply(lambda w: ["<script>x</script>", *w[1:]])
    text = build_html(results)
    assert "<script>x</script>" not in text and "&lt;script&gt;x&lt;/script&gt;" in text
    data = report_data(results)
    assert np.isfinite([m["completion_perplexity"] for m in data["models"]]).all()


def test_report_flags_in_html_equal_json(page, store, tmp_path):
    from tealeaves.cli import main

    out = tmp_path / "r.json"
    assert main(["report", str(store), "--format", "json", "-o", str(out)]) == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    text = page.read_text(encoding="utf-8")
    table = re.search(r'<table class="sortable" id="topics">(.*?)</table>', text, re.S).group(1)
    head = [h.replace(" ", "_") for h in re.findall(r"<th(?:\s[^>]*)?>(.*?)</th>", table)]
    rows = [re.findall(r'<td[^>]*data-value="([^"]*)"', r) for r in re.findall(r"<tr>(<td.*?)</tr>", table)]
    html_flags = {(r[head.index("model")], int(r[head.index("topic")])): html.unescape(r[head.index("flags")])
                  for r in rows}
    json_flags = {(t["model"], t["topic"]): ", ".join(t["flags"]) or "none" for t in data["topics"]}
    assert html_flags == json_flags
    for t in data["topics"]:
        assert len(t["flag_explanations"]) == len(t["flags"])
        assert all(e.split(": ", 1)[1].strip() for e in t["flag_explanations"])  # every flag explained


def test_report_perplexity_chart_log_axis_and_library_bound_apart_when_off_scale(store):
    from tealeaves.report.figures import perplexity_vs_k

    results = load_results(store)
    fig = perplexity_vs_k(results)
    assert [ax.get_yscale() for ax in fig.axes] == ["log"]  # on the models' scale: one panel
    labels = [t.get_text() for t in fig.axes[0].texts]
    assert any(t.startswith("uniform baseline") for t in labels) and any(t.startswith("unigram baseline")
                                                                          for t in labels)
    results.models["library_perplexity"] = results.models["library_perplexity"] * 300  # ~ sklearn's 420,000
    fig = perplexity_vs_k(results)
    models_ax, library_ax = fig.axes
    assert models_ax.get_yscale() == library_ax.get_yscale() == "log"
    top = max(results.models[["completion_perplexity", "uniform_perplexity", "unigram_perplexity"]].max())
    assert models_ax.get_ylim()[1] < 2 * top  # the bound does not flatten the models' panel
    assert library_ax.get_ylim()[1] >= results.models["library_perplexity"].max()


def test_report_verdict_names_an_unavailable_measure_with_its_reason(store):
    from tealeaves.report.verdict import verdict

    results = load_results(store)
    gone = results.models["k"] == 3
    results.models.loc[gone, "completion_perplexity"] = None
    reason = {"completion": "NMF is not a probabilistic model"}
    results.models["unavailable"] = [reason if g else {} for g in gone]
    sentences = verdict(results).questions["Which K?"]
    (missing,) = [s for s in sentences if s.kind == "unavailable"]
    assert missing.text == ("completion perplexity is not available for sklearn-K3 (NMF is not a "
                            "probabilistic model).")
    (held,) = [s for s in sentences if s.kind == "heldout"]
    assert "K=3" not in held.text and "K=2" in held.text and "K=5" in held.text


def test_report_settings_are_words_and_hashes_stay_in_details(store):
    results = load_results(store)
    results.preprocessing = {"min_df": 2, "stop_words": "english", "lowercase": True}
    results.models["source"] = [{"kind": "gensim", "path": "/m/lda.model", "bytes": 1234, "sha256": "ab" * 32}
                                if i == 0 else {"kind": "sweep"} for i in range(len(results.models))]
    text = build_html(results)
    settings = re.search(r'<section id="settings">(.*?)</section>', text, re.S).group(1)
    shown, details = settings.split("<details>")
    assert "lowercase = True, min_df = 2, stop_words = english" in shown
    assert f"{len(results.vocabulary):,} words" in shown and "learning_method = batch, max_iter = 10" in shown
    first = results.models["name"].iloc[0]
    assert f"<code>{first}</code>: gensim model read from /m/lda.model (1,234 bytes)" in shown
    for digest in (results.sweep["train"], results.sweep["test"], "ab" * 32):
        assert digest not in shown and digest in details


def test_report_verdict_in_html_equals_json(page, store):
    from tealeaves.cli import main

    out = page.parent / "verdict.json"
    assert main(["report", str(store), "--format", "json", "-o", str(out)]) == 0
    questions = json.loads(out.read_text(encoding="utf-8"))["verdict"]["questions"]
    text = page.read_text(encoding="utf-8")
    section = re.search(r'<section id="verdict">(.*?)</section>', text, re.S).group(1)
    items = re.findall(r'<li data-kind="([^"]+)">(.*?) <a href="#([^"]+)">', section)
    expected = [(s["kind"], s["text"], s["figure"]) for sents in questions.values() for s in sents]
    assert [(k, html.unescape(t), f) for k, t, f in items] == expected
    ids = set(re.findall(r'\sid="([^"]+)"', text))
    assert {f for _, _, f in expected} <= ids  # every sentence links to an element of the page


def test_report_ldatuning_panel_rescales_each_measures_mean_over_runs(store):
    from tealeaves.report.figures import kchoice_table, ldatuning_panel

    results = load_results(store)
    table = kchoice_table(results)
    for measure in ("arun2010", "cao_juan2009", "deveaud2014", "exclusivity", "frex"):
        means = {k: float(np.mean(results.models.loc[results.models["k"] == k, measure])) for k in (2, 3, 5)}
        low, high = min(means.values()), max(means.values())
        rows = table[table["measure"] == measure].set_index("k")
        for k, mean in means.items():
            assert rows.loc[k, "mean"] == pytest.approx(mean, rel=1e-12)
            assert rows.loc[k, "scaled"] == pytest.approx((mean - low) / (high - low), rel=1e-12, abs=1e-15)
    assert set(table.loc[table["measure"] == "arun2010", "direction"]) == {"minimize"}
    assert "griffiths2004" not in set(table["measure"])  # scikit-learn keeps no sampler trace
    fig = ldatuning_panel(results)
    top, bottom = fig.axes[:2]
    assert top.get_title().startswith("minimize") and bottom.get_title().startswith("maximize")
    assert "not available: griffiths2004" in bottom.get_title()
    assert sorted(line.get_label() for line in top.lines) == ["arun2010", "cao_juan2009"]


def test_report_exclusivity_scatter_plots_each_stored_model(store):
    from tealeaves.report.figures import exclusivity_vs_coherence

    results = load_results(store)
    fig = exclusivity_vs_coherence(results, "npmi")
    points = np.vstack([c.get_offsets() for c in fig.axes[0].collections])
    expected = results.models[["npmi", "exclusivity"]].to_numpy(dtype=float)
    assert sorted(map(tuple, points)) == sorted(map(tuple, expected))


def test_report_rescale_of_equal_values_is_the_middle():
    from tealeaves.report.figures import rescale

    assert list(rescale(pd.Series([3.0, 3.0]))) == [0.5, 0.5]  # scales::rescale of a zero range
    assert list(rescale(pd.Series([1.0, 3.0, 2.0]))) == [0.0, 1.0, 0.5]


def test_report_format_follows_the_output_extension_unless_given(store, tmp_path, run_cli, cli_error):
    """`-o r.json` writes the JSON (it wrote the HTML page into r.json); a contradicting `--format` is
    refused (exit 1, nothing written); another extension takes `--format` as given."""
    expected = json.loads(run_cli(["report", store, "--format", "json"]).out)
    assert run_cli(["report", store, "-o", tmp_path / "r.json"]).code == 0
    assert json.loads((tmp_path / "r.json").read_text(encoding="utf-8")) == expected
    cli_error(["report", store, "-o", tmp_path / "r.html", "--format", "json"],
              "the extension .html means html, but --format is json")
    cli_error(["report", store, "-o", tmp_path / "x.json", "--format", "html"],
              "the extension .json means json, but --format is html")
    assert not (tmp_path / "r.html").exists() and not (tmp_path / "x.json").exists()
    assert run_cli(["report", store, "-o", tmp_path / "r.out", "--format", "json"]).code == 0
    assert json.loads((tmp_path / "r.out").read_text(encoding="utf-8")) == expected
    assert run_cli(["report", store, "-o", tmp_path / "r.htm"]).code == 0
    assert (tmp_path / "r.htm").read_text(encoding="utf-8").lstrip().lower().startswith("<!doctype html")


def test_report_keeps_each_stored_flag_explanation_whole(store, tmp_path):
    # before: load_results joined a topic's explanations with "; " and the report split them back, so an
    # explanation holding "; " was given whole to every flag of the topic
    import sqlite3

    from tealeaves.report.hooks import topic_flag_details

    path = tmp_path / "flags.sqlite"
    path.write_bytes(store.read_bytes())
    stored = [{"flag": "low-coherence", "explanation": "npmi -0.31; below the fence -0.12"},
              {"flag": "background", "explanation": "in 9 of 10 topics; a background topic"}]
    with sqlite3.connect(path) as db:
        model, topic = db.execute("SELECT model, topic FROM topics ORDER BY model, topic LIMIT 1").fetchone()
        db.execute("UPDATE topics SET flags = ? WHERE model = ? AND topic = ?",
                   (json.dumps(stored), model, topic))
    results = load_results(path)
    assert results.flag_records[(model, topic)] == stored
    assert topic_flag_details(results)[(model, int(topic))][:2] == stored
    data = report_data(load_results(path))
    shown = next(t for t in data["topics"] if (t["model"], t["topic"]) == (model, topic))
    assert shown["flag_explanations"][:2] == [f"{f['flag']}: {f['explanation']}" for f in stored]
