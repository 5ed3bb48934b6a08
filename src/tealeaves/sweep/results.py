"""Reading a results store back: pandas DataFrames, JSON and per-document held-out scores.

>>> results = load_results("results.sqlite")  # doctest: +SKIP
>>> results.models[["name", "k", "seed", "completion_perplexity", "npmi"]]  # doctest: +SKIP
>>> results.topics.query("model == 'sklearn-K10-s0'")  # doctest: +SKIP

Nothing is refitted or rescored: every number comes from the store.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from tealeaves.errors import ParameterError
from tealeaves.sweep.store import read_store

#: Columns of ``SweepResults.models`` before the measures (which follow, one column each).
MODEL_COLUMNS = ("name", "engine", "k", "seed", "settings", "signature", "description", "fit_seconds",
                 "score_seconds", "vocabulary_hash", "split_hash")


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
    preprocessing : dict or None, optional
        The training corpus's recipe (``Preprocessor.get_params()``), or None when unknown
        (pre-tokenised input, or a store written before it was recorded).
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
    preprocessing: dict | None = None

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
            names = ", ".join(self.models["name"]) or "none"
            raise ParameterError(f"no model named {name!r} in results store '{self.path}'",
                                 fix=f"choose one of: {names}")
        return rows.iloc[0]

    def heldout(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """``(log-likelihoods, word counts)`` of model ``name``'s held-out halves, one per test document.

        Parameters
        ----------
        name : str
            A model's name.

        Returns
        -------
        tuple of numpy.ndarray
            The log-likelihoods and word counts.
        """
        self.model(name)
        return self._heldout[name]

    def topic_model(self, name: str):
        """Model ``name`` as a :class:`~tealeaves.models.base.FixedTopicModel` (stored topic-word rows).

        Parameters
        ----------
        name : str
            A model's name.

        Returns
        -------
        FixedTopicModel
            The model, described by its name.
        """
        from tealeaves.models.base import FixedTopicModel

        self.model(name)
        return FixedTopicModel(self._topic_word[name], self.vocabulary, metadata={"description": name})

    def measure_names(self) -> list[str]:
        """The measure columns of ``models`` (everything after :data:`MODEL_COLUMNS`).

        Returns
        -------
        list of str
            The column names.
        """
        return [c for c in self.models.columns if c not in MODEL_COLUMNS]

    def to_dict(self) -> dict:
        """Every stored number, JSON-ready (per-document log-likelihoods left out).

        Returns
        -------
        dict
            ``path``, ``sweep``, ``models`` and ``topics`` (as records).
        """
        return {"path": self.path, "sweep": self.sweep,
                "models": self.models.to_dict(orient="records"),
                "topics": self.topics.to_dict(orient="records")}


#: The former name of :class:`SweepResults`.
Results = SweepResults


def load_results(path: str | os.PathLike) -> SweepResults:
    """Read the results store at ``path`` (see :mod:`tealeaves.sweep.store` for its layout).

    Parameters
    ----------
    path : str or os.PathLike
        The store.

    Returns
    -------
    SweepResults
        Its contents.
    """
    conn = read_store(path)
    try:
        meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        sweep, vocabulary = json.loads(meta["sweep"]), json.loads(meta["vocabulary"])
        preprocessing = json.loads(meta.get("preprocessing", "null"))
        model_rows = conn.execute(
            "SELECT name, engine, k, seed, settings, signature, description, fit_seconds, score_seconds, "
            "vocabulary_hash, split_hash, measures, doc_loglik, doc_words, topic_word FROM models "
            "ORDER BY engine, k, seed"
        ).fetchall()
        topic_rows = conn.execute("SELECT model, topic, top_words, scores, pairs, flags FROM topics "
                                  "ORDER BY model, topic").fetchall()
    finally:
        conn.close()
    models, heldout, info, flag_settings, phi, signatures = [], {}, {}, {}, {}, {}
    for row in model_rows:
        measures = json.loads(row[11])
        signatures[row[0]] = measures.pop("signatures", {})
        flag_settings[row[0]] = measures.pop("flags", None)
        models.append({**dict(zip(MODEL_COLUMNS, row[:11])), **measures})
        heldout[row[0]] = (np.frombuffer(row[12], dtype="<f8"), np.frombuffer(row[13], dtype="<i8"))
        phi[row[0]] = np.frombuffer(row[14], dtype="<f8").reshape(row[2], len(vocabulary))
        info[row[0]] = (row[2], row[3])
    topics, pairs = [], {}
    for model, topic, words, scores, pair, flags in topic_rows:
        k, seed = info[model]
        flags = json.loads(flags)
        topics.append({"model": model, "k": k, "seed": seed, "topic": topic, "top_words": json.loads(words),
                       **json.loads(scores), "flags": [f["flag"] for f in flags],
                       "flag_explanations": "; ".join(f["explanation"] for f in flags)})
        pairs[(model, topic)] = json.loads(pair)
    frame = pd.DataFrame(models, columns=None if models else list(MODEL_COLUMNS))
    return SweepResults(str(path), sweep, frame, pd.DataFrame(topics), pairs, heldout, flag_settings,
                   vocabulary, phi, signatures, preprocessing)
