"""The parameters of :func:`tealeaves.sweep.sweep` and :func:`tealeaves.sweep.compare_models`,
declared once (:class:`tealeaves._params.Param`) for the Python API and ``tealeaves sweep|compare``.

This module imports no numerical library, so ``tealeaves --help`` stays light.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from tealeaves._params import Param, declare
from tealeaves.coherence.params import N_TOP as _N_TOP
from tealeaves.errors import ParameterError
from tealeaves.validation import check_unique

#: Numbers of topics (a list in a sweep): each a whole number >= 2, given once.
N_COMPONENTS = Param("n_components", "int", min_value=2, short="-k", deprecated_flags=("--k",),
                     help="numbers of topics, each >= 2 and given once")
#: Seeds per K: ``n`` means seeds 0 .. n-1.
SEEDS = Param("seeds", "int", min_value=1, max_value=10_000, help="seeds 0 .. N-1 per K")
#: Top words per topic scored by the coherence measures (the coherence API's declaration).
N_TOP = _N_TOP.replace(help="top words per topic")
#: Share of the corpus held out as test documents when no test corpus is given.
TEST_FRACTION = Param("test_fraction", "float", min_value=0.0, max_value=1.0, include_min=False,
                      help="share of the corpus held out as test documents when no test corpus is given "
                           "(default 0.2)")
#: Local worker processes.
N_JOBS = Param("n_jobs", "int", min_value=1, max_value=256, short="-j", deprecated_flags=("--workers",),
               help="local worker processes (1: in this process)")
#: Bootstrap replicates of ``compare``.
N_BOOT = Param("n_boot", "int", min_value=100, max_value=1_000_000, help="bootstrap replicates")
#: Interval level of ``compare``.
LEVEL = Param("level", "float", min_value=0.5, max_value=0.999, help="interval level")

#: Every declaration, by Python name.
PARAMS = declare(N_COMPONENTS, SEEDS, N_TOP, TEST_FRACTION, N_JOBS, N_BOOT, LEVEL)


def _require_list(value: object, name: str, what: str, example: str) -> None:
    """Refuse a value that is not a list-like of values (a number, a string, a mapping, ``None``)."""
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        exc = ParameterError(f"{name} must be {what}, got {value!r} ({type(value).__name__})",
                             fix=f"e.g. {name}={example}")
        exc.param = name
        raise exc


def check_seeds(seeds: int | Iterable[int]) -> list[int]:
    """``seeds`` as a list: ``n`` means seeds ``0 .. n-1`` (:data:`SEEDS`); a list is taken as given
    (each a whole number in ``[0, 2**32 - 1]``, once).

    A string, a float or any other type is refused: ``"10"`` is not read as the seeds 1 and 0, nor
    ``2.0`` as two seeds.

    Parameters
    ----------
    seeds : int or iterable of int
        A number of seeds, or the seeds.

    Returns
    -------
    list of int
        The seeds.

    Raises
    ------
    ParameterError
        When ``seeds`` is neither, a seed is invalid or repeated, or the number is out of bounds.
    """
    import numbers

    from tealeaves.validation import check_int

    if isinstance(seeds, numbers.Integral) and not isinstance(seeds, bool):
        return list(range(SEEDS.check(int(seeds))))
    if isinstance(seeds, (bool, numbers.Number)):
        exc = ParameterError(f"seeds must be a whole number of seeds or a list of seeds, got {seeds!r} "
                             f"({type(seeds).__name__})", fix="e.g. seeds=3 or seeds=[0, 7]")
        exc.param = SEEDS.name
        raise exc
    _require_list(seeds, SEEDS.name, "a whole number of seeds or a list of seeds", "3 or seeds=[0, 7]")
    try:
        return check_unique([check_int(s, "seeds", min_value=0, max_value=2**32 - 1) for s in seeds], "seeds")
    except ParameterError as exc:
        exc.param = SEEDS.name
        raise


def check_n_components(n_components: Iterable[int], *, allow_empty: bool = False) -> list[int]:
    """Numbers of topics: whole numbers >= 2 (:data:`N_COMPONENTS`), each once, in the order given.

    Parameters
    ----------
    n_components : iterable of int
        The numbers of topics.
    allow_empty : bool
        Accept an empty list (default: refused).

    Returns
    -------
    list of int
        The numbers, checked.
    """
    name = N_COMPONENTS.name
    _require_list(n_components, name, "a list of whole numbers >= 2", "[5, 10, 20]")
    try:
        values = check_unique([N_COMPONENTS.check(k) for k in n_components], name)
    except ParameterError as exc:
        exc.param = name
        raise
    if not values and not allow_empty:
        exc = ParameterError("no number of topics given", fix=f"give at least one, e.g. {name}=[5, 10, 20]")
        exc.param = name
        raise exc
    return values


# -- engine settings (``settings=`` / ``--settings``) ------------------------------------------------
def _int(name: str, low: int, high: int = 1_000_000) -> Param:
    return Param(name, "int", min_value=low, max_value=high)


def _positive(name: str, high: float | None = None) -> Param:
    return Param(name, "float", min_value=0.0, max_value=high, include_min=False)


def _share(name: str) -> Param:
    return Param(name, "float", min_value=0.0, max_value=1.0)


def _choice(name: str, *choices: str) -> Param:
    return Param(name, "choice", choices=choices)


#: Every engine's settings, declared once: name -> the accepted forms (a value must pass one of
#: them; ``None`` only where listed in :data:`NULLABLE_SETTINGS`).  The bounds are the engine
#: library's own, narrowed where its value would fit no model (``passes`` or ``max_iter`` 0: nothing
#: trained) or abort the process (tomotopy's ``alpha`` <= 0).  ``gibbs`` takes
#: :class:`~tealeaves.models.GibbsLDA`'s parameters, checked by that class.
ENGINE_SETTINGS: dict[str, dict[str, tuple[Param, ...]]] = {
    "sklearn": {p.name: (p,) for p in (
        _choice("learning_method", "batch", "online"), _int("max_iter", 1), _int("batch_size", 1),
        _int("evaluate_every", -1), _share("learning_decay"),
        Param("learning_offset", "float", min_value=1.0, max_value=1e12),
        _int("max_doc_update_iter", 0), Param("mean_change_tol", "float", min_value=0.0),
        Param("perp_tol", "float", min_value=0.0), _positive("total_samples"),
        _positive("doc_topic_prior"), _positive("topic_word_prior"), _int("n_jobs", 1, 256),
        _int("verbose", 0, 10))},
    "gensim": {
        **{p.name: (p,) for p in (
            _int("passes", 1), _int("iterations", 1), _int("chunksize", 1, 10**9), _int("update_every", 0),
            Param("decay", "float", min_value=0.5, max_value=1.0, include_min=False),
            _positive("offset", 1e12), _int("eval_every", 0), _positive("gamma_threshold"),
            _share("minimum_probability"), _share("minimum_phi_value"),
            Param("per_word_topics", "bool"))},
        "alpha": (_positive("alpha", 1e6), _choice("alpha", "symmetric", "asymmetric", "auto")),
        "eta": (_positive("eta", 1e6), _choice("eta", "symmetric", "auto")),
    },
    "tomotopy": {p.name: (p,) for p in (_int("iterations", 1), _positive("alpha", 1e6),
                                        _positive("eta", 1e6))},
}
#: Settings whose value may be ``None`` (the engine's own default).
NULLABLE_SETTINGS = {("sklearn", "doc_topic_prior"), ("sklearn", "topic_word_prior"), ("sklearn", "n_jobs"),
                     ("gensim", "eval_every"), ("gensim", "eta")}


def check_engine_setting(engine: str, name: str, value: object) -> object:
    """One engine setting, checked against :data:`ENGINE_SETTINGS` before the engine sees it.

    Parameters
    ----------
    engine : str
        The engine's name (a key of :data:`ENGINE_SETTINGS`).
    name : str
        The setting (a key of that engine's table).
    value : object
        Its value (from JSON: a number, string, bool or ``None``).

    Returns
    -------
    object
        The value, converted by its declaration (``2.0`` for a whole number becomes ``2``).

    Raises
    ------
    ParameterError
        Naming the engine and the setting, when the value fits none of its forms.
    """
    if value is None and (engine, name) in NULLABLE_SETTINGS:
        return None
    forms = ENGINE_SETTINGS[engine][name]
    messages = []
    for form in forms:
        try:
            return form.check(value)
        except ParameterError as exc:
            messages.append(str(exc).removeprefix(f"{name} "))
    raise ParameterError(f"engine {engine!r} setting {name!r} {' or '.join(messages)}",
                         fix="correct it in the engine settings")
#: ``tealeaves report``'s heatmap topic (:func:`tealeaves.report.html.choose`; its upper bound is the
#: chosen model's K, checked there).
REPORT_TOPIC = Param("topic", "int", min_value=0,
                     help="topic of the pair heatmap (default: the model's least coherent)")
