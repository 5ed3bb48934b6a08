"""The HTML report: one self-contained file (inline SVG, CSS and JavaScript; no network to open it).

Sections: the sweep's settings; each measure against K; perplexity against K with the
baselines and the library's bound; per-topic coherence bars of a chosen model; the pair
heatmap of a chosen topic; stability per K (:data:`tealeaves.report.hooks.STABILITY`);
a sortable table of every topic with its flags (:data:`tealeaves.report.hooks.FLAGS`).
Every number is also embedded as JSON (``<script type="application/json" id="tealeaves-data">``)
and available from :func:`report_data` (``tealeaves report``, JSON format).
"""

from __future__ import annotations

import html
import json
import os
from dataclasses import dataclass

from tealeaves._docs import shared_doc
from tealeaves._output import to_jsonable
from tealeaves._params import renamed_parameters
from tealeaves.errors import ParameterError
from tealeaves.report import figures, hooks
from tealeaves.sweep.results import frame_records


@dataclass
@shared_doc
class Choice:
    """The model of the per-topic bars and the topic of the heatmap.

    Parameters
    ----------
    %(report_model)s
    topic : int
        The topic's index.
    measure : str
        The coherence measure shown.
    """

    model: str
    topic: int
    measure: str


@shared_doc
def choose(results, model: str | None = None, topic: int | None = None) -> Choice:
    """Default model: the best mean of the first coherence measure; default topic: its worst topic.

    Parameters
    ----------
    %(report_results)s
    model : str or None, default None
        The model (None: the best by the first coherence measure, ties by name).
    topic : int or None, default None
        The topic (None: the model's least coherent).

    Returns
    -------
    Choice
        The model, topic and measure.

    Raises
    ------
    ParameterError
        If the store holds no scored model or ``topic`` is out of range.
    """
    measures = figures.coherence_measures(results)
    if results.models.empty or not measures:
        raise ParameterError(f"results store '{results.path}' holds no scored model",
                             fix="run tealeaves sweep into it first")
    measure = measures[0]
    if model is None:
        model = str(results.models.sort_values([measure, "name"], ascending=[False, True]).iloc[0]["name"])
    row = results.model(model)
    topics = results.topics[results.topics["model"] == model]
    if topic is not None:
        from tealeaves.sweep.params import REPORT_TOPIC

        topic = REPORT_TOPIC.check(topic)
    if topic is None:
        topic = int(topics.sort_values([measure, "topic"]).iloc[0]["topic"])
    elif not 0 <= topic < int(row["k"]):
        raise ParameterError(f"topic {topic} is out of range for {model} (K={row['k']})",
                             fix=f"give a topic from 0 to {int(row['k']) - 1}")
    return Choice(model, int(topic), measure)


def _topic_records(results) -> list[dict]:
    """The topics as records, their flags (stored and :data:`hooks.FLAGS`) with explanations merged in."""
    details = hooks.topic_flag_details(results)
    out = []
    for record in frame_records(results.topics):
        flags = details.get((record["model"], int(record["topic"])), [])
        record["flags"] = [f["flag"] for f in flags]
        record["flag_explanations"] = [f"{f['flag']}: {f['explanation']}" for f in flags]
        out.append(record)
    return out


@shared_doc
def flag_summary(results) -> dict[str, list | dict]:
    """The share of topics flagged per configuration, with the rules that produced the flags.

    Parameters: %(report_results)s

    Returns
    -------
    dict
        ``rows`` (per configuration: ``config``, ``engine``, ``k``, ``n_runs``, ``topics``, ``flagged``,
        ``share``, and ``by_flag``: topics carrying each flag) and ``rules`` (the rule of each flag
        family in words).
    """
    from tealeaves.report.verdict import junk_counts

    details = hooks.topic_flag_details(results)
    models = results.models.assign(_config=hooks.configs(results))
    names = {c: set(g["name"]) for c, g in models.groupby("_config")}
    rows = []
    for row in junk_counts(results).to_dict(orient="records"):
        by_flag: dict = {}
        for (model, _t), flags in details.items():
            if model in names[row["config"]]:
                for f in {f["flag"] for f in flags}:
                    by_flag[f] = by_flag.get(f, 0) + 1
        rows.append({**row, "by_flag": dict(sorted(by_flag.items()))})
    signatures = sorted({str(s["signature"]) for s in results.flag_settings.values()
                         if isinstance(s, dict) and s.get("signature")})
    return {"rows": rows, "rules": {
        "stored": "flags computed per model when it was scored (tealeaves.comparison.flags: low-coherence, "
                  "mixed, background, few-documents)"
                  + (f"; settings {', '.join(signatures)}" if signatures else ""),
        "low-recurrence": hooks.recurrence_rule()}}


@shared_doc
def report_data(results, choice: Choice | None = None) -> dict:
    """Every number of the report, JSON-ready: the store's contents, summaries per K, verdict and flags.

    Parameters
    ----------
    %(report_results)s
    choice : Choice or None, default None
        The model and topic shown first (None: :func:`choose`'s defaults).

    Returns
    -------
    dict
        The store's contents (``topics[].flags`` and ``flag_explanations`` hold every flag the
        HTML table shows), ``by_k`` (mean, min, max and count per engine and K), ``chosen``,
        ``verdict`` (:func:`tealeaves.report.verdict.verdict`), ``flags`` (one entry per flagged
        topic, with explanations), ``flag_summary`` and ``stability``.
    """
    from tealeaves.report.verdict import verdict

    choice = choice or choose(results)
    summary = {}
    columns = figures.coherence_measures(results) + list(figures.LIKELIHOOD_COLUMNS + figures.KCHOICE_COLUMNS)
    for column in columns:
        if column in results.models and results.models[column].notna().any():
            stats = results.models.groupby(["engine", "k"])[column].agg(["mean", "min", "max", "count"])
            summary[column] = frame_records(stats.reset_index())  # a group with no value: mean None
    details = hooks.topic_flag_details(results)
    stability = _stability(results)
    return to_jsonable({
        **results.to_dict(), "topics": _topic_records(results), "by_k": summary, "chosen": choice.__dict__,
        "preprocessing": getattr(results, "preprocessing", None),
        "verdict": verdict(results, choice.measure).to_dict(),
        "flags": [{"model": m, "topic": t, "flags": [d["flag"] for d in f], "explanations": f}
                  for (m, t), f in sorted(details.items())],
        "flag_summary": flag_summary(results),
        "kchoice": frame_records(figures.kchoice_table(results)),
        "stability": None if stability is None else stability.to_dict(orient="records")})


@shared_doc
def figure_set(results, choice: Choice, inline: bool = False) -> dict:
    """The report's figures by name (stability only when its hook gives a table).

    Parameters
    ----------
    %(report_results)s
    choice : Choice
        The model and topic of the per-topic figures.
    inline : bool, default False
        Only the figures the HTML page embeds (the per-topic ones are drawn by its explorer).

    Returns
    -------
    dict of str to matplotlib.figure.Figure
        ``measures-vs-k``, ``perplexity-vs-k``, ``stability-vs-k`` when there is a stability
        table, ``ldatuning-vs-k`` and ``exclusivity-vs-coherence`` when the store has their
        numbers (:func:`kchoice_figures`), and (unless ``inline``) ``topic-coherence`` and
        ``pair-heatmap``.
    """
    out = {"measures-vs-k": figures.measures_vs_k(results),
           "perplexity-vs-k": figures.perplexity_vs_k(results)}
    table = _stability(results)
    if table is not None:
        out["stability-vs-k"] = figures.stability_vs_k(table)
    out.update(kchoice_figures(results, choice.measure))
    if not inline:
        out["topic-coherence"] = figures.topic_bars(results, choice.model, choice.measure)
        out["pair-heatmap"] = figures.pair_heatmap(results, choice.model, choice.topic)
    return out


@shared_doc
def kchoice_figures(results, measure: str) -> dict:
    """The K-choice figures the store has the numbers for (none for a store scored before them).

    Parameters
    ----------
    %(report_results)s
    measure : str
        The coherence measure of the exclusivity scatter.

    Returns
    -------
    dict of str to matplotlib.figure.Figure
        ``ldatuning-vs-k`` (:func:`figures.ldatuning_panel`) and ``exclusivity-vs-coherence``
        (:func:`figures.exclusivity_vs_coherence`), each when it can be drawn.
    """
    out = {}
    draws = {"ldatuning-vs-k": lambda: figures.ldatuning_panel(results),
             "exclusivity-vs-coherence": lambda: figures.exclusivity_vs_coherence(results, measure)}
    for name, draw in draws.items():
        try:
            out[name] = draw()
        except ParameterError:  # the store holds none of its numbers
            continue
    return out


def _stability(results):
    """The table of :data:`hooks.STABILITY` (``None`` when unset or no configuration has two runs)."""
    return hooks.STABILITY(results) if hooks.STABILITY is not None else None


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == value


def _cell(value, numeric: bool) -> str:
    if numeric and _is_number(value):
        shown = f"{value:.4f}" if isinstance(value, float) else str(value)
        return f'<td class="num" data-value="{value!r}">{shown}</td>'
    if numeric:
        return '<td class="num" data-value="">-</td>'
    text = html.escape(" ".join(map(str, value)) if isinstance(value, list) else str(value))
    return f'<td data-value="{text}">{text}</td>'


@shared_doc
def topic_table(results) -> str:
    """The sortable table of all topics, with every flag and its explanation.

    Numeric columns (``<th data-type="number">``) sort as numbers, a missing score last; the
    flags are those of ``report_data(...)["topics"]``, so JSON and HTML agree.

    Parameters: %(report_results)s

    Returns
    -------
    str
        The HTML ``<table>``.
    """
    records = _topic_records(results)
    last = ["top_words", "flags", "flag_explanations"]
    columns = [c for c in results.topics.columns if c not in last] + last
    numeric = {c: all(_is_number(r.get(c)) or _missing(r.get(c)) for r in records)
               and any(_is_number(r.get(c)) for r in records) for c in columns}
    kinds = {c: ' data-type="number"' if numeric[c] else "" for c in columns}
    head = "".join(f'<th tabindex="0" scope="col"{kinds[c]}>{html.escape(c.replace("_", " "))}</th>'
                   for c in columns)
    rows = []
    for record in records:
        cells = []
        for c in columns:
            value = record.get(c)
            if c == "flags":
                value = ", ".join(value) or "none"
            elif c == "flag_explanations":
                value = " | ".join(value)
            cells.append(_cell("-" if _missing(value) and not numeric[c] else value, numeric[c]))
        rows.append(f"<tr>{''.join(cells)}</tr>")
    return (f'<table class="sortable" id="topics"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table>')


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and value != value)


def _figure(svgs: dict, name: str, caption: str) -> str:
    return (f'<figure class="plot" id="fig-{name}">{svgs[name]}'
            f"<figcaption class=\"note\">{html.escape(caption)}</figcaption></figure>")


def _kchoice_html(svgs: dict, measure: str) -> str:
    """The section of the ldatuning panel and the exclusivity scatter (or why they are missing)."""
    parts = ['<section id="kchoice"><h2>Choosing K as ldatuning and stm do</h2>']
    if "ldatuning-vs-k" in svgs:
        parts.append(_figure(svgs, "ldatuning-vs-k",
                             "R's ldatuning measures, each mean over runs rescaled to [0, 1] over K: Arun "
                             "2010 and Cao Juan 2009 are better low, Deveaud 2014 and Griffiths 2004 better "
                             "high (Griffiths needs a Gibbs sampler's log-likelihood trace). They disagree "
                             "often; read them beside held-out perplexity and coherence."))
    if "exclusivity-vs-coherence" in svgs:
        parts.append(_figure(svgs, "exclusivity-vs-coherence",
                             f"Each model's mean exclusivity (stm::exclusivity: FREX, weight 0.7, top 10 "
                             f"words) against its mean {measure}: the models to prefer are up and to the "
                             "right (Roberts et al. 2014, stm::searchK)."))
    if len(parts) == 1:
        parts.append('<p class="note" id="kchoice-missing">This store holds no K-choice measure (scored '
                     "before they were added, or by models without topic-word probabilities).</p>")
    return "".join(parts) + "</section>"


def _verdict_html(data: dict) -> str:
    """The verdict: per question an ordered list of sentences, each linked to the chart it rests on."""
    parts = ['<section id="verdict"><h2>Verdict</h2>']
    for question, sentences in data["questions"].items():
        items = "".join(f'<li data-kind="{html.escape(s["kind"])}">{html.escape(s["text"])} '
                        f'<a href="#{html.escape(s["figure"])}">(see the chart)</a></li>'
                        if s["figure"].startswith("fig-") else
                        f'<li data-kind="{html.escape(s["kind"])}">{html.escape(s["text"])} '
                        f'<a href="#{html.escape(s["figure"])}">(see {html.escape(s["figure"])})</a></li>'
                        for s in sentences)
        parts.append(f"<h3>{html.escape(question)}</h3><ol class=\"verdict\">{items}</ol>")
    parts.append(f'<p class="note">Intervals: {data["level"]:.0%} Student t intervals of the mean over the '
                 "runs of each configuration (random starts); stability ranges are the lowest and highest "
                 "run pair. "
                 "No measure settles the choice on its own.</p></section>")
    return "".join(parts)


def _options(names, selected) -> str:
    return "".join(f'<option value="{html.escape(n)}"{" selected" if n == selected else ""}>'
                   f"{html.escape(n)}</option>" for n in names)


def _explorer_html(explorer: dict, choice: Choice) -> str:
    uniform = all(v["prevalence"] is None for v in explorer["models"].values())
    size = ("every circle has the same size: the store keeps no topic prevalence" if uniform
            else "circle area = topic prevalence, its share of the training tokens (equal circles for a "
            "model without topic proportions)")
    return (
        '<section id="explorer"><h2>Topic explorer</h2>'
        f'<p class="note">Every model of the store; the page opens on {html.escape(choice.model)} (best mean '
        f"{html.escape(choice.measure)}) and its least coherent topic. Map: Jensen-Shannon distances between "
        f"the topics' word distributions placed by classical multidimensional scaling ({size}; orange: "
        "flagged). Words: relevance = lambda log p(w|t) + (1 - lambda) log(p(w|t)/p(w)) (Sievert and Shirley "
        "2014); lambda = 1 ranks by probability in the topic, lower values favour words specific to it.</p>"
        '<div class="controls">'
        f'<label for="explorer-model">Model</label><select id="explorer-model">'
        f'{_options(explorer["order"], choice.model)}</select>'
        '<label for="explorer-topic">Topic</label><select id="explorer-topic"></select>'
        '<label for="relevance-lambda">Relevance lambda</label>'
        '<input type="range" id="relevance-lambda" min="0" max="1" step="0.01" value="0.6">'
        '<output id="relevance-value" for="relevance-lambda">0.60</output></div>'
        '<div class="panes"><figure class="plot"><svg id="explorer-map" class="chart" viewBox="0 0 420 420" '
        'role="group" aria-label="intertopic distance map"></svg><figcaption class="note">'
        "Intertopic distance map (click or Tab to a topic, Enter selects).</figcaption></figure>"
        '<figure class="plot"><svg id="explorer-words" class="chart" viewBox="0 0 420 260" role="img" '
        'aria-label="most relevant words"></svg><ol id="relevance-words" class="note"></ol></figure></div>'
        '<div class="panes"><figure class="plot">'
        '<svg id="explorer-heatmap" class="chart" viewBox="0 0 400 400" '
        'role="img" aria-label="word-pair heatmap"></svg></figure><div id="explorer-scores"></div></div>'
        "</section>")


def _pairs_html(explorer: dict) -> str:
    if not explorer["pair_options"]:
        return ""
    firsts = list(explorer["pair_options"])
    return (
        '<section id="pairs"><h2>Two models side by side</h2>'
        '<p class="note">Topics matched one to one (tealeaves.comparison.match_topics, 1 - Jensen-Shannon '
        "distance) and the paired differences of tealeaves compare, from the stored per-document held-out "
        "scores and per-topic coherence.</p>"
        '<div class="controls"><label for="pair-a">Model A</label>'
        f'<select id="pair-a">{_options(firsts, firsts[0])}</select>'
        '<label for="pair-b">Model B</label><select id="pair-b"></select></div>'
        '<div id="pair-summary"></div><table id="pair-topics"><thead><tr><th>topic A</th><th>words A</th>'
        "<th>similarity</th><th>topic B</th><th>words B</th></tr></thead><tbody></tbody></table></section>")


def _flag_note(summary: dict) -> str:
    def row(r):
        by_flag = ", ".join(f"{k} {v}" for k, v in r["by_flag"].items()) or "none"
        return (f"<tr><td>{html.escape(r['config'])}</td><td class=\"num\">{r['k']}</td>"
                f"<td class=\"num\">{r['n_runs']}</td><td class=\"num\">{r['flagged']} of {r['topics']}</td>"
                f"<td class=\"num\">{r['share']:.0%}</td><td>{html.escape(by_flag)}</td></tr>")

    rows = "".join(row(r) for r in summary["rows"])
    rules = "".join(f"<li><b>{html.escape(k)}</b>: {html.escape(v)}</li>"
                    for k, v in summary["rules"].items())
    return ('<section id="flag-note"><h3>Share of topics flagged</h3><table id="flag-shares"><thead><tr>'
            "<th>configuration</th><th>K</th><th>runs</th><th>flagged topics</th><th>share</th>"
            f"<th>by flag</th></tr></thead><tbody>{rows}</tbody></table><p class=\"note\">The rules:</p>"
            f"<ul class=\"note\">{rules}</ul></section>")


def _json_script(element_id: str, value) -> str:
    text = json.dumps(to_jsonable(value), ensure_ascii=False, allow_nan=False).replace("</", "<\\/")
    return f'<script type="application/json" id="{element_id}">{text}</script>'


@shared_doc
def build_html(results, choice: Choice | None = None, title: str = "tealeaves sweep report",
               story: list[str] | None = None) -> str:
    """The report page as one string (see the module docstring).

    Parameters
    ----------
    %(report_results)s
    choice : Choice or None, default None
        The model and topic the explorer opens on (None: :func:`choose`'s defaults).
    title : str, default "tealeaves sweep report"
        The page's title.
    story : list of str or None, default None
        Sentences shown after the verdict as list items (escaped), e.g.
        :func:`~tealeaves.report.story.k_story`.

    Returns
    -------
    str
        The self-contained HTML page.
    """
    from tealeaves.report._assets import asset
    from tealeaves.report.explorer import explorer_data
    from tealeaves.report.settings import settings_html

    choice = choice or choose(results)
    data = report_data(results, choice)
    svgs = {name: figures.svg(fig, name) for name, fig in figure_set(results, choice, inline=True).items()}
    explorer = explorer_data(results, choice.model, choice.topic, choice.measure)
    parts = [f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" "
             f"content=\"width=device-width, initial-scale=1\"><title>{html.escape(title)}"
             f"</title><style>{asset('report.css')}</style></head><body><h1>{html.escape(title)}</h1>",
             _verdict_html(data["verdict"])]
    if story:
        parts.append('<h2>What the numbers say</h2><ul class="story">'
                     + "".join(f"<li>{html.escape(s)}</li>" for s in story) + "</ul>")
    parts += ['<section id="settings"><h2>What was fitted</h2>', settings_html(results), "</section>",
              "<h2>Coherence against K</h2>",
              _figure(svgs, "measures-vs-k", "Mean over topics of each measure; line: mean over runs, band: "
                      "lowest to highest run, points: each run."),
              "<h2>Held-out perplexity against K</h2>",
              _figure(svgs, "perplexity-vs-k",
                      "Document-completion perplexity on the held-out halves (log axis; line: mean over "
                      "runs, band: lowest to highest run) with the uniform and unigram baselines on the same "
                      "words, and the library's own reported perplexity where the engine has one "
                      "(scikit-learn's variational bound), in its own panel when off the models' scale."),
              "<h2>Stability across runs</h2>"]
    if "stability-vs-k" in svgs:
        parts.append(_figure(svgs, "stability-vs-k", "Mean matched topic similarity (1 - Jensen-Shannon "
                             "distance, optimal one-to-one matching) of each pair of runs at each K: line "
                             "the mean, band lowest to highest pair."))
    else:
        parts.append('<p class="note" id="stability-missing">Stability across runs needs at least two '
                     "runs of some configuration (a sweep with 2 or more seeds).</p>")
    parts.append(_kchoice_html(svgs, choice.measure))
    parts += [_explorer_html(explorer, choice), _pairs_html(explorer),
              "<h2>All topics</h2><p class=\"note\">Click a column (or Tab to it and press Enter) to sort; "
              "numeric columns sort as numbers, a missing value last.</p>", topic_table(results),
              _flag_note(data["flag_summary"]),
              _json_script("tealeaves-data", data), _json_script("tealeaves-explorer", explorer),
              f"<script>{asset('report.js')}</script></body></html>"]
    return "".join(parts)


@renamed_parameters({"figures_dir": "figures"})
@shared_doc
def write_report(results, output: str | os.PathLike, choice: Choice | None = None,
                 figures: str | os.PathLike | None = None, title: str = "tealeaves sweep report",
                 story: list[str] | None = None) -> None:
    """Write the HTML page to ``output`` (atomically) and, with ``figures``, each figure as PNG.

    Parameters
    ----------
    %(report_results)s
    output : str or os.PathLike
        The HTML file.
    choice : Choice or None, default None
        The model and topic shown in detail (None: :func:`choose`'s defaults).
    figures : str or os.PathLike or None, default None
        A folder for the PNG figures (None: none written; old name ``figures_dir``).
    title : str, default "tealeaves sweep report"
        The page's title.
    story : list of str or None, default None
        Sentences shown first.

    Raises
    ------
    OutputError
        If a file cannot be written.
    """
    from tealeaves._io import atomic_write

    choice = choice or choose(results)
    page = build_html(results, choice, title, story)
    with atomic_write(output, what="report file") as fh:
        fh.write(page)
    if figures is not None:
        write_figures(results, figures, choice)


@shared_doc
def write_figures(results, folder: str | os.PathLike, choice: Choice | None = None) -> list:
    """Every figure of the report as ``<folder>/<name>.png`` (the folder is created if needed).

    Parameters
    ----------
    %(report_results)s
    folder : str or os.PathLike
        The folder.
    choice : Choice or None, default None
        The model and topic shown in detail (None: :func:`choose`'s defaults).

    Returns
    -------
    list of Path
        The files written.

    Raises
    ------
    OutputError
        If the folder cannot be created or a file written.
    """
    from pathlib import Path

    from tealeaves.errors import OutputError

    folder = Path(folder).expanduser()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"cannot create figures folder '{folder}': {exc.strerror or exc}",
                          fix="give a writable figures folder") from None
    choice = choice or choose(results)
    return [figures.save_png(fig, folder, name) for name, fig in figure_set(results, choice).items()]
