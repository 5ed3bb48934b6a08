"""The sweep: fit every (K, seed) on a training split, score each model, store it.

>>> from tealeaves.sweep import sweep, load_results
>>> sweep(corpus, [5, 10, 20], seeds=3, engine="sklearn", output="results.sqlite")  # doctest: +SKIP
>>> load_results("results.sqlite").models  # doctest: +SKIP

The training split: with ``test`` given, ``corpus`` is the training corpus and ``test``
the test documents; otherwise :func:`split_corpus` holds out a seeded share
``test_fraction`` of the documents.  Seeds are ``0 .. seeds-1`` (or the list given).
Models the store already holds are not refitted (a killed sweep resumes).  Fits run in
this process (``n_jobs=1``), in ``n_jobs`` local processes, or on the Dask cluster at
``scheduler``; every fit is seeded, so the stored results are the same either way.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Sequence

import numpy as np

from tealeaves._params import renamed_parameters
from tealeaves.corpus import Corpus
from tealeaves.errors import EmptyInputError, ParameterError
from tealeaves.index.dask import check_scheduler
from tealeaves.sweep.engines import Engine, check_available, get_engine
from tealeaves.sweep.measures import SweepData, corpus_hash, score_model
from tealeaves.sweep.params import N_JOBS, N_TOP, check_n_components, check_seeds
from tealeaves.sweep.progress import SweepProgress
from tealeaves.sweep.store import finished, model_name, open_store, write_model
from tealeaves.validation import check_float, check_seed, check_unique

DEFAULT_MEASURES = ("npmi",)


def split_corpus(corpus: Corpus, test_fraction: float = 0.2, seed: int = 0) -> tuple[Corpus, Corpus]:
    """``(train, test)``: ``round(test_fraction * D)`` documents drawn by ``default_rng(seed).permutation``.

    Both keep the corpus's order and vocabulary; each must hold at least one document.

    Parameters
    ----------
    corpus : Corpus
        The documents to split.
    test_fraction : float, default 0.2
        Share of documents held out, strictly between 0 and 1.
    seed : int, default 0
        Seed of the draw.

    Returns
    -------
    tuple of Corpus
        ``(train, test)``.

    Raises
    ------
    ParameterError
        When the fraction or seed is invalid, or one side would be empty.
    """
    fraction = check_float(test_fraction, "test fraction", min_value=0.0, max_value=1.0,
                            include_min=False, include_max=False)
    seed = check_seed(seed, "split seed")
    n_test = int(round(fraction * len(corpus)))
    if n_test < 1 or n_test >= len(corpus):
        raise ParameterError(f"a test fraction of {fraction:g} of {len(corpus)} documents leaves "
                             f"{n_test} test and {len(corpus) - n_test} training documents",
                             fix="choose a test fraction that leaves at least one document on each side")
    chosen = np.sort(np.random.default_rng(seed).permutation(len(corpus))[:n_test])
    rest = np.setdiff1d(np.arange(len(corpus)), chosen)
    return corpus.subset(rest), corpus.subset(chosen)


def _check_corpus(train: Corpus, n_components: list[int]) -> None:
    train.require_nonempty("training corpus")
    if len(train) < max(n_components):
        raise ParameterError(f"the training corpus has {len(train)} documents, fewer than "
                             f"K={max(n_components)}",
                             fix="use fewer topics or more documents")


def _reference(reference, train: Corpus):
    from tealeaves.coherence import build_index
    from tealeaves.coherence.measure import as_reference

    if reference is None:
        return build_index(train, name="training-corpus")
    return as_reference(reference)


def _description(data: SweepData, test_given: bool, split: dict) -> dict:
    """What all models of one store share (stored in ``meta.sweep``; see :mod:`tealeaves.sweep.store`)."""
    ref = data.reference
    return {"train": corpus_hash(data.train), "test": corpus_hash(data.test), "test_given": test_given,
            **split, "measures": list(data.measures), "top_n": data.n_top,
            "reference": f"{ref.name}@{ref.short_checksum}"}


def _fit_and_score(task: tuple, data: SweepData) -> dict:
    """Fit one (engine, K, seed) model and score it: a pure function of its arguments."""
    engine, k, seed, settings = task
    start = time.perf_counter()
    model = engine.fit(data.train, k, seed, settings)
    fit_seconds = time.perf_counter() - start
    row = score_model(model, data)
    return {**row, "name": model_name(engine.name, k, seed), "k": k, "seed": seed, "engine": engine.name,
            "settings": settings, "description": str(model.description()) if hasattr(model, "description")
            else type(model).__name__, "fit_seconds": fit_seconds}


_WORKER_DATA: SweepData | None = None


def _init_worker(data: SweepData) -> None:
    global _WORKER_DATA
    _WORKER_DATA = data


def _run_in_worker(task: tuple) -> dict:
    return _fit_and_score(task, _WORKER_DATA)


def _run_tasks(tasks: list[tuple], data: SweepData, n_jobs: int, scheduler: str | None):
    """Yield the scored rows of ``tasks`` as they finish (in this process, local processes or Dask)."""
    if scheduler is not None:
        yield from _run_dask(tasks, data, scheduler)
    elif n_jobs == 1 or len(tasks) <= 1:
        for task in tasks:
            yield _fit_and_score(task, data)
    else:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor, as_completed

        context = multiprocessing.get_context("spawn")  # no forked numba/BLAS threads
        with ProcessPoolExecutor(min(n_jobs, len(tasks)), mp_context=context, initializer=_init_worker,
                                 initargs=(data,)) as pool:
            for future in as_completed([pool.submit(_run_in_worker, t) for t in tasks]):
                yield future.result()


def _run_dask(tasks: list[tuple], data: SweepData, scheduler: str):
    """Run on an existing Dask cluster: the data is scattered once to every worker."""
    from tealeaves._optional import optional_import

    optional_import("distributed", "dask", "fitting on a Dask cluster (scheduler)")
    from distributed import Client, as_completed

    try:
        client = Client(scheduler, timeout="5s", set_as_default=False)
    except (OSError, TimeoutError) as exc:
        raise ParameterError(f"cannot reach the Dask scheduler at {scheduler!r} ({exc})",
                             fix="give the address of a running scheduler, e.g. tcp://127.0.0.1:8786"
                             ) from None
    try:
        with client.as_current():
            shared = client.scatter(data, broadcast=True)
            futures = [client.submit(_fit_and_score, t, shared, pure=False) for t in tasks]
            for future in as_completed(futures):
                yield future.result()
    finally:
        client.close()


@renamed_parameters({"ks": "n_components", "top_n": "n_top", "workers": "n_jobs"})
def sweep(corpus: Corpus, n_components: Iterable[int], seeds: int | Sequence[int] = 3,
          engine: str | Engine = "sklearn", output: str | os.PathLike = "results.sqlite", *,
          test: Corpus | None = None, test_fraction: float = 0.2, split_seed: int = 0, reference=None,
          measures: Sequence[str] = DEFAULT_MEASURES, n_top: int = 10, settings: dict | None = None,
          n_jobs: int = 1, scheduler: str | None = None,
          progress: SweepProgress | bool | None = True) -> dict:
    """Fit, score and store every (K, seed) model (see the module docstring); return what was done.

    Parameters
    ----------
    corpus : Corpus
        The training corpus (or the whole corpus, split, when ``test`` is not given).
    n_components : iterable of int
        Numbers of topics, each >= 2 and given once (old name ``ks``).
    seeds : int or sequence of int
        ``n``: seeds ``0 .. n-1`` (1 to 10000); or the seeds themselves.
    engine : str or Engine
        Fitting engine (:data:`tealeaves.sweep.ENGINES`).
    output : str or path
        The results store (SQLite), created or resumed.
    test : Corpus, optional
        Test documents (default: hold out ``test_fraction`` of ``corpus``).
    test_fraction : float
        Share of ``corpus`` held out when ``test`` is not given.
    split_seed : int
        Seed of the train/test split and of the held-out halves.
    reference : optional
        Coherence reference (an index, its path, a Corpus; default: the training corpus).
    measures : sequence of str
        Coherence measures.
    n_top : int
        Top words per topic scored for coherence (old name ``top_n``).
    settings : dict, optional
        Engine settings, merged over the engine's defaults.
    n_jobs : int
        Local worker processes, 1 to 256 (old name ``workers``).
    scheduler : str, optional
        Address of a running Dask scheduler to fit on.
    progress : SweepProgress or bool
        Progress output.

    Returns
    -------
    dict
        ``{"output", "fitted": [names], "skipped": [names]}``; the numbers are in the
        store (:func:`tealeaves.sweep.load_results`).
    """
    from tealeaves.coherence.presets import resolve

    n_components, seeds = check_n_components(n_components), check_seeds(seeds)
    engine = get_engine(engine)
    measures = tuple(check_unique([resolve(m).name for m in measures], "measures"))
    n_top, n_jobs = N_TOP.check(n_top), N_JOBS.check(n_jobs)
    scheduler = check_scheduler(scheduler)
    check_available(engine)
    settings = engine.settings(settings)
    split = {"split_seed": check_seed(split_seed, "split seed")}
    if test is None:
        split["test_fraction"] = test_fraction
        corpus, test = split_corpus(corpus, test_fraction, split_seed)
    if len(test) == 0:
        raise EmptyInputError("the test corpus has no documents", fix="give test documents")
    _check_corpus(corpus, n_components)
    data = SweepData(corpus, test, _reference(reference, corpus), measures, n_top, split["split_seed"])
    description = _description(data, "test_fraction" not in split, split)
    conn = open_store(output, description, list(corpus.vocabulary))
    try:
        return _sweep_into(conn, data, engine, n_components, seeds, settings, n_jobs, scheduler, progress,
                           output)
    finally:
        conn.close()


def _sweep_into(conn, data, engine, n_components, seeds, settings, n_jobs, scheduler, progress,
                output) -> dict:
    import json

    done = finished(conn)
    stored = dict(conn.execute("SELECT name, settings FROM models").fetchall())
    tasks, skipped = [], []
    for k in n_components:
        for seed in seeds:
            name = model_name(engine.name, k, seed)
            if name not in done:
                tasks.append((engine, k, seed, settings))
                continue
            if json.loads(stored[name]) != json.loads(json.dumps(settings)):
                raise ParameterError(f"the results store holds {name} fitted with other settings "
                                     f"({stored[name]})", fix="give another output path for these settings")
            skipped.append(name)
    bar = progress if isinstance(progress, SweepProgress) else SweepProgress(len(tasks)) if progress else None
    if bar is not None and skipped:
        bar.note(f"{len(skipped)} models already in {output}; fitting the other {len(tasks)}")
    fitted = []
    for row in _run_tasks(tasks, data, n_jobs, scheduler):
        write_model(conn, row)
        fitted.append(row["name"])
        if bar is not None:
            bar.update(row["name"])
    return {"output": str(output), "fitted": fitted, "skipped": skipped}
