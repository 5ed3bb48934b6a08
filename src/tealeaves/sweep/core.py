"""The sweep: fit every (K, seed) on a training split, then score each model as evaluate does, store it.

>>> from tealeaves.sweep import sweep, load_results
>>> sweep(corpus, [5, 10, 20], seeds=3, engine="sklearn", output="results.sqlite")  # doctest: +SKIP
>>> load_results("results.sqlite").models  # doctest: +SKIP

The training split: with ``test`` given, ``corpus`` is the training corpus and ``test``
the test documents; otherwise :func:`~tealeaves.sweep.evaluation.split_corpus` holds out a seeded share
``test_fraction`` of the documents.  Seeds are ``0 .. seeds-1`` (or the list given).
Models the store already holds are not refitted (a killed sweep resumes).  Fits run in
this process (``n_jobs=1``), in ``n_jobs`` local processes, or on the Dask cluster at
``scheduler``; every fit is seeded, so the stored results are the same either way.  Each
fitted model is scored by :func:`tealeaves.sweep.evaluation.score_row`, the scoring path of
:func:`tealeaves.sweep.evaluation.evaluate` too.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Sequence

from tealeaves._interrupt import workers_ignore_sigint
from tealeaves._params import renamed_parameters
from tealeaves.corpus import Corpus
from tealeaves.errors import ParameterError
from tealeaves.index.dask import check_scheduler
from tealeaves.store.writer import store_run
from tealeaves.sweep.engines import Engine, check_available, get_engine
from tealeaves.sweep.evaluation import (  # noqa: F401 (re-exported)
    evaluation_data,
    score_row,
    split_corpus,
    vectors_description,
    word_vectors,
)
from tealeaves.sweep.measures import SweepData
from tealeaves.sweep.params import N_JOBS, N_TOP, check_n_components, check_seeds
from tealeaves.sweep.progress import SweepProgress
from tealeaves.sweep.store import finished, model_name, write_model
from tealeaves.validation import check_unique

DEFAULT_MEASURES = ("npmi",)


def _check_corpus(train: Corpus, n_components: list[int]) -> None:
    train.require_nonempty("training corpus")
    if len(train) < max(n_components):
        raise ParameterError(f"the training corpus has {len(train)} documents, fewer than "
                             f"K={max(n_components)}",
                             fix="use fewer topics or more documents")


def _fit_and_score(task: tuple, data: SweepData) -> dict:
    """Fit one (engine, K, seed) model and score it: a pure function of its arguments."""
    engine, k, seed, settings = task
    start = time.perf_counter()
    model = engine.fit(data.train, k, seed, settings)
    fit_seconds = time.perf_counter() - start
    return score_row(model, data, {"name": model_name(engine.name, k, seed), "k": k, "seed": seed,
                                   "engine": engine.name, "settings": settings, "fit_seconds": fit_seconds})


_WORKER_DATA: SweepData | None = None


def _init_worker(data: SweepData) -> None:
    import signal

    # Ctrl-C reaches the whole process group; it is the main process's to handle: it stops the workers
    # (_stop_workers), so a worker inside a long compiled kernel does not fit on for minutes, orphaned.
    # The worker started with SIGINT blocked (_run_tasks), so not even its start-up can be interrupted.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    global _WORKER_DATA
    _WORKER_DATA = data


def _stop_workers(pool) -> None:
    """End a process pool's workers at once (their fits are lost; they write nothing) and shut it down."""
    for process in list((getattr(pool, "_processes", None) or {}).values()):  # CPython's pid -> Process
        process.kill()
    pool.shutdown(wait=True, cancel_futures=True)


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
        pool = None
        try:
            with workers_ignore_sigint():
                pool = ProcessPoolExecutor(min(n_jobs, len(tasks)), mp_context=context,
                                           initializer=_init_worker, initargs=(data,))
                futures = [pool.submit(_run_in_worker, t) for t in tasks]  # spawns the workers
            for future in as_completed(futures):
                yield future.result()
        except BaseException:  # Ctrl-C, an error, or the consumer stopping (GeneratorExit): no orphan
            if pool is not None:
                _stop_workers(pool)
            raise
        pool.shutdown()






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
          vectors=None, n_jobs: int = 1, scheduler: str | None = None,
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
    vectors : WordVectors, str, path or None
        Word vectors for the word-embedding measures
        (:func:`tealeaves.sweep.evaluation.word_vectors`: a word2vec or GloVe text file is read
        for the training vocabulary only); None stores those measures as unavailable, with the reason.
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
    data, description = evaluation_data(corpus, test, test_fraction, split_seed, reference, measures, n_top,
                                        "sweep", check_train=lambda train: _check_corpus(train, n_components))
    data.vectors = word_vectors(vectors, data.train.vocabulary)
    description.update(vectors_description(data.vectors))
    with store_run(output, description, list(data.train.vocabulary),
                   getattr(data.train, "preprocessing", None)) as conn:  # a failed new store is removed
        return _sweep_into(conn, data, engine, n_components, seeds, settings, n_jobs, scheduler, progress,
                           output)


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
    rows = _run_tasks(tasks, data, n_jobs, scheduler)
    try:
        for row in rows:
            # write_model is False when another process on the same store stored this model meanwhile
            (fitted if write_model(conn, row) else skipped).append(row["name"])
            if bar is not None:
                bar.update(row["name"])
    finally:
        rows.close()  # on Ctrl-C while storing, the workers are stopped now, not at garbage collection
    return {"output": str(output), "fitted": fitted, "skipped": skipped}
