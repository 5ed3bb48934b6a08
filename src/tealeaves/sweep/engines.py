"""The engines a sweep fits with: a registry of name -> :class:`Engine`.

Every engine turns ``(training corpus, K, seed, settings)`` into a fitted tealeaves
model (``topic_word_``, ``vocabulary_``, ``transform``) over the training corpus's
vocabulary, deterministically for a given seed:

* ``sklearn``: :class:`tealeaves.models.SklearnLDA` (``random_state=seed``; other
  settings go to ``LatentDirichletAllocation``); it also reports its own variational
  bound as scikit-learn's ``perplexity()`` (:func:`library_perplexity`);
* ``gensim``: gensim's ``LdaModel`` (``random_state=seed``), adapted with
  :func:`tealeaves.load_model` (extra ``gensim``);
* ``tomotopy``: tomotopy's ``LDAModel`` (``seed=seed``, ``iterations`` Gibbs sweeps,
  default 200, one worker thread so the chain is reproducible), adapted with
  :func:`tealeaves.load_model` (extra ``tomotopy``);
* ``gibbs``: tealeaves' own collapsed Gibbs sampler, :class:`tealeaves.models.GibbsLDA`
  (``random_state=seed``, MALLET's hyperparameter optimisation; the sparse sampler from K = 20),
  the same kernels as the polylingual model; no optional library.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tealeaves.errors import ParameterError

if TYPE_CHECKING:  # the command-line parser lists the engines without loading scipy
    from tealeaves.corpus import Corpus

FitFunction = Callable[["Corpus", int, int, dict], object]


@dataclass(frozen=True)
class Engine:
    """A named way of fitting a topic model: ``fit(train, k, seed, settings) -> model``.

    ``defaults`` are merged under the user's settings (and recorded with every model).

    Parameters
    ----------
    name : str
        The engine's name (``--engine``).
    fit : callable
        ``fit(train, k, seed, settings) -> model``.
    defaults : dict, optional
        Settings merged under the user's.
    accepts : callable, optional
        ``() -> set of setting names`` the engine accepts (``None``: not checked).
    """

    name: str
    fit: FitFunction
    defaults: dict = field(default_factory=dict)
    #: ``() -> set of setting names`` the engine accepts (``None``: not checked)
    accepts: Callable[[], set[str]] | None = None

    def settings(self, user: dict | None = None) -> dict:
        """The settings a model of this engine is fitted with: ``defaults`` updated by ``user``.

        A setting the engine does not take is refused (:class:`ParameterError`), never ignored.

        Parameters
        ----------
        user : dict, optional
            The user's settings.

        Returns
        -------
        dict
            The merged settings.

        Raises
        ------
        ParameterError
            When a setting is not one the engine accepts.
        """
        merged = {**self.defaults, **(user or {})}
        if self.accepts is not None:
            known = self.accepts()
            unknown = sorted(set(merged) - known)
            if unknown:
                raise ParameterError(f"engine {self.name!r} takes no setting {', '.join(unknown)}",
                                     fix=f"it accepts {', '.join(sorted(known))}")
        return merged


def _fit_sklearn(train: Corpus, k: int, seed: int, settings: dict):
    from tealeaves.models import SklearnLDA

    return SklearnLDA(k, random_state=seed, **settings).fit(train)


def _fit_gensim(train: Corpus, k: int, seed: int, settings: dict):
    from tealeaves._optional import optional_import

    optional_import("gensim", "gensim", "the gensim sweep engine")
    from gensim.corpora import Dictionary
    from gensim.models import LdaModel

    from tealeaves.models.adapters import load_model

    id2word = Dictionary()
    id2word.token2id = {w: i for i, w in enumerate(train.vocabulary)}
    id2word.id2token = dict(enumerate(train.vocabulary))
    counts = train.counts
    bows = [list(zip(counts.indices[a:b].tolist(), counts.data[a:b].tolist()))
            for a, b in zip(counts.indptr[:-1], counts.indptr[1:])]
    lda = LdaModel(bows, num_topics=k, id2word=id2word, random_state=seed, **settings)
    return load_model(lda)


def _fit_tomotopy(train: Corpus, k: int, seed: int, settings: dict):
    from tealeaves._optional import optional_import

    tp = optional_import("tomotopy", "tomotopy", "the tomotopy sweep engine")
    from tealeaves.models.adapters import load_model

    settings = dict(settings)
    iterations = int(settings.pop("iterations", 200))
    mdl = tp.LDAModel(k=k, seed=seed, **settings)
    for words in train.token_lists():
        if words:
            mdl.add_doc(words)
    mdl.train(iterations, workers=1)
    model = load_model(mdl)
    return _reorder_vocabulary(model, train)


def _reorder_vocabulary(model, train: Corpus):
    """``model`` with its columns in the training vocabulary's order (tomotopy orders words its own way)."""
    import numpy as np

    from tealeaves.models.adapters.arrays import AdaptedModel

    if list(model.vocabulary_) == list(train.vocabulary):
        return model
    position = {w: i for i, w in enumerate(model.vocabulary_)}
    phi = np.zeros((model.topic_word_.shape[0], len(train.vocabulary)))
    for j, word in enumerate(train.vocabulary):
        if word in position:
            phi[:, j] = model.topic_word_[:, position[word]]
    phi /= phi.sum(axis=1, keepdims=True)
    return AdaptedModel(phi, list(train.vocabulary), model.doc_topic_prior_, metadata=model.metadata_)


def _sklearn_settings() -> set[str]:
    from sklearn.decomposition import LatentDirichletAllocation

    return set(LatentDirichletAllocation().get_params()) - {"n_components", "random_state"}


def _keywords(function, drop: set[str]) -> set[str]:
    import inspect

    return {n for n, p in inspect.signature(function).parameters.items()
            if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)} - drop


def _gensim_settings() -> set[str]:
    from tealeaves._optional import optional_import

    optional_import("gensim", "gensim", "the gensim sweep engine")
    from gensim.models import LdaModel

    return _keywords(LdaModel.__init__, {"self", "corpus", "num_topics", "id2word", "random_state"})


def _tomotopy_settings() -> set[str]:
    return {"iterations", "alpha", "eta"}  # no word removal: every training word keeps a column


def _fit_gibbs(train: Corpus, k: int, seed: int, settings: dict):
    from tealeaves.models.lda_gibbs import GibbsLDA

    return GibbsLDA(k, random_state=seed, **settings).fit(train)


def _gibbs_settings() -> set[str]:
    from tealeaves.models.lda_gibbs import GibbsLDA

    old = set(getattr(GibbsLDA.__init__, "__renamed_parameters__", {}))  # deprecated names still work
    return _keywords(GibbsLDA.__init__, {"self", "n_components", "random_state"}) | old


#: The engines by name (``register_engine`` adds more).
ENGINES: dict[str, Engine] = {
    "sklearn": Engine("sklearn", _fit_sklearn, {"learning_method": "batch", "max_iter": 10},
                      _sklearn_settings),
    "gensim": Engine("gensim", _fit_gensim, {"passes": 5, "iterations": 50}, _gensim_settings),
    "tomotopy": Engine("tomotopy", _fit_tomotopy, {"iterations": 200}, _tomotopy_settings),
    "gibbs": Engine("gibbs", _fit_gibbs, {"n_iter": 1000}, _gibbs_settings),
}


def register_engine(engine: Engine) -> None:
    """Add (or replace) an engine of the registry, e.g. ``Engine("gibbs", fit_gibbs, {...})``.

    Parameters
    ----------
    engine : Engine
        The engine, registered under its name.
    """
    ENGINES[engine.name] = engine


def get_engine(engine: str | Engine) -> Engine:
    """The :class:`Engine` named ``engine`` (an :class:`Engine` is returned unchanged).

    Parameters
    ----------
    engine : str or Engine
        A registered name, or an engine.

    Returns
    -------
    Engine
        The engine.

    Raises
    ------
    ParameterError
        When no engine has that name.
    """
    if isinstance(engine, Engine):
        return engine
    if engine not in ENGINES:
        raise ParameterError(f"unknown engine {engine!r}", fix=f"choose one of {', '.join(ENGINES)}")
    return ENGINES[engine]


def check_available(engine: Engine) -> None:
    """Fail now, before any fit, when the engine's optional library is missing.

    Parameters
    ----------
    engine : Engine
        The engine (gensim and tomotopy need their library).

    Raises
    ------
    MissingDependencyError
        When the library is not installed.
    """
    from tealeaves._optional import optional_import

    module = {"gensim": "gensim", "tomotopy": "tomotopy"}.get(engine.name)
    if module is not None and engine.fit in (_fit_gensim, _fit_tomotopy):
        optional_import(module, module, f"the {module} sweep engine")


def library_perplexity(model, test: Corpus) -> float | None:
    """The engine's own reported perplexity on the whole test documents, where it reports one.

    scikit-learn: ``exp(-bound / N)`` from its variational bound (:meth:`SklearnLDA.perplexity`);
    it includes the corpus-wide topic-word term, so it is not a predictive perplexity.
    Other engines: ``None``.

    Parameters
    ----------
    model : object
        A fitted model.
    test : Corpus
        The test documents.

    Returns
    -------
    float or None
        The perplexity, or ``None``.
    """
    from tealeaves.likelihood import align_corpus

    if hasattr(model, "perplexity") and hasattr(model, "estimator_"):
        return float(model.perplexity(align_corpus(test, model.vocabulary_)))
    return None
