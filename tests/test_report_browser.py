"""The report in headless Chromium: no console error, no network request, charts with pixel content at
1,400 and 800 pixels wide, and the explorer, relevance slider, sorting and two-model view driven by hand."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

from tealeaves.report.explorer import relevance_ranking, word_marginal
from tealeaves.sweep import load_results, sweep
from tealeaves.sweep.compare import compare_models
from test_sweep_runs import lda_corpus

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
CHARTS = ("#fig-measures-vs-k svg", "#fig-perplexity-vs-k svg", "#fig-stability-vs-k svg",
          "#fig-ldatuning-vs-k svg", "#fig-exclusivity-vs-coherence svg", "#explorer-map",
          "#explorer-words", "#explorer-heatmap")


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    path = tmp_path_factory.mktemp("browser") / "r.sqlite"
    sweep(lda_corpus(), [3, 10], seeds=3, output=path, measures=["npmi"], progress=False)
    return path


@pytest.fixture(scope="module")
def page(store, tmp_path_factory):
    from tealeaves.cli import main

    out = tmp_path_factory.mktemp("html") / "report.html"
    assert main(["report", str(store), "-o", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM.exists():
        pytest.skip("headless Chromium not found at /usr/bin/chromium (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        yield chromium
        chromium.close()


def _open(browser, page, width=1400):
    problems = []
    tab = browser.new_context(viewport={"width": width, "height": 900}).new_page()
    tab.on("console", lambda m: problems.append(m.text) if m.type in ("error", "warning") else None)
    tab.on("pageerror", lambda e: problems.append(str(e)))
    tab.on("request", lambda r: None if r.url.startswith("file:") else problems.append(f"request {r.url}"))
    tab.goto(page.as_uri())
    return tab, problems


def _pixels(png: bytes) -> np.ndarray:
    import matplotlib.image

    return matplotlib.image.imread(io.BytesIO(png), format="png")[..., :3]


@pytest.mark.parametrize("width", [1400, 800])
def test_report_browser_charts_have_content_and_nothing_is_fetched(browser, page, width):
    tab, problems = _open(browser, page, width)
    for selector in CHARTS:
        box = tab.locator(selector).bounding_box()
        assert box and box["width"] > 150 and box["height"] > 100, (selector, box)
        assert box["x"] + box["width"] <= width + 1, (selector, box)  # fits the window
        pixels = _pixels(tab.locator(selector).screenshot())
        colours = np.unique((pixels * 255).round().astype(int).reshape(-1, 3), axis=0)
        assert len(colours) > 8 and pixels.std() > 0.02, (selector, len(colours))  # not one colour: drawn
    assert problems == []


def test_report_browser_model_selector_shows_every_model(browser, page, store):
    results = load_results(store)
    tab, problems = _open(browser, page)
    names = tab.eval_on_selector_all("#explorer-model option", "o => o.map(x => x.value)")
    assert sorted(names) == sorted(results.models["name"])
    for name in ("sklearn-K10-s1", "sklearn-K3-s2"):
        tab.select_option("#explorer-model", name)
        k = int(results.model(name)["k"])
        assert tab.locator("#explorer-topic option").count() == k
        assert tab.locator("#explorer-map circle[data-topic]").count() == k
        assert tab.locator("#explorer-scores h3").text_content().startswith(f"{name}, topic ")
    tab.select_option("#explorer-topic", "2")
    assert tab.locator("#explorer-map circle[data-topic][fill='#d62728']").get_attribute("data-topic") == "2"
    tab.focus("#explorer-map circle[data-topic='1']")  # the map by keyboard: Enter picks the focused topic
    tab.keyboard.press("Enter")
    assert tab.locator("#explorer-topic").input_value() == "1"
    assert tab.evaluate("document.activeElement.dataset.topic") == "1"
    assert problems == []


def test_report_browser_relevance_slider_ranks_as_python(browser, page, store):
    results = load_results(store)
    tab, problems = _open(browser, page)
    name = "sklearn-K10-s0"
    tab.select_option("#explorer-model", name)
    tab.select_option("#explorer-topic", "4")
    phi = np.asarray(results._topic_word[name])
    topics = results.topics[results.topics["model"] == name].sort_values("topic")
    pw = word_marginal(phi, topics["prevalence"].to_numpy(dtype=float))  # p(w) = sum_t p(t) p(w|t)
    shown = {}
    for lam in ("0", "0.37", "0.6", "1"):
        tab.eval_on_selector("#relevance-lambda",
                             f"e => {{ e.value = '{lam}'; e.dispatchEvent(new Event('input')); }}")
        ids = [int(i) for i in
               tab.eval_on_selector_all("#relevance-words li", "l => l.map(x => x.dataset.id)")]
        assert ids == relevance_ranking(phi, pw, 4, float(lam), 10), lam
        words = tab.eval_on_selector_all("#relevance-words li", "l => l.map(x => x.textContent)")
        assert words == [results.vocabulary[i] for i in ids]
        assert tab.locator("#relevance-value").text_content() == f"{float(lam):.2f}"
        shown[lam] = ids
    assert shown["0"] != shown["1"]  # the slider changes the ranking
    tab.focus("#relevance-lambda")
    tab.keyboard.press("ArrowLeft")  # the keyboard moves it too
    assert tab.locator("#relevance-value").text_content() == "0.99"
    assert problems == []


def test_report_browser_numeric_columns_sort_as_numbers(browser, page):
    tab, problems = _open(browser, page)
    headers = tab.eval_on_selector_all("#topics th", "h => h.map(x => x.textContent)")
    for column in ("k", "npmi"):
        col = headers.index(column)
        tab.click(f"#topics th >> nth={col}")
        values = [float(v) for v in tab.eval_on_selector_all(
            "#topics tbody tr", f"rows => rows.map(r => r.cells[{col}].dataset.value)")]
        assert values == sorted(values), column  # as text, "10" would sort before "3"
        tab.click(f"#topics th >> nth={col}")
        values = [float(v) for v in tab.eval_on_selector_all(
            "#topics tbody tr", f"rows => rows.map(r => r.cells[{col}].dataset.value)")]
        assert values == sorted(values, reverse=True), column
    assert problems == []


def test_report_browser_two_model_view_shows_compare(browser, page, store):
    results = load_results(store)
    tab, problems = _open(browser, page)
    tab.select_option("#pair-a", "sklearn-K10-s0")
    tab.select_option("#pair-b", "sklearn-K10-s2")
    assert tab.locator("#pair-topics tbody tr").count() == 10
    summary = tab.locator("#pair-summary").inner_text()
    expected = compare_models(results, "sklearn-K10-s0", results, "sklearn-K10-s2", "npmi", n_boot=1000)
    ll = expected["loglik_per_word"]
    assert f"{ll['estimate']:.4f} [{ll['low']:.4f}, {ll['high']:.4f}]" in summary
    coh = expected["coherence"]
    assert f"{coh['estimate']:.4f} [{coh['low']:.4f}, {coh['high']:.4f}]" in summary
    sims = [float(v) for v in tab.eval_on_selector_all("#pair-topics tbody tr",
                                                        "rows => rows.map(r => r.cells[2].dataset.value)")]
    assert sims == sorted(sims, reverse=True) and all(0 <= s <= 1 for s in sims)
    assert problems == []


def test_report_browser_controls_are_labelled_and_reached_by_tab(browser, page):
    tab, problems = _open(browser, page)
    for control in ("explorer-model", "explorer-topic", "relevance-lambda", "pair-a", "pair-b"):
        assert tab.locator(f"label[for='{control}']").count() == 1, control
    reached = set()
    for _ in range(400):
        tab.keyboard.press("Tab")
        reached.add(tab.evaluate("document.activeElement.id || document.activeElement.tagName"))
        if {"explorer-model", "relevance-lambda", "pair-a"} <= reached:
            break
    assert {"explorer-model", "relevance-lambda", "pair-a"} <= reached
    assert problems == []
