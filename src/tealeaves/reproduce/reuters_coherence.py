"""The article's coherence column: mean NPMI of LDA on Reuters by K, and LSI with 20 dimensions.

Each topic's ten most probable words are scored with NPMI from document
co-occurrence in the 7,769 ModApte training stories (the ``npmi`` preset:
one-one segmentation, boolean documents, never co-occurring pairs at their
limit -1), averaged over topics.  The LDA models are those of
:func:`tealeaves.reproduce.reuters.fit_reuters_models` (shared disk cache);
LSI (:class:`tealeaves.models.lsi.LSI`, raw counts) contributes each
dimension's ten words with the largest positive loading.

Article: 0.203, 0.242, 0.251, 0.208, 0.122 for K = 5, 10, 20, 40, 80, and
LSI 0.097 against LDA's 0.251 at 20.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from tealeaves._docs import shared_doc
from tealeaves._params import renamed_parameters
from tealeaves.coherence import build_index, coherence
from tealeaves.corpus import Corpus
from tealeaves.reproduce.params import LSI_DIMENSIONS, N_TOP
from tealeaves.reproduce.reuters import DEFAULT_KS, Progress, _stderr, fit_reuters_models, lda_params

#: The article's mean NPMI (top 10 words, training-story co-occurrence) by K, and LSI at 20 dimensions.
ARTICLE_NPMI = {5: 0.203, 10: 0.242, 20: 0.251, 40: 0.208, 80: 0.122}
ARTICLE_LSI_20 = 0.097


@renamed_parameters({"ks": "n_components", "top_n": "n_top"})
@shared_doc
def reuters_coherence_table(
    n_components: Iterable[int] = DEFAULT_KS,
    seed: int = 0,
    quick: bool = False,
    n_top: int = 10,
    lsi_dimensions: int = 20,
    cache_dir: str | Path | None = None,
    use_cache: bool = True,
    train: Corpus | None = None,
    models: dict | None = None,
    progress: Progress | None = _stderr,
) -> dict:
    """Mean NPMI per K (one row each, with the article's value), LSI's, and the signature.

    Each topic's ``n_top`` words are scored with NPMI (Bouma 2009; the ``npmi``
    preset, see the module docstring) from document co-occurrence in the
    training stories, and averaged over topics.

    Parameters
    ----------
    n_components : iterable of int, default (5, 10, 20, 40, 80)
        The numbers of topics: whole numbers >= 2, each once (:func:`~tealeaves.reproduce.reuters.check_ks`).
    seed : int, default 0
        Seed of the LDA fits and of LSI's randomized SVD.
    quick : bool, default False
        Fit with the reduced settings (``QUICK_PARAMS`` of :mod:`tealeaves.reproduce.reuters`).
    n_top : int, default 10
        Words scored per topic (>= 2).
    lsi_dimensions : int, default 20
        LSI's number of dimensions (>= 1, below the number of stories and of words).
    cache_dir : str or pathlib.Path, optional
        The model cache folder; default :func:`~tealeaves.reproduce.reuters.default_cache_dir`.
    %(reuters_use_cache)s
    train : Corpus, optional
        The training stories; default the preprocessed ModApte training set.
    models : dict, optional
        Fitted models by K, instead of fitting (or loading) them.
    %(reuters_progress)s

    Returns
    -------
    dict
        ``rows`` (per K: ``k``, ``mean_npmi``, ``article_npmi``, ``min_topic``,
        ``max_topic``, ``unscored_topics``), ``lsi`` (its ``mean_npmi`` beside
        LDA's at the same K and the article's values), ``peak_k``, ``signature``
        and ``settings``.

    Raises
    ------
    ParameterError
        If ``n_components``, ``n_top`` or ``lsi_dimensions`` is out of range.
    """
    from tealeaves.models.lsi import LSI
    from tealeaves.reproduce.reuters import check_ks, load_corpora
    from tealeaves.validation import check_int

    n_components = check_ks(n_components)
    n_top = N_TOP.check(n_top)
    train = load_corpora()[0] if train is None else train
    lsi_dimensions = check_int(LSI_DIMENSIONS.check(lsi_dimensions), "lsi_dimensions", min_value=1,
                               max_value=min(len(train), len(train.vocabulary)) - 1)
    if models is None:
        models = fit_reuters_models(n_components, seed, quick, cache_dir, use_cache, train, progress)
    index = build_index(train, name="reuters-modapte-train")
    rows = []
    signature = None
    for k in n_components:
        result = coherence(models[k], index, measure="npmi", n_top=n_top)
        signature = str(result.signature)
        rows.append({"k": k, "mean_npmi": result.mean, "article_npmi": ARTICLE_NPMI.get(k),
                     "min_topic": min(s for s in result.scores if s is not None),
                     "max_topic": max(s for s in result.scores if s is not None),
                     "unscored_topics": result.n_unscored})
    lsi = LSI(lsi_dimensions, random_state=seed).fit(train)
    lsi_result = coherence(lsi, index, measure="npmi", n_top=n_top)
    lda_at = next((r["mean_npmi"] for r in rows if r["k"] == lsi_dimensions), None)
    return {
        "rows": rows,
        "lsi": {"dimensions": lsi_dimensions, "mean_npmi": lsi_result.mean, "lda_same_k": lda_at,
                "article_lsi": ARTICLE_LSI_20 if lsi_dimensions == 20 else None,
                "article_lda": ARTICLE_NPMI.get(lsi_dimensions)},
        "peak_k": max(rows, key=lambda r: r["mean_npmi"])["k"] if rows else None,
        "signature": signature,
        "settings": {"lda": lda_params(seed, quick), "top_n": n_top, "n_train": len(train),
                     "preprocessing": train.metadata.get("preprocessing")},
    }
