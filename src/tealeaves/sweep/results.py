"""Reading a results store back: pandas DataFrames, JSON and per-document held-out scores.

>>> results = load_results("results.sqlite")  # doctest: +SKIP
>>> results.models[["name", "k", "seed", "completion_perplexity", "npmi"]]  # doctest: +SKIP
>>> results.topics.query("model == 'sklearn-K10-s0'")  # doctest: +SKIP

Nothing is refitted or rescored: every number comes from the store.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from tealeaves._docs import shared_doc
from tealeaves.errors import ParameterError
from tealeaves.store.validate import read_contents

#: Columns of ``SweepResults.models`` before the measures (which follow, one column each).
MODEL_COLUMNS = ("name", "engine", "k", "seed", "config", "run", "source", "settings", "signature",
                 "description", "fit_seconds", "score_seconds", "vocabulary_hash", "split_hash")


@dataclass
class SweepResults:
    """The contents of one sweep's results store (:func:`load_results`).

    Parameters
    ----------
    path : str
        The store's path.
    sweep : dict
        What all models share.
    models : pandas.DataFrame
        One row per model (identity, settings, timings, then one column per measure).
    topics : pandas.DataFrame
        One row per topic (``model``, ``k``, ``seed``, ``topic``, ``top_words``, one column per
        per-topic score, ``flags`` (the names of the junk-topic flags raised) and
        ``flag_explanations``).
    pairs : dict, optional
        ``pairs[(model, topic)]``: the stored pair matrix (``words``, ``values``, ``measure``).
    _heldout : dict, optional
        Internal: per model, the held-out log-likelihoods and word counts (:meth:`heldout`).
    flag_settings : dict, optional
        Per model: the flags checked and skipped, and their signature (``None``: not stored).
    vocabulary : list, optional
        The sweep's vocabulary.
    _topic_word : dict, optional
        Internal: per model, the stored topic-word rows (:meth:`topic_model`).
    signatures : dict, optional
        Per model: the signature of each measure (``completion`` and every coherence measure).
    preprocessing : dict, optional
        The training corpus's preprocessing recipe (``Preprocessor.get_params()`` shape), or None
        when unknown.
    _scores : dict, optional
        Internal: per model, the stored per-topic scores (:meth:`topic_scores`).
    _vocabularies : dict, optional
        Internal: per model, its own vocabulary (None: :attr:`vocabulary`).
    _alpha : dict, optional
        Internal: per model, its stored Dirichlet prior (None: not stored).
    flag_records : dict, optional
        ``flag_records[(model, topic)]``: the topic's junk-topic flags as stored, a list of
        ``{"flag", "explanation"}`` (topics without a flag are absent).  ``topics["flag_explanations"]``
        joins the same explanations with ``"; "`` for display; read the records, not that text.
    """

    path: str
    sweep: dict
    models: pd.DataFrame
    topics: pd.DataFrame
    pairs: dict = field(repr=False, default_factory=dict)
    _heldout: dict = field(repr=False, default_factory=dict)
    #: per model: the flags checked and skipped, and their signature (``None``: not stored)
    flag_settings: dict = field(repr=False, default_factory=dict)
    vocabulary: list = field(repr=False, default_factory=list)
    _topic_word: dict = field(repr=False, default_factory=dict)
    #: per model: the signature of each measure (``completion`` and every coherence measure)
    signatures: dict = field(repr=False, default_factory=dict)
    #: the training corpus's preprocessing recipe, or None when unknown
    preprocessing: dict | None = field(repr=False, default=None)
    _scores: dict = field(repr=False, default_factory=dict)
    _vocabularies: dict = field(repr=False, default_factory=dict)
    _alpha: dict = field(repr=False, default_factory=dict)
    #: per (model, topic): the stored flags, each ``{"flag", "explanation"}``
    flag_records: dict = field(repr=False, default_factory=dict)

    def model(self, name: str) -> pd.Series:
        """The row of model ``name`` (:class:`ParameterError` naming the stored models otherwise).

        Parameters
        ----------
        name : str
            A model's name (:func:`~tealeaves.sweep.store.model_name`).

        Returns
        -------
        pandas.Series
            Its row of ``models``.

        Raises
        ------
        ParameterError
            When no model has that name.
        """
        rows = self.models[self.models["name"] == name]
        if rows.empty:
            from tealeaves.store.models import listed

            raise ParameterError(f"no model named {name!r} in results store '{self.path}'",
                                 fix=f"choose one of: {listed(list(self.models['name']))}")
        return rows.iloc[0]

    @shared_doc
    def heldout(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """``(log-likelihoods, word counts)`` of model ``name``'s held-out halves, one per test document.

        Parameters: %(store_model_name)s

        Returns
        -------
        tuple of numpy.ndarray
            The log-likelihoods and word counts.
        """
        self.model(name)
        return self._heldout[name]

    @shared_doc
    def topic_model(self, name: str):
        """Model ``name`` as a :class:`~tealeaves.models.base.FixedTopicModel` (stored topic-word rows).

        Parameters: %(store_model_name)s

        Returns
        -------
        FixedTopicModel
            The model, described by its name.
        """
        from tealeaves.models.base import FixedTopicModel

        self.model(name)
        own = self._vocabularies.get(name)
        return FixedTopicModel(self._topic_word[name], self.vocabulary if own is None else own,
                               self._alpha.get(name), metadata={"description": name})

    @shared_doc
    def topic_scores(self, name: str, measure: str) -> list[float | None]:
        """Model ``name``'s stored per-topic ``measure`` scores, topic by topic (``None``: not scored).

        Read from the validated store, not from :attr:`topics` (where pandas shows ``None`` as NaN).

        Parameters: %(store_model_name)s
        measure : str
            A per-topic score's name.

        Returns
        -------
        list of float or None
            One per topic.
        """
        self.model(name)
        return [scores.get(measure) for scores in self._scores.get(name, [])]

    def measure_names(self) -> list[str]:
        """The measure columns of ``models`` (everything after :data:`MODEL_COLUMNS` but ``unavailable``).

        Returns
        -------
        list of str
            The column names.
        """
        return [c for c in self.models.columns if c not in MODEL_COLUMNS and c != "unavailable"]

    def to_dict(self) -> dict:
        """Every stored number, JSON-ready (per-document log-likelihoods left out).

        Returns
        -------
        dict
            ``path``, ``sweep``, ``models`` and ``topics`` (as records; ``None`` where nothing
            is stored) and ``preprocessing``.
        """
        return {"path": self.path, "sweep": self.sweep,
                "models": frame_records(self.models), "topics": frame_records(self.topics),
                "preprocessing": self.preprocessing}


def frame_records(frame: pd.DataFrame) -> list[dict]:
    """``frame``'s rows as dicts, with pandas' NaN put back to ``None``.

    The store is validated (no NaN is stored), so a NaN in :attr:`SweepResults.models` or
    :attr:`SweepResults.topics` is pandas' rendering of a ``None`` (a documented "not
    computed") or of a column another row lacks.

    Parameters
    ----------
    frame : pandas.DataFrame
        Rows of a store's models or topics.

    Returns
    -------
    list of dict
        One dict per row, ``None`` where the frame holds NaN.
    """
    return [{k: None if isinstance(v, float) and v != v else v for k, v in row.items()}
            for row in frame.to_dict(orient="records")]


#: The former name of :class:`SweepResults`.
Results = SweepResults


def load_results(path: str | os.PathLike) -> SweepResults:
    """Read the results store at ``path``, validated (see :mod:`tealeaves.store.format` for its layout).

    Parameters
    ----------
    path : str or os.PathLike
        The store (schema version 1 or 2).

    Returns
    -------
    SweepResults
        Its contents; ``models`` has the columns ``config``, ``run`` and ``source`` (a dict), and
        ``preprocessing`` is the training corpus's recipe (None when unknown).

    Raises
    ------
    IncompatibleStoreError
        When the file is not a results store this tealeaves reads.
    StoreIntegrityError
        When the store is damaged (:func:`tealeaves.store.validate.read_contents`).
    """
    contents = read_contents(path)
    models, heldout, flag_settings, phi, signatures, vocabularies = [], {}, {}, {}, {}, {}
    for m in contents.models:
        measures = dict(m["measures"])
        signatures[m["name"]] = measures.pop("signatures", {})
        flag_settings[m["name"]] = measures.pop("flags", None)
        models.append({**{c: m[c] for c in MODEL_COLUMNS}, **measures})
        heldout[m["name"]] = (m["doc_loglik"], m["doc_words"])
        phi[m["name"]] = m["topic_word"]
        vocabularies[m["name"]] = m["vocabulary"]
    info = {m["name"]: (m["k"], m["seed"]) for m in contents.models}
    topics, pairs, scores, flag_records = [], {}, {}, {}
    for t in contents.topics:
        k, seed = info[t["model"]]
        topics.append({"model": t["model"], "k": k, "seed": seed, "topic": t["topic"],
                       "top_words": t["top_words"],
                       **t["scores"], "flags": [f["flag"] for f in t["flags"]],
                       "flag_explanations": "; ".join(f["explanation"] for f in t["flags"])})
        pairs[(t["model"], t["topic"])] = t["pairs"]
        if t["flags"]:
            flag_records[(t["model"], t["topic"])] = [{"flag": f["flag"], "explanation": f["explanation"]}
                                                      for f in t["flags"]]
        scores.setdefault(t["model"], []).append(t["scores"])
    frame = pd.DataFrame(models, columns=None if models else list(MODEL_COLUMNS))
    results = SweepResults(str(path), contents.sweep, frame, pd.DataFrame(topics), pairs, heldout,
                           flag_settings, contents.vocabulary, phi, signatures)
    results.preprocessing, results.flag_records = contents.preprocessing, flag_records
    results._scores, results._vocabularies, results._alpha = scores, vocabularies, {
        m["name"]: m["alpha"] for m in contents.models}
    return results
