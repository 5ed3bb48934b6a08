"""The report's figures, drawn with matplotlib from a :class:`~tealeaves.sweep.SweepResults` (no refitting).

Each function returns a ``matplotlib.figure.Figure`` (no pyplot state, so it runs headless
and in threads); :func:`svg` and :func:`save_png` render one.  Spread over seeds is shown
as every seed's point plus a band from the lowest to the highest value at each K, around
the line of the mean.
"""

from __future__ import annotations

import io
import os
import re
from pathlib import Path

import numpy as np
import pandas as pd

from tealeaves._docs import shared_doc
from tealeaves.errors import ParameterError

#: Model columns that are not measures plotted against K.
LIKELIHOOD_COLUMNS = ("completion_perplexity", "completion_loglik_per_word", "uniform_perplexity",
                      "unigram_perplexity", "heldout_words", "documents_split", "documents_too_short",
                      "library_perplexity", "test_tokens_dropped", "test_types_dropped",
                      "test_tokens_known_share", "top_words_missing_from_reference")


def _figure(width: float = 7.0, height: float = 4.0):
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


#: The K-choice measures (:mod:`tealeaves.comparison.kchoice`): their own panels, not ``measures_vs_k``'s.
KCHOICE_COLUMNS = ("arun2010", "cao_juan2009", "deveaud2014", "griffiths2004", "exclusivity", "frex")
#: ``ldatuning::FindTopicsNumber_plot``'s two panels: the measures to minimise and to maximise.
LDATUNING_PANELS = {"minimize": ("arun2010", "cao_juan2009"), "maximize": ("deveaud2014", "griffiths2004")}


@shared_doc
def coherence_measures(results) -> list[str]:
    """The per-model measures plotted against K: every numeric measure column but the likelihood ones.

    The K-choice measures (:data:`KCHOICE_COLUMNS`) have their own figures
    (:func:`ldatuning_panel`, :func:`exclusivity_vs_coherence`) and are left out.

    Parameters: %(report_results)s

    Returns
    -------
    list of str
        The measure columns with at least one value.
    """
    cols = [c for c in results.measure_names() if c not in LIKELIHOOD_COLUMNS + KCHOICE_COLUMNS]
    return [c for c in cols if pd.api.types.is_numeric_dtype(results.models[c])
            and results.models[c].notna().any()]


def _by_k(models: pd.DataFrame, column: str) -> pd.DataFrame:
    values = models[["k", column]].dropna()
    return values.groupby("k")[column].agg(["mean", "min", "max"]).reset_index()


def _spread(ax, models: pd.DataFrame, column: str, label: str, color=None) -> None:
    """Mean line, min-max band and each seed's point of ``column`` against K."""
    stats = _by_k(models, column)
    if stats.empty:
        return
    (line,) = ax.plot(stats["k"], stats["mean"], marker="o", label=label, color=color)
    ax.fill_between(stats["k"], stats["min"], stats["max"], alpha=0.2, color=line.get_color())
    ax.scatter(models["k"], models[column], s=12, color=line.get_color(), alpha=0.6)


def _k_axis(ax, models: pd.DataFrame) -> None:
    """A log2 K axis with a tick at every K of the sweep."""
    ks = sorted(set(int(k) for k in models["k"]))
    ax.set_xscale("log", base=2)
    ax.set_xticks(ks, [str(k) for k in ks])
    ax.minorticks_off()


@shared_doc
def measures_vs_k(results):
    """One panel per measure (coherence and hook measures) against K, one line per engine.

    Each line is the mean over seeds, with a band from the lowest to the highest seed and
    each seed's point.

    Parameters: %(report_results)s

    Returns: %(returns_figure)s

    Raises
    ------
    ParameterError
        If the store holds no coherence measure.
    """
    measures = coherence_measures(results)
    if not measures:
        raise ParameterError("the results store holds no coherence measure to plot",
                             fix="run the sweep with the npmi measure (the default)")
    fig = _figure(4.0 * min(len(measures), 3), 3.6 * ((len(measures) + 2) // 3))
    axes = np.atleast_1d(fig.subplots((len(measures) + 2) // 3, min(len(measures), 3))).ravel()
    for ax, measure in zip(axes, measures):
        for engine, models in results.models.groupby("engine"):
            _spread(ax, models, measure, engine)
        ax.set(xlabel="number of topics K", ylabel=f"mean {measure}", title=f"{measure} against K")
        _k_axis(ax, results.models)
        ax.legend(fontsize="small")
    for ax in axes[len(measures):]:
        ax.set_visible(False)
    return fig


#: The library's bound gets its own panel when its values are this many times off the models' range.
OFF_SCALE = 3.0


def _library_off_scale(results) -> bool:
    """Whether the library's perplexity lies outside ``[low / OFF_SCALE, high * OFF_SCALE]`` of the rest."""
    models = results.models
    lib = models["library_perplexity"].dropna() if "library_perplexity" in models else pd.Series(dtype=float)
    rest = pd.concat([models[c].dropna() for c in ("completion_perplexity", "uniform_perplexity",
                                                   "unigram_perplexity") if c in models])
    if lib.empty or rest.empty:
        return False
    return bool(lib.max() > rest.max() * OFF_SCALE or lib.min() < rest.min() / OFF_SCALE)


def _label_baselines(ax, results) -> None:
    """The uniform and unigram baselines as grey lines, each labelled at its right end."""
    for name, style in (("uniform_perplexity", ":"), ("unigram_perplexity", "--")):
        if name not in results.models or results.models[name].isna().all():
            continue
        stats = _by_k(results.models, name)
        label = name.replace("_perplexity", " baseline")
        ax.plot(stats["k"], stats["mean"], style, color="grey", label=label)
        ax.annotate(f"{label} {stats['mean'].iloc[-1]:,.0f}", (stats["k"].iloc[-1], stats["mean"].iloc[-1]),
                    xytext=(4, 3), textcoords="offset points", fontsize="small", color="dimgrey",
                    ha="right", va="bottom")


def _log_ticks(ax) -> None:
    """Readable labels on a log axis: 1,000, 2,000, 5,000 ... rather than powers of ten only."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
    ax.yaxis.set_minor_formatter(NullFormatter())


@shared_doc
def perplexity_vs_k(results):
    """Held-out perplexity against K on a log axis: completion, the labelled baselines, the library's bound.

    Document-completion perplexity (one line per engine, seeds as a band) and the uniform and
    unigram baselines share a log axis.  The library's own reported perplexity (scikit-learn's
    variational bound) joins them when it is on their scale; when it is more than
    :data:`OFF_SCALE` times off it gets its own panel, so it never flattens the rest.

    Parameters: %(report_results)s

    Returns: %(returns_figure)s
    """
    models = results.models
    has_library = "library_perplexity" in models and models["library_perplexity"].notna().any()
    apart = has_library and _library_off_scale(results)
    fig = _figure(11.0 if apart else 7.0, 4.2)
    axes = np.atleast_1d(fig.subplots(1, 2 if apart else 1))
    ax = axes[0]
    for engine, rows in models.groupby("engine"):
        if rows["completion_perplexity"].notna().any():
            _spread(ax, rows, "completion_perplexity", f"{engine}: document completion")
        if has_library and rows["library_perplexity"].notna().any():
            _spread(axes[-1], rows, "library_perplexity", f"{engine}: the library's own perplexity (bound)")
    _label_baselines(ax, results)
    ax.set_yscale("log")
    _log_ticks(ax)
    ax.set(xlabel="number of topics K", ylabel="perplexity (log scale; lower is better)",
           title="held-out perplexity against K")
    if apart:
        axes[1].set_yscale("log")
        _log_ticks(axes[1])
        axes[1].set(xlabel="number of topics K", ylabel="library perplexity (log scale)",
                    title="the library's own bound (another scale)")
    for a in axes:
        _k_axis(a, models)
        a.legend(fontsize="small")
    return fig


@shared_doc
def topic_bars(results, model: str, measure: str, n_words: int = 5):
    """Per-topic ``measure`` of one model as horizontal bars, each labelled with its top words.

    Parameters
    ----------
    %(report_results)s
    %(report_model)s
    measure : str
        A per-topic measure column.
    n_words : int, default 5
        Top words in each label.

    Returns: %(returns_figure)s

    Raises
    ------
    ParameterError
        If the model has no per-topic ``measure`` scores.
    """
    topics = results.topics[results.topics["model"] == model]
    if topics.empty or measure not in topics:
        raise ParameterError(f"no per-topic {measure} scores for model {model}",
                             fix="choose a stored model and measure")
    topics = topics.sort_values("topic")
    scores = topics[measure].astype(float).fillna(0.0).to_numpy()
    labels = [f"{t}: {' '.join(w[:n_words])}" for t, w in zip(topics["topic"], topics["top_words"])]
    fig = _figure(7.0, max(2.5, 0.28 * len(labels) + 1.2))
    ax = fig.subplots()
    positions = np.arange(len(labels))
    ax.barh(positions, scores, color=np.where(scores < 0, "#c0504d", "#4f81bd"))
    ax.set_yticks(positions, labels, fontsize="small")
    ax.invert_yaxis()
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set(xlabel=measure, title=f"{model}: {measure} per topic")
    return fig


@shared_doc
def pair_heatmap(results, model: str, topic: int):
    """The stored word-pair matrix of one topic (the first coherence measure), as a heatmap.

    The diagonal (a word with itself) is left blank; the colour scale is symmetric, -1 to 1 (NPMI's range)
    or wider when a measure's values exceed it.

    Parameters
    ----------
    %(report_results)s
    %(report_model)s
    topic : int
        The topic's index.

    Returns: %(returns_figure)s

    Raises
    ------
    ParameterError
        If no pair matrix is stored for that topic.
    """
    pairs = results.pairs.get((model, int(topic)))
    if not pairs or not pairs.get("words"):
        raise ParameterError(f"no pair matrix stored for topic {topic} of {model}",
                             fix="choose a stored model and one of its topics")
    values = np.array([[np.nan if v is None else v for v in row] for row in pairs["values"]], dtype=float)
    np.fill_diagonal(values, np.nan)  # a word with itself is not a pair the score uses
    fig = _figure(6.0, 5.0)
    ax = fig.subplots()
    finite = values[np.isfinite(values)]
    limit = max(1.0, float(np.abs(finite).max())) if finite.size else 1.0
    image = ax.imshow(np.ma.masked_invalid(values), cmap="RdBu_r", vmin=-limit, vmax=limit)
    ax.set_xticks(range(len(pairs["words"])), pairs["words"], rotation=60, ha="right", fontsize="small")
    ax.set_yticks(range(len(pairs["words"])), pairs["words"], fontsize="small")
    fig.colorbar(image, ax=ax, label=pairs["measure"])
    ax.set_title(f"{model}, topic {topic}: {pairs['measure']} of word pairs")
    return fig


@shared_doc
def stability_vs_k(table: pd.DataFrame):
    """Mean matched similarity across seeds against K (the table of :data:`.hooks.STABILITY`).

    Parameters
    ----------
    table : pandas.DataFrame
        Columns ``engine``, ``k``, ``mean_similarity``, ``low`` and ``high``.

    Returns: %(returns_figure)s
    """
    fig = _figure()
    ax = fig.subplots()
    for engine, rows in table.groupby("engine"):
        (line,) = ax.plot(rows["k"], rows["mean_similarity"], marker="o", label=engine)
        ax.fill_between(rows["k"], rows["low"], rows["high"], alpha=0.2, color=line.get_color())
    ax.set(xlabel="number of topics K", ylabel="mean matched similarity", title="stability across seeds")
    _k_axis(ax, table)
    ax.legend(fontsize="small")
    return fig


def rescale(values: pd.Series) -> pd.Series:
    """``values`` mapped linearly onto ``[0, 1]`` (``scales::rescale``, as ``ldatuning`` plots them).

    The lowest value becomes 0 and the highest 1; when all are equal every value is 0.5 (as
    ``scales::rescale`` maps a zero range to the middle of the target range).

    Parameters
    ----------
    values : pandas.Series
        Finite numbers.

    Returns
    -------
    pandas.Series
        The rescaled values, same index.
    """
    low, high = float(values.min()), float(values.max())
    if high == low:
        return pd.Series(0.5, index=values.index)
    return (values - low) / (high - low)


@shared_doc
def kchoice_table(results) -> pd.DataFrame:
    """Each stored K-choice measure's mean over seeds per engine and K, and the same rescaled to ``[0, 1]``.

    Like ``ldatuning``, which scores every K on one document-term matrix, a line only joins
    models over one vocabulary: models of one engine over different vocabularies (e.g.
    foreign models in ``tealeaves evaluate``) make separate lines, never one mean, since
    these measures depend on the vocabulary (its size bounds Arun's singular values and the
    cosines of Cao Juan).

    Parameters: %(report_results)s

    Returns
    -------
    pandas.DataFrame
        Columns ``engine``, ``vocabulary`` (the stored vocabulary hash, ``""`` when not
        stored), ``k``, ``measure``, ``mean``, ``scaled`` (the mean rescaled over that line's
        K, :func:`rescale`) and ``direction`` (``minimize`` or ``maximize``); the measures
        without a value are absent.
    """
    from tealeaves.comparison.kchoice import KCHOICE_DIRECTIONS

    models = results.models.copy()
    if "vocabulary_hash" not in models:
        models["vocabulary_hash"] = ""
    models["vocabulary_hash"] = models["vocabulary_hash"].fillna("")
    rows = []
    for measure in KCHOICE_COLUMNS:
        if measure not in models or models[measure].isna().all():
            continue
        for (engine, vocabulary), group in models.groupby(["engine", "vocabulary_hash"]):
            stats = _by_k(group, measure)
            if stats.empty:
                continue
            scaled = rescale(stats["mean"])
            rows += [{"engine": engine, "vocabulary": vocabulary, "k": int(k), "measure": measure,
                      "mean": float(m), "scaled": float(s), "direction": KCHOICE_DIRECTIONS[measure]}
                     for k, m, s in zip(stats["k"], stats["mean"], scaled)]
    return pd.DataFrame(rows, columns=["engine", "vocabulary", "k", "measure", "mean", "scaled", "direction"])


def _line_label(name: str, engine: str, vocabulary: str, engines: bool, vocabularies: bool) -> str:
    """``name``, with the engine and vocabulary when the panel has several of them."""
    parts = ([engine] if engines else []) + ([f"vocabulary {vocabulary[:8]}"] if vocabularies else [])
    return f"{name} ({', '.join(parts)})" if parts else name


@shared_doc
def ldatuning_panel(results):
    """The four ``ldatuning`` measures against K, each rescaled to ``[0, 1]``, in two panels.

    As ``ldatuning::FindTopicsNumber_plot``: the measures to minimise (Arun 2010, Cao Juan
    2009) above, those to maximise (Deveaud 2014, Griffiths 2004) below, each measure's mean
    over seeds rescaled over K (:func:`rescale`), one line per measure and engine.  A measure
    no model has (Griffiths 2004 needs a Gibbs sampler's trace) is named in the panel as
    missing.

    Parameters: %(report_results)s

    Returns: %(returns_figure)s

    Raises
    ------
    ParameterError
        If the store holds none of the four measures.
    """
    table = kchoice_table(results)
    table = table[table["measure"].isin(LDATUNING_PANELS["minimize"] + LDATUNING_PANELS["maximize"])]
    if table.empty:
        raise ParameterError("the results store holds none of the ldatuning measures",
                             fix="score the models with this version of tealeaves (sweep or evaluate)")
    several = table["engine"].nunique() > 1
    vocabularies = table.groupby("engine")["vocabulary"].nunique().max() > 1
    markers = {"arun2010": "o", "cao_juan2009": "s", "deveaud2014": "^", "griffiths2004": "D"}
    fig = _figure(7.0, 5.6)
    axes = fig.subplots(2, 1, sharex=True)
    for ax, (direction, names) in zip(axes, LDATUNING_PANELS.items()):
        missing = []
        for name in names:
            rows = table[table["measure"] == name]
            if rows.empty:
                missing.append(name)
            for (engine, vocabulary), line in rows.groupby(["engine", "vocabulary"]):
                ax.plot(line["k"], line["scaled"], marker=markers[name],
                        label=_line_label(name, engine, vocabulary, several, vocabularies))
        title = f"{direction} (better: {'lower' if direction == 'minimize' else 'higher'})"
        if missing:
            title += f"; not available: {', '.join(missing)}"
        ax.set(ylabel="rescaled to [0, 1]", title=title, ylim=(-0.05, 1.05))
        _k_axis(ax, results.models)
        if ax.lines:
            ax.legend(fontsize="small")
    axes[-1].set_xlabel("number of topics K")
    return fig


@shared_doc
def exclusivity_vs_coherence(results, measure: str):
    """Each model's mean exclusivity against its mean coherence, one colour per K (``stm::searchK``'s view).

    Roberts et al. (2014) choose K where models are both coherent and exclusive: the upper
    right.  Each point is one stored model (one run), labelled with its K.

    Parameters
    ----------
    %(report_results)s
    measure : str
        The coherence measure on the x axis (e.g. the first of the sweep; ``stm`` uses UMass).

    Returns: %(returns_figure)s

    Raises
    ------
    ParameterError
        If no model has both an exclusivity and a ``measure`` value.
    """
    models = results.models
    if "exclusivity" not in models or measure not in models:
        raise ParameterError(f"the results store holds no exclusivity or no {measure} to plot",
                             fix="score the models with this version of tealeaves (sweep or evaluate)")
    points = models[["k", measure, "exclusivity"]].dropna()
    if points.empty:
        raise ParameterError(f"no stored model has both an exclusivity and a {measure} value",
                             fix="exclusivity needs topic-word probabilities and two topics")
    from matplotlib import colormaps

    fig = _figure(6.5, 4.6)
    ax = fig.subplots()
    ks = sorted(set(int(k) for k in points["k"]))
    colours = colormaps["viridis"](np.linspace(0.0, 0.9, len(ks)))
    for k, colour in zip(ks, colours):
        rows = points[points["k"] == k]
        ax.scatter(rows[measure], rows["exclusivity"], color=colour, label=f"K={k}", s=28)
        for x, y in zip(rows[measure], rows["exclusivity"]):
            ax.annotate(str(k), (x, y), xytext=(3, 3), textcoords="offset points", fontsize="small")
    ax.set(xlabel=f"mean {measure} (semantic coherence; higher is better)",
           ylabel="mean exclusivity (stm, FREX w=0.7; higher is better)",
           title="exclusivity against coherence, one point per model")
    ax.legend(fontsize="small", title="topics")
    return fig


def svg(fig, name: str) -> str:
    """``fig`` as an inline ``<svg>`` element (no XML prolog), its ids made unique with ``name``.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure.
    name : str
        Prefix of its element ids (and the SVG hash salt), so figures in one page never share an id.

    Returns
    -------
    str
        The SVG markup.
    """
    import matplotlib

    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": name, "svg.fonttype": "path"}):
        fig.savefig(buffer, format="svg")
    text = buffer.getvalue()
    text = text[text.index("<svg"):]
    # glyph and clip ids are per figure; prefix them so figures in one page never share an id
    text = re.sub(r'id="([^"]+)"', rf'id="{name}-\1"', text)
    text = re.sub(r'(href|xlink:href)="#([^"]+)"', rf'\1="#{name}-\2"', text)
    return re.sub(r"url\(#([^)]+)\)", rf"url(#{name}-\1)", text)


def save_png(fig, folder: str | os.PathLike, name: str, dpi: int = 120) -> Path:
    """Write ``fig`` as ``<folder>/<name>.png`` atomically.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure.
    folder : str or os.PathLike
        An existing folder.
    name : str
        The file name without ``.png``.
    dpi : int, default 120
        Resolution.

    Returns
    -------
    Path
        The path written.

    Raises
    ------
    OutputError
        If the file cannot be written.
    """
    from tealeaves._io import atomic_write

    path = Path(folder) / f"{name}.png"
    with atomic_write(path, "wb", what="figure file") as fh:
        fig.savefig(fh, format="png", dpi=dpi)
    return path
