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

from tealeaves._output import to_jsonable
from tealeaves._params import renamed_parameters
from tealeaves.errors import ParameterError
from tealeaves.report import figures, hooks

_CSS = """
body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1100px;color:#222;padding:0 1em}
h1{font-size:1.6em}h2{font-size:1.25em;margin-top:2em;border-bottom:1px solid #ddd}
figure.plot{margin:1em 0}figure.plot svg{max-width:100%;height:auto}
table{border-collapse:collapse;font-size:.85em;width:100%}th,td{border:1px solid #ddd;padding:3px 6px}
th{background:#f3f3f3;cursor:pointer;user-select:none}th.sorted-asc::after{content:" \\25B2"}
th.sorted-desc::after{content:" \\25BC"}td.num{text-align:right;font-variant-numeric:tabular-nums}
.note{color:#666;font-size:.9em}.story li{margin:.4em 0}code{background:#f6f6f6;padding:0 3px}
"""

_JS = """
document.querySelectorAll("table.sortable").forEach(function (table) {
  table.querySelectorAll("th").forEach(function (th, col) {
    th.addEventListener("click", function () {
      var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
      var asc = !th.classList.contains("sorted-asc");
      table.querySelectorAll("th").forEach(function (h) { h.classList.remove("sorted-asc", "sorted-desc"); });
      th.classList.add(asc ? "sorted-asc" : "sorted-desc");
      rows.sort(function (a, b) {
        var x = a.cells[col].dataset.value, y = b.cells[col].dataset.value;
        var nx = parseFloat(x), ny = parseFloat(y), r;
        if (!isNaN(nx) && !isNaN(ny)) { r = nx - ny; } else { r = String(x).localeCompare(String(y)); }
        return asc ? r : -r;
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
});
"""


@dataclass
class Choice:
    """The model of the per-topic bars and the topic of the heatmap.

    Parameters
    ----------
    model : str
        The stored model's name.
    topic : int
        The topic's index.
    measure : str
        The coherence measure shown.
    """

    model: str
    topic: int
    measure: str


def choose(results, model: str | None = None, topic: int | None = None) -> Choice:
    """Default model: the best mean of the first coherence measure; default topic: its worst topic.

    Parameters
    ----------
    results : Results
        A sweep's results store (:class:`~tealeaves.sweep.Results`).
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
    if topic is None:
        topic = int(topics.sort_values([measure, "topic"]).iloc[0]["topic"])
    elif not 0 <= topic < int(row["k"]):
        raise ParameterError(f"topic {topic} is out of range for {model} (K={row['k']})",
                             fix=f"give a topic from 0 to {int(row['k']) - 1}")
    return Choice(model, int(topic), measure)


def report_data(results, choice: Choice | None = None) -> dict:
    """Every number of the report, JSON-ready: the store's contents, summaries per K, the choice.

    Parameters
    ----------
    results : Results
        A sweep's results store (:class:`~tealeaves.sweep.Results`).
    choice : Choice or None, default None
        The model and topic shown in detail (None: :func:`choose`'s defaults).

    Returns
    -------
    dict
        The store's contents, ``by_k`` (mean, min, max and count per engine and K),
        ``chosen``, ``flags`` and ``stability``.
    """
    choice = choice or choose(results)
    summary = {}
    for column in figures.coherence_measures(results) + list(figures.LIKELIHOOD_COLUMNS):
        if column in results.models and results.models[column].notna().any():
            stats = results.models.groupby(["engine", "k"])[column].agg(["mean", "min", "max", "count"])
            summary[column] = stats.reset_index().to_dict(orient="records")
    flags = hooks.topic_flags(results)
    stability = _stability(results)
    return to_jsonable({
        **results.to_dict(), "by_k": summary, "chosen": choice.__dict__,
        "flags": [{"model": m, "topic": t, "flags": f} for (m, t), f in flags.items()],
        "stability": None if stability is None else stability.to_dict(orient="records")})


def figure_set(results, choice: Choice) -> dict:
    """The report's figures by name (stability only when its hook is set).

    Parameters
    ----------
    results : Results
        A sweep's results store (:class:`~tealeaves.sweep.Results`).
    choice : Choice
        The model and topic shown in detail.

    Returns
    -------
    dict of str to matplotlib.figure.Figure
        ``measures-vs-k``, ``perplexity-vs-k``, ``topic-coherence``, ``pair-heatmap`` and
        ``stability-vs-k`` when there is a stability table.
    """
    out = {"measures-vs-k": figures.measures_vs_k(results),
           "perplexity-vs-k": figures.perplexity_vs_k(results),
           "topic-coherence": figures.topic_bars(results, choice.model, choice.measure),
           "pair-heatmap": figures.pair_heatmap(results, choice.model, choice.topic)}
    table = _stability(results)
    if table is not None:
        out["stability-vs-k"] = figures.stability_vs_k(table)
    return out


def _stability(results):
    """The stability table of :data:`hooks.STABILITY` (``None`` when unset or no K has two seeds)."""
    return hooks.STABILITY(results) if hooks.STABILITY is not None else None


def _cell(value) -> str:
    if isinstance(value, float):
        return f'<td class="num" data-value="{value!r}">{value:.4f}</td>'
    if isinstance(value, int):
        return f'<td class="num" data-value="{value}">{value}</td>'
    text = html.escape(" ".join(value) if isinstance(value, list) else str(value))
    return f'<td data-value="{text}">{text}</td>'


def topic_table(results) -> str:
    """The sortable table of all topics (numbers sort numerically; a missing score sorts as text).

    Parameters
    ----------
    results : Results
        A sweep's results store (:class:`~tealeaves.sweep.Results`).

    Returns
    -------
    str
        The HTML ``<table>``.
    """
    flags = hooks.topic_flags(results)
    frame = results.topics
    last = ["top_words", "flags", "flag_explanations"]
    columns = [c for c in frame.columns if c not in last] + [c for c in last if c in frame or c == "flags"]
    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    rows = []
    for record in frame.to_dict(orient="records"):
        record["flags"] = ", ".join(flags.get((record["model"], record["topic"]), [])) or "none"
        cells = "".join(_cell("-" if _missing(record[c]) else record[c]) for c in columns)
        rows.append(f"<tr>{cells}</tr>")
    return (f'<table class="sortable" id="topics"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table>')


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and value != value)


def _settings(results) -> str:
    items = "".join(f"<li><code>{html.escape(str(k))}</code>: {html.escape(json.dumps(v))}</li>"
                    for k, v in results.sweep.items())
    engines = sorted(set(results.models["engine"]))
    return (f"<p>{len(results.models)} models ({', '.join(map(html.escape, engines))}), "
            f"K = {', '.join(str(k) for k in sorted(set(results.models['k'])))}; "
            f"{results.models['seed'].nunique()} seeds.</p><ul>{items}</ul>")


def _figure(svgs: dict, name: str, caption: str) -> str:
    return (f'<figure class="plot" id="fig-{name}">{svgs[name]}'
            f"<figcaption class=\"note\">{html.escape(caption)}</figcaption></figure>")


def build_html(results, choice: Choice | None = None, title: str = "tealeaves sweep report",
               story: list[str] | None = None) -> str:
    """The report page as one string (see the module docstring).

    Parameters
    ----------
    results : Results
        A sweep's results store (:class:`~tealeaves.sweep.Results`).
    choice : Choice or None, default None
        The model and topic shown in detail (None: :func:`choose`'s defaults).
    title : str, default "tealeaves sweep report"
        The page's title.
    story : list of str or None, default None
        Sentences shown first as list items (escaped), e.g. :func:`~tealeaves.report.story.k_story`.

    Returns
    -------
    str
        The self-contained HTML page.
    """
    choice = choice or choose(results)
    figs = figure_set(results, choice)
    svgs = {name: figures.svg(fig, name) for name, fig in figs.items()}
    data = json.dumps(report_data(results, choice), ensure_ascii=False, allow_nan=False).replace("</", "<\\/")
    parts = [f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}"
             f"</title><style>{_CSS}</style></head><body><h1>{html.escape(title)}</h1>"]
    if story:
        parts.append('<h2>What the numbers say</h2><ul class="story">'
                     + "".join(f"<li>{html.escape(s)}</li>" for s in story) + "</ul>")
    parts += ["<h2>The sweep</h2>", _settings(results),
              "<h2>Coherence against K</h2>",
              _figure(svgs, "measures-vs-k", "Mean over topics of each measure; line: mean over seeds, band: "
                      "lowest to highest seed, points: each seed."),
              "<h2>Held-out perplexity against K</h2>",
              _figure(svgs, "perplexity-vs-k", "Document-completion perplexity on the held-out halves, the "
                      "uniform and unigram baselines on the same words, and the library's own reported "
                      "perplexity where the engine has one (scikit-learn's variational bound)."),
              f"<h2>Topics of {html.escape(choice.model)}</h2>",
              _figure(svgs, "topic-coherence",
                      f"{choice.measure} of each topic, labelled with its top words."),
              _figure(svgs, "pair-heatmap", f"Word-pair {choice.measure} of topic {choice.topic}."),
              "<h2>Stability across seeds</h2>"]
    if "stability-vs-k" in svgs:
        parts.append(_figure(svgs, "stability-vs-k", "Mean matched topic similarity (1 - Jensen-Shannon "
                             "distance, optimal one-to-one matching) of each pair of seeds at each K: line "
                             "the mean, band lowest to highest pair."))
    else:
        parts.append('<p class="note" id="stability-missing">Stability across seeds needs at least two '
                     "seeds at some K (a sweep with 2 or more seeds).</p>")
    parts += ["<h2>All topics</h2><p class=\"note\">Click a column to sort.</p>", topic_table(results),
              f'<script type="application/json" id="tealeaves-data">{data}</script>',
              f"<script>{_JS}</script></body></html>"]
    return "".join(parts)


@renamed_parameters({"figures_dir": "figures"})
def write_report(results, output: str | os.PathLike, choice: Choice | None = None,
                 figures: str | os.PathLike | None = None, title: str = "tealeaves sweep report",
                 story: list[str] | None = None) -> None:
    """Write the HTML page to ``output`` (atomically) and, with ``figures``, each figure as PNG.

    Parameters
    ----------
    results : Results
        A sweep's results store (:class:`~tealeaves.sweep.SweepResults`).
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


def write_figures(results, folder: str | os.PathLike, choice: Choice | None = None) -> list:
    """Every figure of the report as ``<folder>/<name>.png`` (the folder is created if needed).

    Parameters
    ----------
    results : Results
        A sweep's results store (:class:`~tealeaves.sweep.Results`).
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
