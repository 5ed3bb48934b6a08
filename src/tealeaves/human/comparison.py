"""Comparing measures against people: dependent correlations, groups, and model-level results.

* :func:`williams_t`: Williams' (1959) t for two dependent correlations that
  share one variable, in the form recommended by Steiger (1980, eq. 7)::

      t = (r12 - r13) sqrt( (n - 1)(1 + r23) /
                           (2 (n - 1)/(n - 3) |R| + ((r12 + r13)/2)^2 (1 - r23)^3) ),
      |R| = 1 - r12^2 - r13^2 - r23^2 + 2 r12 r13 r23,   df = n - 3.

  Here 1 is the human score and 2, 3 the two measures.
* :func:`compare_measures`: the difference of two measures' correlations with
  the human score over the topics where all three are present (topics missing
  either measure are dropped from both and counted), with a paired bootstrap
  interval (each resample correlates both measures on the same topics) and
  Williams' t.
* :func:`by_group`: correlations per group (``dataset``, ``model``, ...) and pooled.
* :func:`model_level`: mean human score and mean measure per model, with
  bootstrap intervals over each model's topics (Chang et al. 2009, Figs. 3-4).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from tealeaves._docs import shared_doc
from tealeaves.human.correlation import FUNCS, CorrelationError, check_options, correlate, pearson, spearman
from tealeaves.human.llm.meta import signed_llm
from tealeaves.signature import Signature


def williams_t(r12: float, r13: float, r23: float, n: int) -> dict:
    """Williams' t (Steiger 1980 eq. 7) for H0: rho12 = rho13, with the two-sided p-value (df = n - 3).

    Williams (1959); the formula is in the module docstring.  1 is the human score, 2 and 3 the
    two measures.

    Parameters
    ----------
    r12 : float
        Correlation of the human score with the first measure.
    r13 : float
        Correlation of the human score with the second measure.
    r23 : float
        Correlation of the two measures.
    n : int
        Number of topics.

    Returns
    -------
    dict
        ``t``, ``df`` (``n - 3``) and ``p_value`` (two-sided, Student's t).

    Raises
    ------
    CorrelationError
        With fewer than 4 topics, or when the two measures are perfectly correlated.
    """
    from scipy import stats

    if n < 4:
        raise CorrelationError(f"Williams' test needs at least 4 topics, got {n}")
    det = 1 - r12**2 - r13**2 - r23**2 + 2 * r12 * r13 * r23
    den = 2 * (n - 1) / (n - 3) * det + ((r12 + r13) / 2) ** 2 * (1 - r23) ** 3
    if not den > 0 or abs(r23) >= 1 - 1e-12:
        raise CorrelationError("Williams' test is undefined: the two measures are perfectly correlated")
    t = (r12 - r13) * math.sqrt((n - 1) * (1 + r23) / den)
    return {"t": t, "df": n - 3, "p_value": float(2 * stats.t.sf(abs(t), n - 3))}


def shared(human: Mapping, a: Mapping, b: Mapping) -> tuple[list[str], dict]:
    """Topics with the human score and both measures; the topics dropped for lacking one, counted.

    Values that are None count as absent.

    Parameters
    ----------
    human : mapping
        Topic -> human score.
    a : mapping
        Topic -> first measure.
    b : mapping
        Topic -> second measure.

    Returns
    -------
    keys : list of str
        The topics with all three, ordered by length then text.
    dropped : dict
        ``missing_first`` and ``missing_second``: topics of ``human`` lacking each measure.
    """
    h, ma, mb = ({str(k): v for k, v in d.items() if v is not None} for d in (human, a, b))
    keys = [k for k in h if k in ma and k in mb]
    dropped = {
        "missing_first": sum(k in h and k not in ma for k in h),
        "missing_second": sum(k in h and k not in mb for k in h),
    }
    return sorted(keys, key=lambda s: (len(s), s)), dropped


@shared_doc
def compare_measures(
    human: Mapping,
    a: Mapping,
    b: Mapping,
    *,
    method: str = "pearson",
    names: Sequence[str] = ("first", "second"),
    human_name: str = "human",
    n_boot: int = 2000,
    seed: int = 0,
    level: float = 0.95,
    bootstrap: str = "topics",
    responses: Mapping | None = None,
    llm: Mapping | None = None,
) -> dict:
    """Difference of two measures' correlations with the human score: paired bootstrap CI and Williams' t.

    With ``method="spearman"`` the test is applied to the ranks (Spearman's rho
    is Pearson's r of ranks).  Kendall's tau gets the bootstrap interval only.
    ``bootstrap`` is the level resampled (:mod:`tealeaves.human.resampling`);
    every resample correlates both measures with the same resampled scores.

    Parameters
    ----------
    %(human_scores)s
    a : mapping
        Topic -> first measure.
    b : mapping
        Topic -> second measure.
    %(correlation_method)s
    names : sequence of str
        The two measures' names, keys of their correlations in the result.
    human_name : str
        Name of the human score.
    %(bootstrap_n_boot)s %(bootstrap_seed)s %(bootstrap_level)s %(bootstrap_unit)s
    responses : mapping, optional
        Topic -> per-response values of the human score (for ``annotators`` and ``both``).
    %(llm_signature)s

    Returns
    -------
    dict
        ``human``, ``measures``, ``method``, ``n_topics``, ``dropped`` (:func:`shared`), each
        measure's correlation, ``difference`` (first minus second), ``ci`` (paired bootstrap),
        ``signature`` and, for Pearson and Spearman, ``williams_t`` (:func:`williams_t`, or
        ``undefined`` with the reason).

    Raises
    ------
    CorrelationError
        With fewer than 4 shared topics, when every resample was constant, or responses are
        missing for the annotator-level bootstrap.
    %(raises_option_range)s
    """
    from tealeaves.human.resampling import draw, responses_for

    n_boot, seed, level, (method,), bootstrap = check_options(n_boot, seed, level, [method], bootstrap)
    llm = signed_llm(llm)
    keys, dropped = shared(human, a, b)
    if len(keys) < 4:
        raise CorrelationError(
            f"{human_name}, {names[0]} and {names[1]} share {len(keys)} topics; "
            "comparing two correlations needs at least 4"
        )
    x, ya, yb = (np.array([float(d[k]) for k in keys]) for d in (human, a, b))
    f = FUNCS[method]
    r1, r2 = f(x, ya), f(x, yb)
    rng = np.random.default_rng(seed)
    if bootstrap == "topics":
        idx = rng.integers(0, len(keys), size=(n_boot, len(keys)))
        hx = x[idx]
    else:
        idx, hx, _ = draw(rng, responses_for(keys, responses, human_name), n_boot, bootstrap)
    diffs = []
    for h, row in zip(hx, idx):
        try:
            diffs.append(f(h, ya[row]) - f(h, yb[row]))
        except CorrelationError:
            continue
    if not diffs:
        raise CorrelationError("every bootstrap resample was constant; too few distinct topics")
    lo, hi = np.quantile(diffs, [(1 - level) / 2, (1 + level) / 2])
    out = {
        "human": human_name,
        "measures": list(names),
        "method": method,
        "n_topics": len(keys),
        "dropped": dropped,
        names[0]: r1,
        names[1]: r2,
        "difference": r1 - r2,
        "ci": {
            "low": float(lo),
            "high": float(hi),
            "level": level,
            "n_boot": n_boot,
            "n_degenerate": n_boot - len(diffs),
            "seed": seed,
            "paired": True,
            "bootstrap": bootstrap,
        },
        "signature": str(
            Signature(
                "correlation-difference",
                {
                    "human": human_name,
                    "measures": list(names),
                    "method": method,
                    "boot": n_boot,
                    "seed": seed,
                    "ci": level,
                    "resample": bootstrap,
                    **llm,
                },
            )
        ),
    }
    if method in ("pearson", "spearman"):
        try:
            out["williams_t"] = williams_t(r1, r2, f(ya, yb), len(keys))
        except CorrelationError as exc:  # the two measures perfectly correlated: the interval still stands
            out["williams_t"] = {"undefined": str(exc)}
    return out


def split_key(topic: str, key: Sequence[str], sep: str) -> dict[str, str]:
    """The components of a composite topic id (``"nyt/lda/3"`` with key ``dataset,model,topic``).

    Parameters
    ----------
    topic : str
        The composite id.
    key : sequence of str
        The names of its parts.
    sep : str
        Their separator.

    Returns
    -------
    dict
        ``{part name: value}``.

    Raises
    ------
    CorrelationError
        When the id does not have as many parts as ``key``.
    """
    parts = str(topic).split(sep)
    if len(parts) != len(key):
        from tealeaves._params import naming

        raise naming(CorrelationError(
            f"topic id {topic!r} does not have the {len(key)} parts {list(key)} separated by {sep!r}",
            fix="pass the `key` the ids were composed from",
        ), "key")
    return dict(zip(key, parts))


def groups_of(topics, key: Sequence[str], sep: str, by: Sequence[str], by_name: str = "by"
              ) -> dict[tuple, list[str]]:
    """Topic ids per value of the ``by`` components, in first-seen order.

    Parameters
    ----------
    topics : iterable of str
        Composite topic ids.
    key : sequence of str
        The names of their parts.
    sep : str
        Their separator.
    by : sequence of str
        The parts to group by (among ``key``).
    by_name : str
        The caller's name for ``by`` in errors (``group`` for :func:`model_level`).

    Returns
    -------
    dict
        ``{values of the by parts: [topic ids]}``.

    Raises
    ------
    CorrelationError
        When ``key`` is empty, ``by`` names a part not in ``key``, or an id does not fit ``key``.
    """
    from tealeaves._params import naming

    if not key:
        raise naming(CorrelationError(
            "the parts of the topic ids are unknown (the scores file records no topic_key)",
            fix="pass `key`, e.g. `key='dataset,model,topic'`",
        ), "key")
    unknown = [b for b in by if b not in key]
    if unknown:
        raise naming(CorrelationError(
            f"{by_name} {list(unknown)} are not parts of the topic key {list(key)}",
            fix=f"choose among {list(key)}",
        ), by_name)
    out: dict[tuple, list[str]] = {}
    for t in topics:
        parts = split_key(t, key, sep)
        out.setdefault(tuple(parts[b] for b in by), []).append(str(t))
    return out


def by_group(
    human: Mapping,
    measure: Mapping,
    *,
    key: Sequence[str],
    by: Sequence[str],
    sep: str = "/",
    responses: Mapping | None = None,
    **options,
) -> list[dict]:
    """:func:`correlate` per group of ``by`` and pooled (first); a group with < 3 topics says why.

    Parameters
    ----------
    human : mapping
        Composite topic id -> human score.
    measure : mapping
        Composite topic id -> measure value.
    key : sequence of str
        The names of the parts of the topic ids (e.g. ``dataset, model, topic``).
    by : sequence of str
        The parts to group by.
    sep : str
        The separator of the parts.
    responses : mapping, optional
        Topic -> per-response values, for the annotator-level bootstrap.
    **options
        Passed to :func:`~tealeaves.human.correlation.correlate` (``methods``, ``n_boot``,
        ``seed``, ``level``, names, ``bootstrap``, ``llm``).

    Returns
    -------
    list of dict
        The pooled result first, then one per group: ``group`` (the ``by`` parts' values) and
        the correlations, or ``n_topics`` and ``undefined`` (the reason).

    Raises
    ------
    CorrelationError
        When the ids do not fit ``key`` or the pooled correlation is undefined.
    """
    groups = groups_of(list(map(str, human)), key, sep, by)  # every id must fit the key
    present = {str(k) for k in measure}
    out = [{"group": "pooled", **correlate(human, measure, responses=responses, **options)}]
    for values, topics in groups.items():
        label = dict(zip(by, values))
        topics = [t for t in topics if t in present]
        sub_h = {t: human[t] for t in topics}
        sub_m = {t: measure[t] for t in topics}
        try:
            out.append({"group": label, **correlate(sub_h, sub_m, responses=responses, **options)})
        except CorrelationError as exc:
            out.append({"group": label, "n_topics": len(topics), "undefined": str(exc)})
    return out


def _mean_ci(values: np.ndarray, rng, n_boot: int, level: float) -> dict:
    means = values[rng.integers(0, values.size, (n_boot, values.size))].mean(1)
    lo, hi = np.quantile(means, [(1 - level) / 2, (1 + level) / 2])
    return {"mean": float(values.mean()), "low": float(lo), "high": float(hi), "n": int(values.size)}


@shared_doc
def model_level(
    human: Mapping,
    measure: Mapping,
    *,
    key: Sequence[str],
    sep: str = "/",
    group: str | Sequence[str] = "model",
    per_model: bool = False,
    n_boot: int = 2000,
    seed: int = 0,
    level: float = 0.95,
    human_name: str = "human",
    measure_name: str = "measure",
    llm: Mapping | None = None,
) -> dict:
    """Mean human score per model vs the model's measure (its mean over topics, or a per-model value).

    ``per_model=True``: ``measure`` is keyed by the model (e.g. held-out
    likelihood); otherwise it is per topic and averaged per model, with an
    interval.  With three models or more the correlation of the model means
    (Pearson and Spearman) is reported.  ``group`` may name several parts of
    the key (``["dataset", "model"]``: a model per dataset, as in Chang et al.'s
    panels); a row then has each part, and a per-model table is keyed by the
    parts joined by ``sep``.  This is the model-level comparison of Chang et al.
    (2009, Figs. 3-4); Hoyle et al. (2021) examine how automatic and human evaluations
    agree at this level.

    Parameters
    ----------
    human : mapping
        Composite topic id -> human score.
    measure : mapping
        Composite topic id -> measure value, or model -> value with ``per_model``.
    key : sequence of str
        The names of the parts of the topic ids.
    sep : str
        The separator of the parts.
    group : str or sequence of str
        The part(s) naming a model.
    per_model : bool
        ``measure`` is keyed by the model instead of the topic.
    n_boot : int
        Bootstrap resamples of each model's topics.
    %(bootstrap_seed)s
    level : float
        Confidence level of the intervals, in (0, 1).
    human_name : str
        Name of the human score.
    measure_name : str
        Name of the measure.
    %(llm_signature)s

    Returns
    -------
    dict
        ``human``, ``measure``, ``group``, ``models`` (per model: its parts, ``label``,
        ``human`` and ``measure`` as ``mean``, ``low``, ``high``, ``n``; ``measure`` None without
        one), ``n_without_measure``, ``signature`` and, with three usable models or more,
        ``pearson`` and ``spearman`` (or ``undefined``).

    Raises
    ------
    CorrelationError
        When ``key`` is empty, a ``group`` part is not in it, or an id does not fit it.
    %(raises_option_range)s
    """
    n_boot, seed, level, _, _ = check_options(n_boot, seed, level, [])
    llm = signed_llm(llm)
    parts = [group] if isinstance(group, str) else list(group)
    rng = np.random.default_rng(seed)
    rows = []
    for values, topics in groups_of(list(map(str, human)), key, sep, parts, "group").items():
        h = np.array([float(human[t]) for t in topics])
        name = sep.join(values)
        row = {**dict(zip(parts, values)), "label": name, "human": _mean_ci(h, rng, n_boot, level)}
        if per_model:
            value = measure.get(name)
            row["measure"] = None if value is None else {"mean": float(value), "n": 1}
        else:
            m = np.array([float(measure[t]) for t in topics if t in measure])
            row["measure"] = _mean_ci(m, rng, n_boot, level) if m.size else None
        rows.append(row)
    usable = [r for r in rows if r["measure"] is not None]
    out = {
        "human": human_name,
        "measure": measure_name,
        "group": parts,
        "models": rows,
        "n_without_measure": len(rows) - len(usable),
        "signature": str(
            Signature(
                "model-level",
                {
                    "human": human_name,
                    "measure": measure_name,
                    "group": parts,
                    "boot": n_boot,
                    "seed": seed,
                    "ci": level,
                    **llm,
                },
            )
        ),
    }
    if len(usable) >= 3:
        hx = np.array([r["human"]["mean"] for r in usable])
        mx = np.array([r["measure"]["mean"] for r in usable])
        for name, f in (("pearson", pearson), ("spearman", spearman)):
            try:
                out[name] = f(hx, mx)
            except CorrelationError as exc:
                out[name] = {"undefined": str(exc)}
    return out


def model_plot(result: dict, path, *, xlabel: str | None = None, fmt: str = "png"):
    """Human score against the measure per model, with intervals (Chang et al. 2009, Fig. 3 style).

    Models without a measure are left out.

    Parameters
    ----------
    result : dict
        The result of :func:`model_level`.
    path : str or os.PathLike
        The image file.
    xlabel : str, optional
        Label of the x axis (default: the measure's name).
    fmt : str
        Image format passed to matplotlib (``png``, ``pdf``, ``svg``...).

    Returns
    -------
    str or os.PathLike
        ``path``.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for r in result["models"] if r["measure"] is not None]
    fig, ax = plt.subplots(figsize=(5, 4))
    for r in rows:
        h, m = r["human"], r["measure"]
        xerr = [[m["mean"] - m["low"]], [m["high"] - m["mean"]]] if "low" in m else None
        ax.errorbar(
            m["mean"],
            h["mean"],
            yerr=[[h["mean"] - h["low"]], [h["high"] - h["mean"]]],
            xerr=xerr,
            fmt="o",
            capsize=3,
        )
        ax.annotate(
            r["label"],
            (m["mean"], h["mean"]),
            fontsize=8,
            xytext=(4, 4),
            textcoords="offset points",
        )
    ax.set_xlabel(xlabel or result["measure"])
    per = "/".join(result["group"])
    ax.set_ylabel(f"{result['human']} (mean per {per})")
    ax.set_title(f"{result['human']} vs {result['measure']} per {per}", fontsize=9)
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(5))
    fig.tight_layout()
    fig.savefig(path, dpi=120, format=fmt)
    plt.close(fig)
    return path
