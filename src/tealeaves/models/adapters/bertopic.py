"""BERTopic models: topics ranked by their class-based TF-IDF weights.

BERTopic (Grootendorst 2022) clusters document embeddings and describes each
cluster by c-TF-IDF over the vectorizer's vocabulary.  The adapter takes the
``c_tf_idf_`` rows (sparse, one per topic in ``sorted(topic_representations_)``
order) as the ranking weights, the columns being
``vectorizer_model.get_feature_names_out()``.  The outlier topic ``-1`` is not
a topic and is left out; ``metadata_["bertopic"]`` records that it was
excluded, how many documents it held and the BERTopic ids of the kept topics.

c-TF-IDF weights are not probabilities and BERTopic defines no likelihood,
so held-out likelihood is refused; coherence and human studies work.

By default (``ranking="representation"``) the top words by c-TF-IDF must be
the words BERTopic reports (``get_topics()``); if a ``representation_model``
re-ranked them, the model is refused unless ``ranking="c-tf-idf"`` says to
rank by the c-TF-IDF weights anyway.
"""

from __future__ import annotations

import numpy as np

from tealeaves.errors import InvalidModelError, UnsupportedModelError
from tealeaves.models.adapters.arrays import (
    AdaptedModel,
    as_vocabulary,
    check_weights,
    shape_tag,
    source_metadata,
)
from tealeaves.validation import check_choice

#: Why BERTopic has no likelihood (quoted by every likelihood measure).
BERTOPIC_REASON = ("BERTopic is not a probabilistic model: its c-TF-IDF weights are not word distributions "
                   "and it defines no likelihood; score it with coherence or a human study")

RANKINGS = ("representation", "c-tf-idf")


def _representation_mismatch(weights: np.ndarray, representation: list[list[str]], vocab) -> int | None:
    """The first topic whose reported words are not a top-n of its c-TF-IDF row (ties allowed), or None."""
    for k, words in enumerate(representation):
        if not words:
            continue
        row = weights[k]
        ids = [vocab.index.get(w, -1) for w in words]
        threshold = np.sort(row)[::-1][len(words) - 1]
        if min(ids) < 0 or np.any(row[ids] < threshold):
            return k
    return None


def from_bertopic(model, *, ranking: str = "representation", inference: str = "tealeaves") -> AdaptedModel:
    """Adapt a fitted BERTopic model (see the module docstring).

    Parameters
    ----------
    model : object
        A fitted BERTopic model (or an object with its documented attributes
        ``topic_representations_``, ``c_tf_idf_``, ``vectorizer_model`` and,
        optionally, ``topic_sizes_``).
    ranking : {"representation", "c-tf-idf"}, default "representation"
        ``"representation"`` requires the top c-TF-IDF words to be the words
        BERTopic reports; ``"c-tf-idf"`` ranks by the c-TF-IDF weights even when a
        ``representation_model`` re-ranked them.
    inference : {"tealeaves", "native"}, default "tealeaves"
        How topic proportions of new documents are inferred (see
        :mod:`tealeaves.models.adapters.arrays`).
        BERTopic has no probabilities, so only the default applies.

    Returns
    -------
    AdaptedModel
        The c-TF-IDF rows of the kept topics (outlier topic ``-1`` left out) as
        ranking weights; ``metadata_["bertopic"]`` records the exclusion, the
        outlier documents and the kept topic ids.

    Raises
    ------
    InvalidModelError
        If the model is not fitted, its topics and ``c_tf_idf_`` rows disagree,
        or it has only the outlier topic.
    UnsupportedModelError
        If it has no fitted vectorizer, or (``ranking="representation"``) a
        topic's reported words are not its top c-TF-IDF words.
    ParameterError
        If ``ranking`` is not a documented choice.
    """
    ranking = check_choice(ranking, "ranking", RANKINGS)
    reps = getattr(model, "topic_representations_", None)
    ctfidf = getattr(model, "c_tf_idf_", None)
    vectorizer = getattr(model, "vectorizer_model", None)
    if not reps or ctfidf is None:
        raise InvalidModelError("the BERTopic model is not fitted (no topic_representations_ or c_tf_idf_)",
                                fix="call fit() or fit_transform() first")
    ids = sorted(int(t) for t in reps)
    if ctfidf.shape[0] != len(ids):
        raise InvalidModelError(f"the BERTopic model has {len(ids)} topics but c_tf_idf_ has "
                                f"{ctfidf.shape[0]} rows; update its topics (update_topics) so they agree")
    if vectorizer is None or not hasattr(vectorizer, "get_feature_names_out"):
        raise UnsupportedModelError("the BERTopic model has no fitted vectorizer_model, so its c-TF-IDF "
                                    "columns have no words")
    vocab = as_vocabulary([str(w) for w in vectorizer.get_feature_names_out()], ctfidf.shape[1],
                          "the BERTopic c_tf_idf_")
    keep = [i for i, t in enumerate(ids) if t != -1]
    if not keep:
        raise InvalidModelError("the BERTopic model has only the outlier topic -1")
    weights = check_weights(ctfidf[keep], "the BERTopic c_tf_idf_")
    kept = [ids[i] for i in keep]
    words = [[w for w, _ in reps[t] if w] for t in kept]
    bad = _representation_mismatch(weights, words, vocab)
    if bad is not None and ranking == "representation":
        raise UnsupportedModelError(
            f"BERTopic topic {kept[bad]}'s reported words ({', '.join(words[bad][:5])}, ...) are not its top "
            "words by c-TF-IDF (a representation_model re-ranked them)",
            fix="pass ranking='c-tf-idf' to rank words by their c-TF-IDF weights")
    sizes = dict(getattr(model, "topic_sizes_", None) or {})
    info = {"outlier_topic_excluded": -1 in ids, "n_outlier_documents": int(sizes.get(-1, 0)),
            "topic_ids": kept, "ranking": "c-tf-idf"}
    if bad is not None:
        info["representation_differs"] = True
    version = _version()
    desc = f"bertopic-{version}:{type(model).__name__}/{shape_tag(*weights.shape)}"
    meta = source_metadata("bertopic", version, type(model), desc, bertopic=info)
    return AdaptedModel(None, vocab, topic_word_weights=weights, metadata=meta, inference=inference,
                        not_probabilistic=BERTOPIC_REASON)


def _version() -> str:
    """bertopic's installed version, from package metadata: reading a fitted model's attributes needs no
    import of the library (an object with BERTopic's documented attributes is read the same way)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("bertopic")
    except PackageNotFoundError:
        return "unknown"
