"""``tealeaves reproduce bible-vs-modern``: the Bible-to-modern coherence estimator.

A reduced-data reproduction of Hao, Boyd-Graber and Paul (2018, §3-5.3, Table 3).
Wikipedia is not available, so:

* **training documents** and the **rich reference** are modern parallel text
  for English-X (X in ro, sv, am, tl, tr, zh): FLORES-200 documents, NTREX-128
  documents, TICO-19 documents (am, tl, zh), UDHR articles and, for Amharic,
  the Amharic-English news/history sentence pairs grouped into pseudo-documents
  of ``am_group`` consecutive sentences (at most ``am_max_docs`` of them);
  the modern tuples are shuffled (seeded) and split: ``train_fraction`` of them
  train the polylingual models, the rest form the rich reference
  (``rich="heldout"``, default); ``rich="all"`` uses every modern tuple;
* the **poor reference** is the Bible, one tuple per chapter (66 books; the
  fullest eBible text available per language: ro and am have only the NT);
* per language pair, polylingual topic models over several (K, seed,
  link fraction) settings give the topics; per topic the estimator features are
  computed on the Bible (+ Wiktionary for MTA, SpellEng for era, English Bible vs
  English rich reference for drift) and the target is CNPMI on the rich reference;
* for each held-out language, the estimator is trained on the other languages'
  topics (grouped 3-fold CV over languages picks learning rate and loss), and the
  table reports the Pearson correlation with rich CNPMI of the uncorrected Bible
  CNPMI and of the estimate; the feature groups are added one at a time
  (base, +gap, +era, +drift) as in the paper's Table 3 comparison.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

import numpy as np
import pandas as pd

from tealeaves._docs import shared_doc
from tealeaves._output import format_markdown, format_table
from tealeaves.corpus.aligned import AlignedCorpus, normalize_language
from tealeaves.corpus.parallel import (
    TICO_LANGUAGES,
    ParallelTexts,
    flores_documents,
    ntrex_documents,
    read_line_aligned,
    tico19_documents,
    udhr_articles,
)
from tealeaves.data import locate
from tealeaves.errors import TealeavesError
from tealeaves.multilingual import measures as M
from tealeaves.multilingual.dictionaries import read_wiktionary
from tealeaves.multilingual.drift import MeaningDrift
from tealeaves.multilingual.era import read_spelleng
from tealeaves.multilingual.estimator import CoherenceEstimator, pearson
from tealeaves.multilingual.features import topic_features
from tealeaves.multilingual.names import HAO2018_LANGUAGES
from tealeaves.multilingual.reference import named_reference, reference_from_texts
from tealeaves.reproduce.params import N_ITER
from tealeaves.signature import Signature

#: The incremental feature sets of the comparison.
FEATURE_SETS = (("base",), ("base", "gap"), ("base", "gap", "era"), ("base", "gap", "era", "drift"))
AMHARIC_ENGLISH = ("parallel/amharic-english/Amharic_English_News",
                   "parallel/amharic-english/Amharic_English_History")


@dataclass
@shared_doc
class Config:
    """Settings of one run (``quick()`` gives the reduced CI size).

    Parameters
    ----------
    languages : tuple of str, default all of ``LANGUAGES``
        The languages X, each paired with English (at least three distinct ones).
    n_topics : tuple of int, default (10, 20, 30)
        The numbers of topics K of the polylingual models.
    seeds : tuple of int, default (0, 1)
        The models' random seeds.
    link_fractions : tuple of float, default (1.0, 0.5)
        The shares of training tuples that are linked (share theta).
    n_iter : int, default 400
        Gibbs iterations of each polylingual model.
    cardinality : int, default 10
        Top words per topic and language (C).
    rich : {"heldout", "all"}, default "heldout"
        The rich reference: the modern tuples not used for training, or all of them.
    train_fraction : float, default 0.5
        Share of the modern tuples that train the models.
    am_group : int, default 10
        Consecutive Amharic-English sentence pairs per pseudo-document.
    am_max_docs : int, default 300
        At most this many Amharic-English pseudo-documents.
    zero_cooccurrence : str, default "limit"
        How NPMI scores word pairs that never co-occur (``"limit"``: -1,
        :mod:`tealeaves.multilingual.measures`).
    %(run_n_estimators)s
    split_seed : int, default 0
        Seed of the shuffle that splits the modern tuples.
    extras : dict, default empty
        Further settings, recorded with the run's configuration.
    """

    languages: tuple[str, ...] = HAO2018_LANGUAGES
    n_topics: tuple[int, ...] = (10, 20, 30)
    seeds: tuple[int, ...] = (0, 1)
    link_fractions: tuple[float, ...] = (1.0, 0.5)
    n_iter: int = 400
    cardinality: int = 10
    rich: str = "heldout"
    train_fraction: float = 0.5
    am_group: int = 10
    am_max_docs: int = 300
    zero_cooccurrence: str = "limit"
    n_estimators: int = 50
    split_seed: int = 0
    extras: dict = field(default_factory=dict)

    @classmethod
    @shared_doc
    def quick(cls) -> Config:
        """The reduced CI size: four languages, K = 10, 100 iterations, 20 boosting rounds.

        Returns: %(returns_quick_config)s
        """
        return cls(languages=("ro", "sv", "am", "tl"), n_topics=(10,), seeds=(0, 1),
                   link_fractions=(1.0, 0.5), n_iter=100, n_estimators=20)


# -- data ----------------------------------------------------------------------
def _concat(parts: Sequence[ParallelTexts], langs: Sequence[str]) -> ParallelTexts:
    ids: list[str] = []
    texts: dict[str, list] = {x: [] for x in langs}
    for p in parts:
        src = p.metadata.get("source", "parallel")
        ids += [f"{src}:{i}" for i in p.ids]
        for x in langs:
            texts[x] += p.texts[x]
    source = "+".join(p.metadata.get("source", "?") for p in parts)
    return ParallelTexts(ids, texts, metadata={"source": source})


def amharic_english(group: int, max_docs: int) -> ParallelTexts:
    """Amharic-English sentence pairs (news, history) as pseudo-documents of ``group`` lines.

    Parameters
    ----------
    group : int
        Consecutive sentence pairs per pseudo-document.
    max_docs : int
        Keep at most this many pseudo-documents (the first ones).

    Returns
    -------
    ParallelTexts
        English and Amharic pseudo-documents, source ``amharic-english``.
    """
    parts = []
    for folder in AMHARIC_ENGLISH:
        files = {"en": locate(f"{folder}/english.txt"), "am": locate(f"{folder}/amharic.txt")}
        n = sum(1 for _ in open(files["en"], encoding="utf-8"))
        name = folder.rsplit("_", 1)[-1].lower()
        doc_ids = [f"{name}{i // group}" for i in range(n)]
        p = read_line_aligned(files, doc_ids)
        p.metadata["source"] = f"amharic-english-{name}"
        parts.append(p)
    out = _concat(parts, ["en", "am"])
    if len(out.ids) > max_docs:
        out = ParallelTexts(out.ids[:max_docs], {x: t[:max_docs] for x, t in out.texts.items()},
                            metadata=out.metadata)
    out.metadata["source"] = "amharic-english"
    return out


@shared_doc
def modern_texts(lang: str, config: Config) -> ParallelTexts:
    """Every modern English-``lang`` document tuple with both sides present.

    FLORES-200, NTREX-128 and UDHR, plus TICO-19 where it has ``lang`` and the
    Amharic-English pairs (:func:`amharic_english`) for ``am``.

    Parameters: %(run_lang)s %(run_config)s

    Returns
    -------
    ParallelTexts
        The English-``lang`` tuples whose two sides are both non-empty.
    """
    pair = ["en", lang]
    parts = [flores_documents(pair), ntrex_documents(pair), udhr_articles(pair)]
    if lang in TICO_LANGUAGES:
        parts.append(tico19_documents(pair))
    if lang == "am":
        parts.append(amharic_english(config.am_group, config.am_max_docs))
    out = _concat(parts, pair)
    keep = [i for i in range(len(out.ids)) if all(out.texts[x][i] for x in pair)]
    return ParallelTexts([out.ids[i] for i in keep], {x: [out.texts[x][i] for i in keep] for x in pair},
                         metadata=out.metadata)


@shared_doc
def split_modern(texts: ParallelTexts, config: Config) -> tuple[ParallelTexts, ParallelTexts]:
    """(training tuples, rich-reference tuples) by a seeded shuffle (see ``Config.rich``).

    Parameters
    ----------
    texts : ParallelTexts
        The modern tuples (:func:`modern_texts`).
    %(run_config)s

    Returns
    -------
    train, rich : ParallelTexts
        ``train_fraction`` of the shuffled tuples, and the rest (``rich="heldout"``)
        or all of them (``rich="all"``), each in their original order.

    Raises
    ------
    TealeavesError
        If ``config.rich`` is neither ``"heldout"`` nor ``"all"``.
    """
    order = np.random.default_rng(config.split_seed).permutation(len(texts.ids))
    n_train = int(round(config.train_fraction * len(order)))
    tr, ref = sorted(order[:n_train]), sorted(order[n_train:])
    if config.rich == "all":
        ref = list(range(len(texts.ids)))
    elif config.rich != "heldout":
        raise TealeavesError(f"rich must be 'heldout' or 'all', got {config.rich!r}")

    def take(idx):
        return ParallelTexts([texts.ids[i] for i in idx],
                             {x: [t[i] for i in idx] for x, t in texts.texts.items()},
                             metadata=dict(texts.metadata))
    return take(tr), take(ref)


# -- topics and features -----------------------------------------------------------
@shared_doc
def model_settings(config: Config) -> list[dict]:
    """Every (K, seed, link fraction) combination, in a fixed order.

    Parameters: %(run_config)s

    Returns
    -------
    list of dict
        ``{"n_topics", "seed", "link_fraction"}`` per model, K outermost.
    """
    return [{"n_topics": k, "seed": s, "link_fraction": f}
            for k in config.n_topics for s in config.seeds for f in config.link_fractions]


@shared_doc
def train_topics(train: AlignedCorpus, lang: str, config: Config) -> list[tuple[dict, dict]]:
    """Fit one polylingual model per setting; return (setting, {lang: top-C word lists}).

    Parameters
    ----------
    train : AlignedCorpus
        The English-``lang`` training tuples.
    %(run_lang)s %(run_config)s

    Returns
    -------
    list of tuple
        ``(setting, {"en": topics, lang: topics})`` per :func:`model_settings`
        entry, each topic its ``config.cardinality`` top words.
    """
    from tealeaves.models.polylingual import PolylingualTopicModel

    out = []
    for st in model_settings(config):
        model = PolylingualTopicModel(n_components=st["n_topics"], n_iter=config.n_iter,
                                      link_fraction=st["link_fraction"], random_state=st["seed"],
                                      optimize_burn_in=min(200, config.n_iter // 2),
                                      n_threads=1).fit(train)  # the serial chain: the same on any machine
        out.append((st, {x: model.top_words(x, config.cardinality) for x in ("en", lang)}))
    return out


@shared_doc
def language_pair_table(lang: str, config: Config, resources: dict) -> tuple[pd.DataFrame, dict]:
    """Feature rows (Bible) and targets (rich CNPMI) of every topic of the en-``lang`` models.

    The features (:func:`tealeaves.multilingual.features.topic_features`) are
    computed on the Bible, Wiktionary, SpellEng and the English meaning drift
    between the Bible and the rich reference; the target is CNPMI (Hao et al.
    2018, eq. 1) on the rich reference.

    Parameters
    ----------
    %(run_lang)s %(run_config)s
    resources : dict
        Shared resources: ``"era"``, the SpellEng table (:func:`read_spelleng`).

    Returns
    -------
    table : pandas.DataFrame
        One row per topic: its features, ``target``, ``lang``, the model's
        setting, ``topic`` and its words in both languages.
    info : dict
        Data facts of the pair (tuples, Bible pairs, dictionary entries,
        MTA-uncovered topics) and the ``signatures``.
    """
    modern = modern_texts(lang, config)
    train_texts, rich_texts = split_modern(modern, config)
    train = train_texts.to_aligned()
    rich = reference_from_texts(rich_texts, f"modern-{config.rich}-en-{lang}")
    poor = named_reference("bible", ["en", lang])
    drift = MeaningDrift(window=5).fit(poor.corpus.language("en"), rich.corpus.language("en"))
    dictionary = read_wiktionary(locate(f"dictionaries/wiktionary/{lang}-en.all"))
    rows, sigs = [], {}
    for st, topics in train_topics(train, lang, config):
        with warnings.catch_warnings():  # uncovered MTA topics are counted in the table instead
            warnings.simplefilter("ignore", UserWarning)
            feats, sigs = topic_features(topics, poor, "en", lang, dictionary=dictionary,
                                         era=resources["era"], drift=drift,
                                         zero=config.zero_cooccurrence)
        target = M.cnpmi(topics, rich, ["en", lang], config.zero_cooccurrence)
        feats["target"] = target.per_topic
        feats["lang"] = lang
        for key, val in st.items():
            feats[key] = val
        feats["topic"] = np.arange(len(feats))
        feats["words_en"] = [" ".join(t) for t in topics["en"]]
        feats[f"words_{lang}"] = [" ".join(t) for t in topics[lang]]
        rows.append(feats)
        sigs["target"] = str(target.signature)
    info = {"n_modern": len(modern.ids), "n_train": len(train_texts.ids), "n_rich": len(rich_texts.ids),
            "n_bible_pairs": poor.n_pairs("en", lang), "dictionary_entries": len(dictionary),
            "mta_uncovered_topics": int(sum(int(r["mta_uncovered"].sum()) for r in rows)),
            "signatures": sigs}
    return pd.concat(rows, ignore_index=True), info


# -- evaluation ------------------------------------------------------------------------
def _set_name(features: Sequence[str]) -> str:
    return features[0] if len(features) == 1 else f"+{features[-1]}"


@shared_doc
def held_out_correlations(table: pd.DataFrame, config: Config,
                          feature_sets: Sequence[Sequence[str]] = FEATURE_SETS) -> list[dict]:
    """Per held-out language: Pearson r with the rich CNPMI of Bible CNPMI and of each estimator.

    The held-out estimates are stored in ``table`` as columns ``estimate_<set>`` (e.g. ``estimate_+drift``).

    Parameters
    ----------
    table : pandas.DataFrame
        The topics' feature rows and targets (:func:`language_pair_table`'s, concatenated).
        Modified in place.
    %(run_config)s
    feature_sets : sequence of sequence of str, default FEATURE_SETS
        The feature groups of each estimator (added one at a time).

    Returns
    -------
    list of dict
        Per held-out language: ``test``, ``train``, ``topics``, ``bible_cnpmi``,
        one Pearson r per feature set and the chosen ``params``.
    """
    rows = []
    for lang in config.languages:
        test, train = table[table["lang"] == lang], table[table["lang"] != lang]
        others = [x for x in config.languages if x != lang]
        row = {"test": lang, "train": "+".join(others), "topics": len(test),
               "bible_cnpmi": pearson(test["cnpmi"], test["target"])}
        params = {}
        for fs in feature_sets:
            est = CoherenceEstimator(features=tuple(fs), n_estimators=config.n_estimators, random_state=0)
            est.fit(train, train["target"].to_numpy(), train["lang"].to_numpy())
            pred = est.predict(test)
            table.loc[test.index, f"estimate_{_set_name(fs)}"] = pred
            row[_set_name(fs)] = pearson(pred, test["target"])
            params[_set_name(fs)] = est.best_params_
        row["params"] = params
        rows.append(row)
    return rows


#: The paper's Table 3 layout: test languages and their training subsets (language families paired).
PAPER_LAYOUT: dict[str, tuple[tuple[str, ...], ...]] = {
    "am": (("ro", "sv"), ("zh", "tr"), ("ro", "sv", "zh", "tr")),
    "tl": (("ro", "sv"), ("zh", "tr"), ("ro", "sv", "zh", "tr")),
    "ro": (("am", "tl"), ("zh", "tr"), ("am", "tl", "zh", "tr")),
    "sv": (("am", "tl"), ("zh", "tr"), ("am", "tl", "zh", "tr")),
    "zh": (("ro", "sv"), ("am", "tl"), ("ro", "sv", "am", "tl")),
    "tr": (("ro", "sv"), ("am", "tl"), ("ro", "sv", "am", "tl")),
}


@shared_doc
def paper_layout_correlations(table: pd.DataFrame, config: Config) -> list[dict]:
    """Hao et al.'s Table 3 layout: all features, trained on each of three language subsets.

    Returns one row per test language with the Bible CNPMI correlation and one entry per
    training subset (e.g. ``"ro+sv"``); empty unless all six languages were run.

    Parameters
    ----------
    table : pandas.DataFrame
        The topics' feature rows and targets (:func:`language_pair_table`'s, concatenated).
    %(run_config)s

    Returns
    -------
    list of dict
        Per test language of :data:`PAPER_LAYOUT`: ``bible_cnpmi`` and, for
        subsets 1-3, ``train<i>``, the Pearson r ``r<i>`` and ``params<i>``.
    """
    if set(config.languages) != set(HAO2018_LANGUAGES):
        return []
    rows = []
    for lang, subsets in PAPER_LAYOUT.items():
        test = table[table["lang"] == lang]
        row = {"test": lang, "bible_cnpmi": pearson(test["cnpmi"], test["target"])}
        for i, subset in enumerate(subsets):
            train = table[table["lang"].isin(subset)]
            est = CoherenceEstimator(features=FEATURE_SETS[-1], n_estimators=config.n_estimators,
                                     random_state=0).fit(train, train["target"].to_numpy(),
                                                         train["lang"].to_numpy())
            row[f"train{i + 1}"] = "+".join(subset)
            row[f"r{i + 1}"] = pearson(est.predict(test), test["target"])
            row[f"params{i + 1}"] = est.best_params_
        rows.append(row)
    return rows


@shared_doc
def model_level_correlations(table: pd.DataFrame, config: Config) -> list[dict]:
    """Per held-out language, over its models: Pearson r of the model means (the paper's Table 4 view).

    Parameters
    ----------
    table : pandas.DataFrame
        The topics' feature rows and targets (:func:`language_pair_table`'s, concatenated).
        With the ``estimate_+drift`` column of :func:`held_out_correlations`.
    %(run_config)s

    Returns
    -------
    list of dict
        Per language: ``test``, ``models`` and the Pearson r with the rich CNPMI
        of the Bible CNPMI (``bible_cnpmi``) and of the estimate (``estimator``).
    """
    keys = ["n_topics", "seed", "link_fraction"]
    full = f"estimate_{_set_name(FEATURE_SETS[-1])}"
    rows = []
    for lang in config.languages:
        means = table[table["lang"] == lang].groupby(keys)[["cnpmi", "target", full]].mean()
        rows.append({"test": lang, "models": len(means),
                     "bible_cnpmi": pearson(means["cnpmi"], means["target"]),
                     "estimator": pearson(means[full], means["target"])})
    return rows


@shared_doc
def run(config: Config, log=None) -> dict:
    """The whole reproduction; returns tables, per-pair data facts, signatures and timings.

    Parameters
    ----------
    config : Config
        The run's settings.
        Its languages are normalised in place.
    %(run_log)s

    Returns
    -------
    dict
        ``rows`` (:func:`held_out_correlations`), ``model_rows``, ``paper_rows``,
        ``n_improved`` (languages where the full estimator beats the Bible
        CNPMI), ``n_languages``, ``pairs`` (data facts), ``config``,
        ``signature``, ``topics`` (the table) and ``seconds``.

    Raises
    ------
    TealeavesError
        If fewer than three distinct languages of ``LANGUAGES`` (English aside)
        are given.
    """
    start = time.perf_counter()
    config.languages = tuple(normalize_language(x) for x in config.languages)
    N_ITER.check(config.n_iter)
    bad = [x for x in config.languages if x == "en" or x not in HAO2018_LANGUAGES]
    if bad or len(set(config.languages)) < 3:
        raise TealeavesError(f"bible-vs-modern needs at least three distinct languages among "
                             f"{HAO2018_LANGUAGES} (each paired with English; one is held out, the others "
                             f"train), got {list(config.languages)}")
    resources = {"era": read_spelleng()}
    tables, info = [], {}
    for lang in config.languages:
        t0 = time.perf_counter()
        tab, inf = language_pair_table(lang, config, resources)
        inf["seconds"] = round(time.perf_counter() - t0, 1)
        tables.append(tab)
        info[lang] = inf
        if log:
            log(f"en-{lang}: {len(tab)} topics, {inf['seconds']} s")
    table = pd.concat(tables, ignore_index=True)
    rows = held_out_correlations(table, config)
    full = _set_name(FEATURE_SETS[-1])
    n_better = sum(r[full] > r["bible_cnpmi"] for r in rows)
    models = model_level_correlations(table, config)
    paper = paper_layout_correlations(table, config)
    sig = Signature("bible-vs-modern", {"langs": ",".join(config.languages), "K": config.n_topics,
                                        "seeds": config.seeds, "links": config.link_fractions,
                                        "iter": config.n_iter, "top": config.cardinality, "rich": config.rich,
                                        "zero": config.zero_cooccurrence, "est": "adaboost-r2+ols"})
    return {"rows": rows, "model_rows": models, "paper_rows": paper, "n_improved": n_better,
            "n_languages": len(rows), "pairs": info,
            "config": asdict(config), "signature": str(sig), "topics": table,
            "seconds": round(time.perf_counter() - start, 1)}


COLUMNS = ("test", "train", "topics", "bible_cnpmi", "base", "+gap", "+era", "+drift")


@shared_doc
def report(result: dict) -> str:
    """Plain-text tables of a :func:`run` result: the correlation tables, the data facts and the signature.

    Parameters: %(run_result)s

    Returns: %(returns_report_text)s
    """
    lines = ["Pearson r with rich-reference CNPMI, per held-out language",
             format_table(result["rows"], COLUMNS)]
    lines.append(f"estimator (all features) beats uncorrected Bible CNPMI for {result['n_improved']} of "
                 f"{result['n_languages']} held-out languages")
    lines += ["", "Model level (mean over each model's topics), Pearson r with rich CNPMI",
              format_table(result["model_rows"], ["test", "models", "bible_cnpmi", "estimator"])]
    if result.get("paper_rows"):
        lines += ["", "Table 3 layout (all features; r1..r3: trained on train1..train3)",
                  format_table(result["paper_rows"], ["test", "bible_cnpmi", "train1", "r1", "train2", "r2",
                                                      "train3", "r3"])]
    facts = [{"pair": f"en-{k}", **{c: v[c] for c in ("n_modern", "n_train", "n_rich", "n_bible_pairs",
                                                        "dictionary_entries", "mta_uncovered_topics",
                                                        "seconds")}}
             for k, v in result["pairs"].items()]
    lines += ["", format_table(facts), "", f"signature: {result['signature']}"]
    return "\n".join(lines)


@shared_doc
def markdown(result: dict) -> str:
    """The tables of a :func:`run` result, with their captions, as the Markdown docs/multilingual.md shows.

    Parameters: %(run_result)s

    Returns: %(returns_markdown)s
    """
    cols = ["test", "bible_cnpmi", "base", "+gap", "+era", "+drift"]
    out = ["*Pearson r with the rich-reference CNPMI per held-out language (estimator trained on the "
           "others; feature groups added cumulatively).*", "",
           format_markdown(result["rows"], cols, ["test", "Bible CNPMI", *cols[2:]]), "",
           f"The estimator (all features) beats the uncorrected Bible CNPMI for {result['n_improved']} of "
           f"{result['n_languages']} held-out languages."]
    if result.get("paper_rows"):
        cols = ["test", "bible_cnpmi", "train1", "r1", "train2", "r2", "train3", "r3"]
        out += ["", "*The paper's Table 3 layout (all features, trained on two language pairs or four).*", "",
                format_markdown(result["paper_rows"], cols,
                                ["test", "Bible", "train 1", "r", "train 2", "r", "train 3", "r"])]
    out += ["", "*Model level (mean over each model's topics), Pearson r with the rich CNPMI.*", "",
            format_markdown(result["model_rows"], ["test", "models", "bible_cnpmi", "estimator"],
                            ["test", "models", "Bible CNPMI", "estimator"])]
    facts = [{"pair": f"en-{k}", **v} for k, v in result["pairs"].items()]
    cols = ["pair", "n_modern", "n_train", "n_rich", "n_bible_pairs", "dictionary_entries",
            "mta_uncovered_topics"]
    out += ["", format_markdown(facts, cols, ["pair", "modern tuples", "train", "rich", "Bible pairs",
                                              "dictionary entries", "MTA-uncovered topics"])]
    return "\n".join(out)
