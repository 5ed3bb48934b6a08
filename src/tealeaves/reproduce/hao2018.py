"""``tealeaves reproduce hao2018``, figures 6, 7, 8 and 10: Hao, Boyd-Graber and Paul (2018), §5.4 and §6.

Wikipedia is not available, so the models and references are built from the modern parallel text
of :mod:`tealeaves.reproduce.bible_vs_modern`; the *poor* reference is always the Bible (chapters).
Section 6.1's models are trained on ``train_fraction`` of the modern tuples (FLORES-200, NTREX-128,
UDHR, TICO-19...; seeded split), with K = ``n_topics``, link fractions ``link_fractions`` (the
share of tuples sharing theta; the rest are unlinked monolingual documents) and ``seeds``; the
*held-out half* of the modern tuples is the rich reference.

* **Figure 6 (cardinality)**: per fully linked model, mean CNPMI (rich and Bible) and MTA
  (Wiktionary) of the top C = 10..50 words;
* **Figure 7 (training knowledge)**: mean CNPMI at C = 10 per link fraction;
* **Figure 8 (agreement with classification)**: ``design="links"`` (default; §6.2 "for each model"
  follows §6.1): Section 6.1's models; ``design="pooled-k"``: models of the 481 FLORES-200
  documents with K = ``clf_topics`` x ``clf_links`` x ``clf_seeds``, whose rich reference is the
  modern text that is not FLORES.  Per pair, the Pearson r across the models between crosslingual
  classification macro-F1 (SIB-200 labels of the FLORES documents; train on English theta, test on
  X's, both folded in: :func:`tealeaves.multilingual.classification.crosslingual_classification`)
  and mean CNPMI at C = 10 on the Bible and on the rich reference.  The rich reference is cut into
  ``rich_unit`` units (:func:`unit_texts`): whole documents, single sentences (``"sentence"``,
  default: NTREX-128 and TICO-19 by sentence, FLORES documents of 2-4 sentences and UDHR articles
  whole) or runs of N sentences of one document; the same text, several times more units.
  With two or more languages also **Table 4**: the model-level mean of the coherence estimator's
  prediction (all features, trained on the other languages' topics), correlated with F1
  (``r_estimator``, the caption's reading) and with the rich CNPMI (``r_rich_estimator``, §6.3's
  reading; the Bible's own: ``r_rich_bible``);
* **Figure 10 (reference size)**: CNPMI at C = 10 of the fully linked seed-0 model on random
  20..100% subsets of the units of the held-out half (``rich_unit``), mean and spread over
  ``n_resamples`` draws.

Figures 6 and 7 average over the ``seeds``.  :func:`markdown` prints the tables exactly as
docs/multilingual.md shows them.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass
from functools import cached_property

import numpy as np

from tealeaves._docs import shared_doc
from tealeaves.reproduce.hao2018_units import modern_units, nonflores_texts, unit_group, unit_texts  # noqa: F401
from tealeaves.reproduce.params import N_ITER
from tealeaves.signature import Signature

FIGURES = (6, 7, 8, 10)
DESIGNS = ("links", "pooled-k")


@dataclass
class Config:
    """Settings of a run (``quick()`` is the CI size).

    Parameters
    ----------
    languages : tuple of str, default ("ro", "sv", "tl")
        The languages X, each paired with English.
    n_topics : int, default 20
        K of Section 6.1's models.
    n_iter : int, default 400
        Gibbs iterations of every polylingual model.
    seeds : tuple of int, default (0, 1, 2)
        Seeds of Section 6.1's models (Figures 6 and 7 average over them).
    cardinalities : tuple of int, default (10, 20, 30, 40, 50)
        Figure 6's numbers of top words C.
    link_fractions : tuple of float, default (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
        Section 6.1's shares of linked training tuples (Figure 7; Figure 8 with
        ``design="links"``).
    reference_fractions : tuple of float, default (0.2, 0.4, 0.6, 0.8, 1.0)
        Figure 10's shares of the held-out half's units.
    n_resamples : int, default 10
        Figure 10's random subsets per share (one for the whole).
    clf_topics : tuple of int, default (10, 20, 40)
        K of Figure 8's FLORES models (``design="pooled-k"``).
    clf_links : tuple of float, default (0.0, 0.5, 1.0)
        Their link fractions.
    clf_seeds : tuple of int, default (0, 1)
        Their seeds.
    cardinality : int, default 10
        Top words C of Figures 7, 8 and 10.
    split_seed : int, default 0
        Seed of the split of the modern tuples (and of Figure 10's draws).
    design : {"links", "pooled-k"}, default "links"
        Figure 8's models: Section 6.1's, or FLORES models over
        ``clf_topics`` x ``clf_links`` x ``clf_seeds``.
    rich_unit : str, default "sentence"
        Units of the rich reference: ``"document"``, ``"sentence"`` or a whole
        number N of sentences as text (:func:`unit_group`).
    """

    languages: tuple[str, ...] = ("ro", "sv", "tl")
    n_topics: int = 20
    n_iter: int = 400
    seeds: tuple[int, ...] = (0, 1, 2)
    cardinalities: tuple[int, ...] = (10, 20, 30, 40, 50)
    link_fractions: tuple[float, ...] = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
    reference_fractions: tuple[float, ...] = (0.2, 0.4, 0.6, 0.8, 1.0)
    n_resamples: int = 10
    clf_topics: tuple[int, ...] = (10, 20, 40)
    clf_links: tuple[float, ...] = (0.0, 0.5, 1.0)
    clf_seeds: tuple[int, ...] = (0, 1)
    cardinality: int = 10
    split_seed: int = 0
    design: str = "links"
    rich_unit: str = "sentence"

    @classmethod
    @shared_doc
    def quick(cls) -> Config:
        """The CI size: Swedish only, K = 10, 60 iterations, fewer settings and draws.

        Returns: %(returns_quick_config)s
        """
        return cls(languages=("sv",), n_topics=10, n_iter=60, seeds=(0, 1), link_fractions=(0.0, 0.5, 1.0),
                   reference_fractions=(0.2, 0.6, 1.0), n_resamples=4, clf_topics=(5, 10),
                   clf_links=(0.0, 1.0), clf_seeds=(0,))

    def figure8_settings(self) -> list[tuple[int, float, int]]:
        """The (K, link fraction, seed) of Figure 8's models, in a fixed order.

        Returns
        -------
        list of tuple
            ``(K, link fraction, seed)`` per model: ``n_topics`` with
            ``link_fractions`` x ``seeds`` (``design="links"``), else
            ``clf_topics`` x ``clf_links`` x ``clf_seeds``.
        """
        if self.design == "links":
            return [(self.n_topics, link, seed) for link in self.link_fractions for seed in self.seeds]
        return [(k, link, seed) for k in self.clf_topics for link in self.clf_links
                for seed in self.clf_seeds]


class _Pair:
    """Training tuples, rich and poor references and the dictionary of one English-X pair (lazy)."""

    def __init__(self, lang: str, config: Config, models: dict | None = None):
        from tealeaves.multilingual.reference import named_reference

        self.lang, self.config = lang, config
        self.poor = named_reference("bible", ["en", lang])
        self._models = {} if models is None else models

    @cached_property
    def _halves(self):
        from tealeaves.reproduce.bible_vs_modern import Config as BvmConfig
        from tealeaves.reproduce.bible_vs_modern import modern_texts, split_modern

        bvm = BvmConfig(split_seed=self.config.split_seed)
        return split_modern(modern_texts(self.lang, bvm), bvm)

    @cached_property
    def train(self):
        """Figures 6 and 7: the training half of the modern tuples."""
        return self._halves[0].to_aligned()

    @cached_property
    def rich(self):
        """Figures 6 and 7: the other half, as the rich reference."""
        from tealeaves.multilingual.reference import reference_from_texts

        return reference_from_texts(self._halves[1], f"modern-heldout-en-{self.lang}")

    @cached_property
    def rich_units(self):
        """Figures 8 (``design="links"``) and 10: the held-out half in ``config.rich_unit`` units."""
        from tealeaves.multilingual.reference import reference_from_texts

        unit = self.config.rich_unit
        if unit == "document":
            return self.rich
        name = f"modern-heldout-{unit}-en-{self.lang}"
        return reference_from_texts(unit_texts(self._halves[1], self.lang, unit), name)

    @cached_property
    def flores(self):
        """Figure 8: the FLORES-200 documents (SIB-200 labels) to classify (``pooled-k``: also to train)."""
        from tealeaves.corpus.parallel import flores_documents

        return flores_documents(["en", self.lang]).to_aligned()

    @cached_property
    def flores_heldin(self):
        """Figure 8 (``links``): the FLORES-200 documents encoded with the training half's vocabularies
        (``fit=False``), as the Figure 7 models' fold-in needs."""
        from tealeaves.corpus.parallel import flores_documents

        return flores_documents(["en", self.lang]).to_aligned(self.train.preprocessors, fit=False)

    @cached_property
    def nonflores(self):
        """Figure 8 (``pooled-k``): the rich reference, the non-FLORES modern text in ``rich_unit`` units."""
        from tealeaves.multilingual.reference import reference_from_texts

        unit = self.config.rich_unit
        name = f"modern-nonflores-{unit}-en-{self.lang}"
        return reference_from_texts(nonflores_texts(self.lang, unit), name)

    @cached_property
    def dictionary(self):
        from tealeaves.data import locate
        from tealeaves.multilingual.dictionaries import read_wiktionary

        return read_wiktionary(locate(f"dictionaries/wiktionary/{self.lang}-en.all"))

    def model(self, link: float, seed: int, n_topics: int | None = None, corpus=None, key: str = "modern"):
        """A fitted PLTM (cached per settings)."""
        from tealeaves.models.polylingual import PolylingualTopicModel

        c = self.config
        k = (self.lang, key, n_topics or c.n_topics, link, seed, c.n_iter, c.split_seed)
        if k not in self._models:
            self._models[k] = PolylingualTopicModel(
                n_components=n_topics or c.n_topics, n_iter=c.n_iter, link_fraction=link, random_state=seed,
                optimize_burn_in=min(200, c.n_iter // 2),
                n_threads=1).fit(self.train if corpus is None else corpus)  # serial: the same anywhere
        return self._models[k]

    def topics(self, model, c: int) -> dict:
        return {x: model.top_words(x, c) for x in ("en", self.lang)}


def _cnpmi(topics, reference, pair: _Pair) -> float:
    from tealeaves.multilingual import measures as M

    return M.cnpmi(topics, reference, ["en", pair.lang]).score


@shared_doc
def figure6(pair: _Pair) -> list[dict]:
    """Cardinality C: mean CNPMI (rich, Bible) and MTA of fully linked models.

    CNPMI is Hao et al. (2018) eq. 1; MTA (matching translation accuracy) is
    scored against Wiktionary in both modes, ``"pairs"`` and ``"words"``.

    Parameters: %(run_pair)s

    Returns
    -------
    list of dict
        Per C of ``cardinalities``: ``lang``, ``C``, ``cnpmi_rich``,
        ``cnpmi_bible``, ``mta_pairs`` and ``mta_words``, means over the seeds.
    """
    from tealeaves.multilingual import measures as M

    rows = []
    for c in pair.config.cardinalities:
        vals = []
        for seed in pair.config.seeds:
            t = pair.topics(pair.model(1.0, seed), c)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)  # uncovered topics score 0 (documented)
                mta = [M.mta(t, pair.dictionary, "en", pair.lang, mode).score for mode in ("pairs", "words")]
            vals.append((_cnpmi(t, pair.rich, pair), _cnpmi(t, pair.poor, pair), *mta))
        m = np.mean(vals, axis=0)
        rows.append({"lang": pair.lang, "C": c, "cnpmi_rich": m[0], "cnpmi_bible": m[1], "mta_pairs": m[2],
                     "mta_words": m[3]})
    return rows


@shared_doc
def figure7(pair: _Pair) -> list[dict]:
    """Link fraction: mean CNPMI at C = cardinality (rich and Bible).

    Parameters: %(run_pair)s

    Returns
    -------
    list of dict
        Per link fraction: ``lang``, ``link_fraction``, ``cnpmi_rich`` and
        ``cnpmi_bible``, means over the seeds.
    """
    rows = []
    for link in pair.config.link_fractions:
        topics = [pair.topics(pair.model(link, s), pair.config.cardinality) for s in pair.config.seeds]
        vals = [(_cnpmi(t, pair.rich, pair), _cnpmi(t, pair.poor, pair)) for t in topics]
        m = np.mean(vals, axis=0)
        rows.append({"lang": pair.lang, "link_fraction": link, "cnpmi_rich": m[0], "cnpmi_bible": m[1]})
    return rows


@shared_doc
def figure10(pair: _Pair) -> list[dict]:
    """Reference size: CNPMI of the fully linked seed-0 model of Figure 7 on random subsets of the
    held-out half's units.

    Parameters: %(run_pair)s

    Returns
    -------
    list of dict
        Per share of ``reference_fractions``: ``lang``, ``fraction``,
        ``n_units``, ``draws`` and the mean, standard deviation, minimum and
        maximum CNPMI over the draws.
    """
    from tealeaves.multilingual.reference import AlignedReference

    c = pair.config
    topics = pair.topics(pair.model(1.0, c.seeds[0]), c.cardinality)
    full = pair.rich_units.corpus
    rng = np.random.default_rng(c.split_seed)
    rows = []
    for frac in c.reference_fractions:
        n = int(round(frac * len(full)))
        draws = 1 if n == len(full) else c.n_resamples
        subsets = [np.sort(rng.choice(len(full), n, replace=False)) for _ in range(draws)]
        vals = [_cnpmi(topics, AlignedReference(full.subset(idx), f"rich-{frac:g}"), pair) for idx in subsets]
        rows.append({"lang": pair.lang, "fraction": frac, "n_units": n, "draws": draws,
                     "cnpmi_mean": float(np.mean(vals)), "cnpmi_std": float(np.std(vals)),
                     "cnpmi_min": float(np.min(vals)), "cnpmi_max": float(np.max(vals))})
    return rows


def _flores_model(pair: _Pair, k: int, link: float, seed: int):
    return pair.model(link, seed, n_topics=k, corpus=pair.flores, key="flores")


@shared_doc
def figure8(pair: _Pair, era=None) -> tuple[list[dict], list[dict], list]:
    """Across FLORES models: Pearson r of classification macro-F1 with mean CNPMI (Bible, rich).

    Also returns, per model, the estimator's feature table of its topics on the Bible (target:
    rich CNPMI; :func:`table4` trains on the other languages' tables).

    Parameters
    ----------
    %(run_pair)s
    era : optional
        The SpellEng table (:func:`tealeaves.multilingual.era.read_spelleng`);
        without it no feature tables are built.

    Returns
    -------
    summary : list of dict
        One row: the Pearson r across the models of F1 with each CNPMI and of
        rich with Bible CNPMI (and within each K when several are pooled).
    models : list of dict
        Per model: ``lang``, ``K``, ``link_fraction``, ``seed``, ``macro_f1``,
        ``accuracy``, ``cnpmi_bible`` and ``cnpmi_rich``.
    tables : list of pandas.DataFrame
        Per model, the feature table of its topics (empty without ``era``).
    """
    from tealeaves.multilingual.classification import crosslingual_classification

    c = pair.config
    links = c.design == "links"
    rich, flores = (pair.rich_units, pair.flores_heldin) if links else (pair.nonflores, pair.flores)
    models, tables = [], []
    drift = None
    if era is not None:
        from tealeaves.multilingual.drift import MeaningDrift

        drift = MeaningDrift(window=5).fit(pair.poor.corpus.language("en"), rich.corpus.language("en"))
    for k, link, seed in c.figure8_settings():
        m = pair.model(link, seed) if links else _flores_model(pair, k, link, seed)
        res = crosslingual_classification(m, flores, "en", pair.lang, test_size=0.3, random_state=0,
                                          infer_kwargs={"random_state": seed})
        t = pair.topics(m, c.cardinality)
        models.append({"lang": pair.lang, "K": k, "link_fraction": link, "seed": seed,
                       "macro_f1": res.macro_f1, "accuracy": res.accuracy,
                       "cnpmi_bible": _cnpmi(t, pair.poor, pair), "cnpmi_rich": _cnpmi(t, rich, pair)})
        if era is not None:
            tables.append(_feature_table(t, pair, rich, era, drift, len(models) - 1))
    return [_correlations(pair.lang, models, rich.n_pairs("en", pair.lang))], models, tables


def _correlations(lang: str, models: list[dict], n_units: int) -> dict:
    """Figure 8's row: Pearson r across ``models`` of F1 with each CNPMI, of rich with Bible CNPMI, and
    the same within each K when several K are pooled."""
    from tealeaves.multilingual.estimator import pearson

    def r(ms, a, b):
        return pearson([m[a] for m in ms], [m[b] for m in ms])

    row = {"lang": lang, "models": len(models), "r_bible": r(models, "macro_f1", "cnpmi_bible"),
           "r_rich": r(models, "macro_f1", "cnpmi_rich"),
           "r_rich_bible": r(models, "cnpmi_rich", "cnpmi_bible"), "n_rich_units": n_units}
    ks = sorted({m["K"] for m in models})
    if len(ks) > 1:
        for k in ks:
            ms = [m for m in models if m["K"] == k]
            row[f"r_bible_K{k}"], row[f"r_rich_K{k}"] = r(ms, "macro_f1", "cnpmi_bible"), r(ms, "macro_f1",
                                                                                          "cnpmi_rich")
    return row


def _feature_table(topics, pair: _Pair, rich, era, drift, model: int):
    """Estimator features of one model's topics on the Bible, with the rich CNPMI as target."""
    from tealeaves.multilingual import measures as M
    from tealeaves.multilingual.features import topic_features

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # uncovered MTA topics are a column
        feats, _ = topic_features(topics, pair.poor, "en", pair.lang, dictionary=pair.dictionary, era=era,
                                  drift=drift)
    feats["target"] = M.cnpmi(topics, rich, ["en", pair.lang]).per_topic
    feats["lang"], feats["model"] = pair.lang, model
    return feats


@shared_doc
def table4(summary: list[dict], models: list[dict], tables: list, n_estimators: int = 50) -> None:
    """Table 4: per held-out language, the model-level mean of the estimator's prediction (all feature
    groups, trained on the other languages' topics), stored per model as ``estimate``; its Pearson r
    with classification F1 (``r_estimator``, the caption's reading) and with the rich CNPMI
    (``r_rich_estimator``, §6.3's reading) are added to ``summary``; needs two or more languages.

    Parameters
    ----------
    summary : list of dict
        :func:`figure8`'s rows of every language; modified in place.
    models : list of dict
        :func:`figure8`'s models of every language; modified in place.
    tables : list of pandas.DataFrame
        :func:`figure8`'s feature tables, their ``model`` column indexing ``models``.
    %(run_n_estimators)s
    """
    import pandas as pd

    from tealeaves.multilingual.estimator import CoherenceEstimator, pearson

    table = pd.concat(tables, ignore_index=True)
    for row in summary:
        lang = row["lang"]
        train, test = table[table["lang"] != lang], table[table["lang"] == lang]
        est = CoherenceEstimator(n_estimators=n_estimators, random_state=0)
        est.fit(train, train["target"].to_numpy(), train["lang"].to_numpy())
        means = pd.Series(est.predict(test), index=test.index).groupby(test["model"]).mean()
        ms = [i for i, m in enumerate(models) if m["lang"] == lang]
        for i in ms:
            models[i]["estimate"] = float(means[i])
        est_means = [models[i]["estimate"] for i in ms]
        row["r_estimator"] = pearson([models[i]["macro_f1"] for i in ms], est_means)
        row["r_rich_estimator"] = pearson([models[i]["cnpmi_rich"] for i in ms], est_means)


def _check_config(config: Config) -> None:
    from tealeaves.corpus.aligned import normalize_language
    from tealeaves.errors import ParameterError

    config.languages = tuple(normalize_language(x) for x in config.languages)
    N_ITER.check(config.n_iter)
    if config.design not in DESIGNS:
        raise ParameterError(f"Figure 8 design {config.design!r} is not one of {DESIGNS}",
                             fix="choose links (Section 6.1's models) or pooled-k")
    unit_group(config.rich_unit)


@shared_doc
def run(figure: int, config: Config, log: Callable[[str], None] | None = None,
        cache: dict | None = None) -> dict:
    """Compute one figure's table for every language of ``config``; ``cache``, a dict kept across
    calls, reuses fitted models between figures and settings (keys hold every fitting setting).

    Parameters
    ----------
    figure : int
        6, 7, 8 or 10.
    config : Config
        The run's settings; its languages are normalised in place.
    %(run_log)s
    cache : dict, optional
        Fitted models, kept across calls.

    Returns
    -------
    dict
        ``figure``, ``rows``, ``models`` (Figure 8's per-model rows), ``config``,
        ``signature`` and ``seconds``; for Figure 8 with two or more languages
        also ``features`` (the per-topic estimator table, not JSON).

    Raises
    ------
    ParameterError
        If ``figure``, ``config.design`` or ``config.rich_unit`` is not valid.
    """
    from tealeaves.errors import ParameterError

    if figure not in FIGURES:
        raise ParameterError(f"figure {figure} is not one of {FIGURES}", fix="choose 6, 7, 8 or 10")
    start = time.perf_counter()
    _check_config(config)
    rows, extra, tables = [], [], []
    era = None
    if figure == 8 and len(config.languages) >= 2:
        from tealeaves.multilingual.era import read_spelleng

        era = read_spelleng()
    for lang in config.languages:
        t0 = time.perf_counter()
        pair = _Pair(lang, config, cache)
        if figure == 8:
            offset = len(extra)
            summary, models, tabs = figure8(pair, era)
            for tab in tabs:
                tab["model"] += offset
            rows += summary
            extra += models
            tables += tabs
        else:
            rows += {6: figure6, 7: figure7, 10: figure10}[figure](pair)
        if log:
            log(f"en-{lang}: {time.perf_counter() - t0:.0f} s")
    if tables:
        table4(rows, extra, tables)
    if figure == 8:
        settings = config.figure8_settings()
        links = config.design == "links"
        models = {"design": config.design, "K": sorted({k for k, _, _ in settings}),
                  "links": sorted({x for _, x, _ in settings}), "seeds": sorted({s for _, _, s in settings}),
                  "train": "modern-half" if links else "flores", "clf": "flores-sib200",
                  "ref": f"bible+modern-{'heldout' if links else 'nonflores'}-{config.rich_unit}"}
    elif figure == 10:
        models = {"K": config.n_topics, "seeds": config.seeds[:1], "train": "modern-half",
                  "ref": f"modern-heldout-{config.rich_unit}", "draws": config.n_resamples}
    else:
        models = {"K": config.n_topics, "seeds": config.seeds, "train": "modern-half",
                  "ref": "bible+modern-heldout"}
    sig = Signature(f"hao2018-fig{figure}", {"langs": ",".join(config.languages), **models,
                                             "iter": config.n_iter, "top": config.cardinality})
    out = {"figure": figure, "rows": rows, "models": extra, "config": asdict(config), "signature": str(sig),
           "seconds": round(time.perf_counter() - start, 1)}
    if tables:
        import pandas as pd

        out["features"] = pd.concat(tables, ignore_index=True)  # per-topic estimator table (not in JSON)
    return out


PAPER = {
    6: "CNPMI falls as C grows; MTA stays flat or rises (Wikipedia reference; plot only, no numbers). "
       "mta_pairs: share of the C x C pairs that are translations; mta_words: share of English words "
       "with a translation among the other language's C words",
    7: "CNPMI rises as the share of linked document pairs goes from 0% to 100% (plot only)",
    8: "Pearson r of classification F1 with CNPMI is strong for both references; Wikipedia slightly "
       "higher with lower variance (plot only)",
    10: "CNPMI is stable once the reference is large enough (~5,000 documents); 20% of Amharic "
        "Wikipedia (316 documents) degrades it (plot only)",
}


@shared_doc
def report(result: dict) -> str:
    """Plain-text table of a :func:`run` result: rows, models (Figure 8), the paper's finding, signature.

    Parameters: %(run_result)s

    Returns: %(returns_report_text)s
    """
    from tealeaves._output import format_table

    lines = [f"Hao et al. (2018) Figure {result['figure']}", format_table(result["rows"])]
    if result["models"]:
        lines += ["", "models", format_table(result["models"])]
    lines += ["", f"paper: {PAPER[result['figure']]}", f"signature: {result['signature']}"]
    return "\n".join(lines)


def _langs(rows: list[dict]) -> list[str]:
    return list(dict.fromkeys(r["lang"] for r in rows))


MEANS8 = ("macro_f1", "cnpmi_rich", "cnpmi_bible")


def _link_means(models: list[dict]) -> list[dict]:
    """Figure 8's models averaged over seeds, per (pair, K, link fraction)."""
    keys = list(dict.fromkeys((m["lang"], m["K"], m["link_fraction"]) for m in models))
    out = []
    for lang, k, link in keys:
        ms = [m for m in models if (m["lang"], m["K"], m["link_fraction"]) == (lang, k, link)]
        out.append({"pair": f"en-{lang}", "K": k, "link": f"{100 * link:.0f}%", "models": len(ms),
                    **{c: float(np.mean([m[c] for m in ms])) for c in MEANS8}})
    return out


def _markdown8(result: dict) -> list[str]:
    from tealeaves._output import format_markdown

    rows = [{**r, "pair": f"en-{r['lang']}"} for r in result["rows"]]
    cols, heads = ["pair", "models", "n_rich_units", "r_bible", "r_rich", "r_rich_bible"], \
        ["pair", "models", "rich units", "r(F1, Bible)", "r(F1, rich)", "r(rich, Bible)"]
    ks = sorted({m["K"] for m in result["models"]})
    if len(ks) > 1:
        for r in rows:
            for ref in ("bible", "rich"):
                r[f"within_{ref}"] = " / ".join(f"{r[f'r_{ref}_K{k}']:.2f}" for k in ks)
        cols += ["within_bible", "within_rich"]
        heads += [f"r(F1, Bible) within K = {' / '.join(map(str, ks))}", "r(F1, rich) within K"]
    out = [f"*Figure 8: Pearson r across each pair's models (C = {result['config']['cardinality']}).*", "",
           format_markdown(rows, cols, heads), "",
           "*Figure 8's models, mean over seeds per link fraction.*", "",
           format_markdown(_link_means(result["models"]), ["pair", "K", "link", "models", *MEANS8],
                           ["pair", "K", "link", "models", "macro-F1", "CNPMI rich", "CNPMI Bible"])]
    if rows and "r_estimator" in rows[0]:
        out += ["", "*Table 4: model-level Pearson r, Bible CNPMI vs the estimator's mean estimate "
                "(trained on the other pairs' topics), with F1 (caption) and with rich CNPMI (§6.3).*", "",
                format_markdown(rows, ["pair", "r_bible", "r_estimator", "r_rich_bible", "r_rich_estimator"],
                                ["pair", "r(F1, Bible)", "r(F1, estimator)", "r(rich, Bible)",
                                 "r(rich, estimator)"])]
    return out


@shared_doc
def markdown(result: dict) -> str:
    """The figure's tables of a :func:`run` result as the Markdown docs/multilingual.md shows.

    Figure 8's tables come with their captions and Table 4.

    Parameters: %(run_result)s

    Returns: %(returns_markdown)s
    """
    from tealeaves._output import format_markdown

    f, rows = result["figure"], result["rows"]
    if f == 6:
        rs = [{**r, "pair": f"en-{r['lang']}"} for r in rows]
        out = [format_markdown(rs, ["pair", "C", "cnpmi_rich", "cnpmi_bible", "mta_pairs", "mta_words"],
                               ["pair", "C", "CNPMI rich", "CNPMI Bible", "MTA pairs", "MTA words"])]
    elif f == 7:
        langs = _langs(rows)
        by = {(r["lang"], r["link_fraction"]): r for r in rows}
        links = list(dict.fromkeys(r["link_fraction"] for r in rows))
        cells = [(lang, ref) for lang in langs for ref in ("rich", "bible")]
        table = [{"link": f"{100 * x:.0f}%", **{f"{g} {ref}": by[g, x][f"cnpmi_{ref}"] for g, ref in cells}}
                 for x in links]
        heads = ["link", *(f"en-{lang} {name}" for lang in langs for name in ("rich", "Bible"))]
        out = [format_markdown(table, list(table[0]), heads)]
    elif f == 8:
        out = _markdown8(result)
    else:
        rs = [{**r, "pair": f"en-{r['lang']}", "share": f"{100 * r['fraction']:.0f}%"} for r in rows]
        cols = ["pair", "share", "n_units", "draws", "cnpmi_mean", "cnpmi_std", "cnpmi_min", "cnpmi_max"]
        out = [format_markdown(rs, cols, ["pair", "share", "units", "draws", "mean", "std", "min", "max"])]
    return "\n".join(out)


@shared_doc
def plot(result: dict, path) -> None:
    """The figure as a PNG (matplotlib, Agg backend).

    Parameters
    ----------
    %(run_result)s
    path : str or os.PathLike
        Where the PNG is written.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 3.5))
    rows, f = result["rows"], result["figure"]
    for lang in dict.fromkeys(r["lang"] for r in rows):
        rs = [r for r in rows if r["lang"] == lang]
        if f == 6:
            ax.plot([r["C"] for r in rs], [r["cnpmi_rich"] for r in rs], "o-", label=f"en-{lang} CNPMI")
            ax.plot([r["C"] for r in rs], [r["mta_words"] for r in rs], "s--", label=f"en-{lang} MTA (words)")
            ax.set_xlabel("cardinality C")
        elif f == 7:
            ax.plot([100 * r["link_fraction"] for r in rs], [r["cnpmi_rich"] for r in rs], "o-",
                    label=f"en-{lang}")
            ax.set_xlabel("% linked tuples")
        elif f == 10:
            x = [100 * r["fraction"] for r in rs]
            ax.errorbar(x, [r["cnpmi_mean"] for r in rs], yerr=[r["cnpmi_std"] for r in rs], fmt="o-",
                        label=f"en-{lang}", capsize=3)
            ax.set_xlabel("% of reference tuples")
        else:
            ms = [m for m in result["models"] if m["lang"] == lang]
            ax.scatter([m["cnpmi_rich"] for m in ms], [m["macro_f1"] for m in ms], label=f"en-{lang} rich")
            ax.scatter([m["cnpmi_bible"] for m in ms], [m["macro_f1"] for m in ms], marker="x",
                       label=f"en-{lang} Bible")
            ax.set_xlabel("mean CNPMI")
            ax.set_ylabel("classification macro-F1")
    if f != 8:
        ax.set_ylabel("mean CNPMI" if f != 6 else "score")
    ax.legend(fontsize=7)
    ax.set_title(f"Hao et al. 2018, Figure {f} (tealeaves)", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
