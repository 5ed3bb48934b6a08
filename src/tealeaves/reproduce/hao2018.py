"""``tealeaves reproduce hao2018 --figure {6,7,8,10}``: Hao, Boyd-Graber and Paul (2018), §5.4 and §6.

Wikipedia is not available, so the models and references are those of
:mod:`tealeaves.reproduce.bible_vs_modern`: for English-X, polylingual models are trained on
``train_fraction`` of the modern parallel tuples (FLORES-200, NTREX-128, UDHR, TICO-19...), the
*rich* reference is the other modern tuples, the *poor* one the Bible (chapters).

* **Figure 6 (cardinality)**: per model (every tuple linked), mean CNPMI (rich and Bible) and MTA
  (Wiktionary, ``mode="pairs"``) of the top C = 10..50 words;
* **Figure 7 (training knowledge)**: mean CNPMI at C = 10 of models whose link fraction (share of
  tuples sharing theta; the rest are unlinked monolingual documents) goes 0, 20, ..., 100%;
* **Figure 8 (agreement with classification)**: over models of FLORES-200 en-X documents
  (several K, link fractions and seeds), the Pearson correlation between crosslingual
  classification macro-F1 (train on English theta of SIB-200-labelled documents, test on X's:
  :func:`tealeaves.multilingual.classification.crosslingual_classification`) and mean CNPMI on
  the Bible and on the rich reference (the modern tuples that are not FLORES); with two or more
  languages also **Table 4**: the same correlation with the model-level mean of the coherence
  estimator's prediction (all features, trained on the other languages' topics; ``r_estimator``);
* **Figure 10 (reference size)**: CNPMI at C = 10 of the fully linked model on random 20..100%
  subsets of the rich reference's tuples, mean and spread over ``n_resamples`` draws.

Every value is a mean over the ``seeds``; a row carries its settings and the signature fields.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass

import numpy as np

from tealeaves.signature import Signature

FIGURES = (6, 7, 8, 10)


@dataclass
class Config:
    """Settings of a run (``quick()`` is the CI size)."""

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

    @classmethod
    def quick(cls) -> Config:
        return cls(languages=("sv",), n_topics=10, n_iter=60, seeds=(0,), link_fractions=(0.0, 0.5, 1.0),
                   reference_fractions=(0.2, 0.6, 1.0), n_resamples=4, clf_topics=(5, 10),
                   clf_links=(0.0, 1.0), clf_seeds=(0,))


class _Pair:
    """Training tuples, rich and poor references and the dictionary of one English-X pair (lazy)."""

    def __init__(self, lang: str, config: Config):
        from tealeaves.data import locate
        from tealeaves.multilingual.dictionaries import read_wiktionary
        from tealeaves.multilingual.reference import named_reference, reference_from_texts
        from tealeaves.reproduce.bible_vs_modern import Config as BvmConfig
        from tealeaves.reproduce.bible_vs_modern import modern_texts, split_modern

        bvm = BvmConfig(split_seed=config.split_seed)
        train, rich = split_modern(modern_texts(lang, bvm), bvm)
        self.lang, self.config = lang, config
        self.train = train.to_aligned()
        self.rich = reference_from_texts(rich, f"modern-heldout-en-{lang}")
        self.poor = named_reference("bible", ["en", lang])
        self.dictionary = read_wiktionary(locate(f"dictionaries/wiktionary/{lang}-en.all"))
        self._models: dict = {}

    def model(self, link: float, seed: int, n_topics: int | None = None, corpus=None, key: str = "modern"):
        """A fitted PLTM (cached per settings)."""
        from tealeaves.models.polylingual import PolylingualTopicModel

        c = self.config
        k = (key, n_topics or c.n_topics, link, seed)
        if k not in self._models:
            self._models[k] = PolylingualTopicModel(
                n_topics=n_topics or c.n_topics, n_iter=c.n_iter, link_fraction=link, random_state=seed,
                optimize_burn_in=min(200, c.n_iter // 2)).fit(self.train if corpus is None else corpus)
        return self._models[k]

    def topics(self, model, c: int) -> dict:
        return {x: model.top_words(x, c) for x in ("en", self.lang)}


def _cnpmi(topics, reference, pair: _Pair) -> float:
    from tealeaves.multilingual import measures as M

    return M.cnpmi(topics, reference, ["en", pair.lang]).score


def figure6(pair: _Pair) -> list[dict]:
    """Cardinality C: mean CNPMI (rich, Bible) and MTA of fully linked models."""
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


def figure7(pair: _Pair) -> list[dict]:
    """Link fraction: mean CNPMI at C = cardinality (rich and Bible)."""
    rows = []
    for link in pair.config.link_fractions:
        topics = [pair.topics(pair.model(link, s), pair.config.cardinality) for s in pair.config.seeds]
        vals = [(_cnpmi(t, pair.rich, pair), _cnpmi(t, pair.poor, pair)) for t in topics]
        m = np.mean(vals, axis=0)
        rows.append({"lang": pair.lang, "link_fraction": link, "cnpmi_rich": m[0], "cnpmi_bible": m[1]})
    return rows


def figure10(pair: _Pair) -> list[dict]:
    """Reference size: CNPMI of the linked seed-0 model on random subsets of the rich tuples."""
    from tealeaves.multilingual.reference import AlignedReference

    c = pair.config
    topics = pair.topics(pair.model(1.0, c.seeds[0]), c.cardinality)
    full = pair.rich.corpus
    rng = np.random.default_rng(c.split_seed)
    rows = []
    for frac in c.reference_fractions:
        n = int(round(frac * len(full)))
        draws = 1 if n == len(full) else c.n_resamples
        subsets = [np.sort(rng.choice(len(full), n, replace=False)) for _ in range(draws)]
        vals = [_cnpmi(topics, AlignedReference(full.subset(idx), f"rich-{frac:g}"), pair) for idx in subsets]
        rows.append({"lang": pair.lang, "fraction": frac, "n_tuples": n, "draws": draws,
                     "cnpmi_mean": float(np.mean(vals)), "cnpmi_std": float(np.std(vals)),
                     "cnpmi_min": float(np.min(vals)), "cnpmi_max": float(np.max(vals))})
    return rows


def figure8(pair: _Pair, era=None) -> tuple[list[dict], list[dict], list]:
    """Across FLORES models: Pearson r of classification macro-F1 with mean CNPMI (Bible, rich).

    Also returns, per model, the estimator's feature table of its topics on the Bible (target:
    rich CNPMI; :func:`table4` trains on the other languages' tables)."""
    from tealeaves.corpus.parallel import ParallelTexts, flores_documents
    from tealeaves.multilingual.classification import crosslingual_classification
    from tealeaves.multilingual.estimator import pearson
    from tealeaves.multilingual.reference import reference_from_texts
    from tealeaves.reproduce.bible_vs_modern import Config as BvmConfig
    from tealeaves.reproduce.bible_vs_modern import modern_texts

    c = pair.config
    flores = flores_documents(["en", pair.lang]).to_aligned()
    modern = modern_texts(pair.lang, BvmConfig())
    keep = [i for i, t in enumerate(modern.ids) if not t.startswith("flores")]
    rich = reference_from_texts(ParallelTexts([modern.ids[i] for i in keep],
                                              {x: [v[i] for i in keep] for x, v in modern.texts.items()}),
                                f"modern-nonflores-en-{pair.lang}")
    models, tables = [], []
    drift = None
    if era is not None:
        from tealeaves.multilingual.drift import MeaningDrift

        drift = MeaningDrift(window=5).fit(pair.poor.corpus.language("en"), rich.corpus.language("en"))
    for k in c.clf_topics:
        for link in c.clf_links:
            for seed in c.clf_seeds:
                m = pair.model(link, seed, n_topics=k, corpus=flores, key="flores")
                res = crosslingual_classification(m, flores, "en", pair.lang, test_size=0.3, random_state=0,
                                                  infer_kwargs={"random_state": seed})
                t = pair.topics(m, c.cardinality)
                models.append({"lang": pair.lang, "K": k, "link_fraction": link, "seed": seed,
                               "macro_f1": res.macro_f1, "accuracy": res.accuracy,
                               "cnpmi_bible": _cnpmi(t, pair.poor, pair),
                               "cnpmi_rich": _cnpmi(t, rich, pair)})
                if era is not None:
                    tables.append(_feature_table(t, pair, rich, era, drift, len(models) - 1))
    f1 = [m["macro_f1"] for m in models]
    summary = [{"lang": pair.lang, "models": len(models),
                "r_bible": pearson(f1, [m["cnpmi_bible"] for m in models]),
                "r_rich": pearson(f1, [m["cnpmi_rich"] for m in models]),
                "n_rich_tuples": rich.n_pairs("en", pair.lang)}]
    return summary, models, tables


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


def table4(summary: list[dict], models: list[dict], tables: list, n_estimators: int = 50) -> None:
    """Table 4: per held-out language, Pearson r of classification F1 with the model-level mean of the
    estimator's prediction (all feature groups, trained on the other languages' topics), added to
    ``summary`` as ``r_estimator``; needs two or more languages."""
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
        row["r_estimator"] = pearson([models[i]["macro_f1"] for i in ms], [models[i]["estimate"] for i in ms])


def run(figure: int, config: Config, log: Callable[[str], None] | None = None) -> dict:
    """Compute one figure's table for every language of ``config``."""
    from tealeaves.corpus.aligned import normalize_language
    from tealeaves.errors import ParameterError

    if figure not in FIGURES:
        raise ParameterError(f"--figure {figure} is not one of {FIGURES}", fix="choose 6, 7, 8 or 10")
    start = time.perf_counter()
    config.languages = tuple(normalize_language(x) for x in config.languages)
    rows, extra, tables = [], [], []
    era = None
    if figure == 8 and len(config.languages) >= 2:
        from tealeaves.multilingual.era import read_spelleng

        era = read_spelleng()
    for lang in config.languages:
        t0 = time.perf_counter()
        pair = _Pair(lang, config)
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
        models = {"K": config.clf_topics, "links": config.clf_links, "seeds": config.clf_seeds,
                  "train": "flores", "ref": "bible+modern-nonflores"}
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


def report(result: dict) -> str:
    """Plain-text table of a :func:`run` result."""
    from tealeaves._output import format_table

    lines = [f"Hao et al. (2018) Figure {result['figure']}", format_table(result["rows"])]
    if result["models"]:
        lines += ["", "models", format_table(result["models"])]
    lines += ["", f"paper: {PAPER[result['figure']]}", f"signature: {result['signature']}"]
    return "\n".join(lines)


def plot(result: dict, path) -> None:
    """The figure as a PNG (matplotlib, Agg backend)."""
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
