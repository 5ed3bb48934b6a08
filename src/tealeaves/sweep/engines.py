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
from functools import partial
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
    check : callable, optional
        ``check(settings) -> settings``: the values checked (and converted) before any fit
        (``None``: not checked); the built-in engines check :data:`tealeaves.sweep.params.ENGINE_SETTINGS`.
    """

    name: str
    fit: FitFunction
    defaults: dict = field(default_factory=dict)
    #: ``() -> set of setting names`` the engine accepts (``None``: not checked)
    accepts: Callable[[], set[str]] | None = None
    #: ``check(settings) -> settings``: the values checked before any fit (``None``: not checked)
    check: Callable[[dict], dict] | None = None

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
            When a setting is not one the engine accepts, or its value is of the wrong type or out of
            range (:data:`tealeaves.sweep.params.ENGINE_SETTINGS`).
        """
        if user is not None and not isinstance(user, dict):
            raise ParameterError(f"settings must be a dict of engine settings, got {type(user).__name__}",
                                 fix='e.g. settings={"max_iter": 20}')
        merged = {**self.defaults, **(user or {})}
        if self.accepts is not None:
            known = self.accepts()
            unknown = sorted(set(merged) - known)
            if unknown:
                raise ParameterError(f"engine {self.name!r} takes no setting {', '.join(unknown)}",
                                     fix=f"it accepts {', '.join(sorted(known))}")
        return self.check(merged) if self.check is not None else merged


def _declared(engine: str) -> set[str]:
    """The setting names :data:`~tealeaves.sweep.params.ENGINE_SETTINGS` declares for ``engine``."""
    from tealeaves.sweep.params import ENGINE_SETTINGS

    return set(ENGINE_SETTINGS[engine])


def _checked(engine: str, settings: dict) -> dict:
    """Every value of ``settings`` checked by its declaration (:func:`check_engine_setting`)."""
    from tealeaves.sweep.params import check_engine_setting

    return {name: check_engine_setting(engine, name, value) for name, value in settings.items()}


def _check_gibbs(settings: dict) -> dict:
    """GibbsLDA's settings checked by GibbsLDA itself (its declarations), before any fit."""
    from tealeaves.models.lda_gibbs import GibbsLDA

    try:
        GibbsLDA(2, **settings)._sampler_model()
    except ParameterError as exc:
        raise ParameterError(f"engine 'gibbs' setting {exc}",
                             fix="correct it in the engine settings") from None
    return settings


class guarded:  # noqa: N801 -- used as a function decorator: guarded("sklearn", fit)
    """``fit`` with the engine library's own exceptions turned into a :class:`ParameterError`.

    A library that rejects a setting raises its own ``ValueError`` or ``TypeError`` (say, scikit-learn's
    ``InvalidParameterError``); the sweep reports it as an error of the settings, naming the setting
    the library's message names (else all of them), never as an internal error.  An object, not a
    closure, so that an engine pickles to worker processes.

    Parameters
    ----------
    engine : str
        The engine's name, for messages.
    fit : callable
        ``fit(train, k, seed, settings) -> model`` (a module-level function); ``__wrapped__``.
    """

    def __init__(self, engine: str, fit: FitFunction):
        self.engine, self.__wrapped__ = engine, fit

    def __call__(self, train: Corpus, k: int, seed: int, settings: dict):
        """Fit as ``fit`` does (see the class docstring).

        Parameters
        ----------
        train : Corpus
            The training corpus.
        k : int
            The number of topics.
        seed : int
            The fit's seed.
        settings : dict
            The engine settings.

        Returns
        -------
        object
            The fitted model.
        """
        from tealeaves.errors import TealeavesError

        try:
            return self.__wrapped__(train, k, seed, settings)
        except TealeavesError:
            raise
        except (ValueError, TypeError, ArithmeticError) as exc:
            named = [n for n in settings if n in str(exc)] or sorted(settings)
            raise ParameterError(f"engine {self.engine!r} refused its settings {', '.join(named)} at K={k} "
                                 f"({type(exc).__name__}: {exc})",
                                 fix="correct them in the engine settings") from None


def check_trained(engine: str, model, trained: bool) -> None:
    """Refuse a model that did not train (no pass, no iteration) or holds non-finite topics.

    Parameters
    ----------
    engine : str
        The engine's name, for messages.
    model : object
        The fitted model (``topic_word_``).
    trained : bool
        The engine library's own account that it updated the model at least once.

    Raises
    ------
    InvalidModelError
        When ``trained`` is false or a topic is not a probability distribution.
    """
    from tealeaves.errors import InvalidModelError
    from tealeaves.models.base import check_topic_word

    if not trained:
        raise InvalidModelError(f"engine {engine!r} returned a model that was never trained (no update)",
                                fix="give it at least one pass and one iteration in settings")
    check_topic_word(model.topic_word_, name=f"the {engine} model's topic_word_")


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
    model = load_model(lda)
    check_trained("gensim", model, lda.num_updates > 0)
    return model


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
    check_trained("tomotopy", model, mdl.global_step > 0)
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


def _keywords(function, drop: set[str]) -> set[str]:
    import inspect

    return {n for n, p in inspect.signature(function).parameters.items()
            if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)} - drop


def _fit_gibbs(train: Corpus, k: int, seed: int, settings: dict):
    from tealeaves.models.lda_gibbs import GibbsLDA

    return GibbsLDA(k, random_state=seed, **settings).fit(train)


def _gibbs_settings() -> set[str]:
    from tealeaves.models.lda_gibbs import GibbsLDA

    old = set(getattr(GibbsLDA.__init__, "__renamed_parameters__", {}))  # deprecated names still work
    return _keywords(GibbsLDA.__init__, {"self", "n_components", "random_state"}) | old


#: The engines by name (``register_engine`` adds more).
ENGINES: dict[str, Engine] = {
    "sklearn": Engine("sklearn", guarded("sklearn", _fit_sklearn),
                      {"learning_method": "batch", "max_iter": 10},
                      partial(_declared, "sklearn"), partial(_checked, "sklearn")),
    "gensim": Engine("gensim", guarded("gensim", _fit_gensim), {"passes": 5, "iterations": 50},
                     partial(_declared, "gensim"), partial(_checked, "gensim")),
    "tomotopy": Engine("tomotopy", guarded("tomotopy", _fit_tomotopy), {"iterations": 200},
                       partial(_declared, "tomotopy"), partial(_checked, "tomotopy")),
    "gibbs": Engine("gibbs", guarded("gibbs", _fit_gibbs), {"n_iter": 1000}, _gibbs_settings, _check_gibbs),
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
    if module is not None and getattr(engine.fit, "__wrapped__", engine.fit) in (_fit_gensim, _fit_tomotopy):
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
