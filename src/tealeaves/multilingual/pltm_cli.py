"""Handlers of ``tealeaves pltm fit|topics|infer`` (parsers in :mod:`tealeaves.multilingual.cli`)."""

from __future__ import annotations

import sys
import threading
import time

from tealeaves._output import dump_json, format_table
from tealeaves.errors import ParameterError


def _log(message: str, quiet: bool = False) -> None:
    if not quiet:
        print(f"tealeaves: {message}", file=sys.stderr, flush=True)


class ChainProgress:
    """Per-sweep progress of ``pltm fit``: sweeps done / total over every chain, each chain's sweeps,
    tokens/s and the ETA, drawn by :class:`tealeaves.sweep.progress.Progress`.

    An instance is the ``callback`` of :meth:`PolylingualTopicModel.fit`; chains
    in parallel threads call it at once, so it takes a lock.  It redraws at most
    every ``interval`` seconds, and always after the last sweep.
    """

    def __init__(self, n_chains: int, n_sweeps: int, stream=None, interval: float = 0.2):
        from tealeaves.sweep.progress import Progress

        self.bar = Progress(n_chains * n_sweeps, stream)
        self.chains = [0] * n_chains
        self.interval = interval
        self.last = float("-inf")
        self.lock = threading.Lock()

    def __call__(self, info) -> None:
        """Record ``info`` (a :class:`~tealeaves.models.polylingual.SweepDone`) and maybe redraw."""
        with self.lock:
            self.chains[info.chain] = info.sweep
            done = sum(self.chains)
            now = time.monotonic()
            if done < self.bar.total and now - self.last < self.interval:
                return
            self.last = now
            rate = info.n_tokens * done / max(now - self.bar.start, 1e-9)
            per_chain = ", ".join(str(n) for n in self.chains)
            self.bar.update(f"sweeps (chains {per_chain} of {info.n_sweeps}; {rate / 1e6:.2f}M tokens/s)",
                            done=done)


def _progress(args) -> ChainProgress | None:
    """Per-sweep progress on stderr when it is a terminal, unless ``--quiet``."""
    if args.quiet or not sys.stderr.isatty():
        return None
    return ChainProgress(args.n_chains, args.n_iter, sys.stderr)


def burn_in(iterations: int, given: int | None) -> int:
    """Sweeps before the first optimisation: ``given``, else 200 or half of fewer than 400 iterations."""
    if given is None:
        return min(200, iterations // 2)
    if given >= iterations:
        raise ParameterError(f"--optimize-burn-in {given} is not below --n-iter {iterations}",
                             fix="give a burn-in smaller than the number of iterations")
    return given


def fit(args) -> int:
    """Read tuples, fit PLTM (stages and, on a terminal, per-sweep progress on stderr), save the model."""
    from pathlib import Path

    from tealeaves._output import check_output_path
    from tealeaves._terminal import escape
    from tealeaves.corpus.aligned import default_preprocessor
    from tealeaves.models.polylingual import PolylingualTopicModel
    from tealeaves.multilingual._cli_common import read_aligned_args
    from tealeaves.multilingual.pltm_io import save_pltm

    out = Path(args.output)
    if out.exists() and not out.is_dir():
        from tealeaves.errors import OutputError
        raise OutputError(f"-o '{out}' exists and is not a folder", fix="give a new folder name")
    check_output_path(out / "pltm.npz" if out.is_dir() else out.parent / ".tealeaves-check", "-o")
    start = burn_in(args.n_iter, args.optimize_burn_in)
    texts = read_aligned_args(args)
    corpus = texts.to_aligned({x: default_preprocessor(x, max_df=args.max_df, min_df=args.min_df)
                               for x in texts.languages})
    sizes = ", ".join(f"{x}: {len(corpus.vocabulary(x))} words, {corpus.n_tokens(x)} tokens"
                      for x in corpus.languages)
    _log(f"read {len(texts.ids)} tuples; vocabularies {sizes}", args.quiet)  # once every input is valid
    model = PolylingualTopicModel(n_components=args.n_components, alpha=args.alpha, beta=args.beta,
                                  n_iter=args.n_iter, optimize_interval=args.optimize_interval,
                                  optimize_burn_in=start, n_chains=args.n_chains,
                                  link_fraction=args.link_fraction, random_state=args.random_state,
                                  n_jobs=args.n_jobs, n_threads=args.n_threads)
    _log(f"sampling {args.n_chains} chain(s) x {args.n_iter} sweeps, K={args.n_components} ...", args.quiet)
    t0 = time.perf_counter()
    model.fit(corpus, callback=_progress(args))
    lls = ", ".join(f"{x:.1f}" for x in model.chain_log_likelihoods_)
    _log(f"done in {time.perf_counter() - t0:.1f} s; final log-likelihood per chain: {lls}; kept chain "
         f"{model.best_chain_}", args.quiet)
    meta = {"description": model.description(), "input": texts.metadata.get("source", "parallel files"),
            "n_tuples": len(texts.ids)}
    save_pltm(model, out, corpus.preprocessors, meta)
    files = ", ".join(f"{x}.npz" for x in model.languages_)
    print(f"wrote {escape(str(out))}: pltm.npz, {files}, topics.json")
    return 0


def topics(args) -> int:
    """Per-language top words, as topics JSON (``-o`` / ``--format json``) or a text table."""
    from tealeaves._io import write_text
    from tealeaves._terminal import escape
    from tealeaves.multilingual.pltm_io import load_pltm

    model, _ = load_pltm(args.model)
    words = {x: model.top_words(x, args.n_top) for x in model.languages_}
    if args.output:
        write_text(args.output, dump_json(words) + "\n", what="topics file")
    if args.format == "json":
        print(dump_json(words))
    elif not args.output:
        for k in range(len(model.alpha_)):
            for x in model.languages_:
                print(f"{k}\t{x}\t{escape(' '.join(words[x][k]))}")
    else:
        print(f"wrote {escape(args.output)}")
    return 0


def infer(args) -> int:
    """Fold in held-out tuples encoded with the model's preprocessing; theta to ``-o`` or stdout."""
    import numpy as np

    from tealeaves._io import atomic_write
    from tealeaves.multilingual._cli_common import read_aligned_args
    from tealeaves.multilingual.pltm_io import load_pltm

    if args.burn_in >= args.n_iter:
        raise ParameterError(f"--burn-in {args.burn_in} is not below --n-iter {args.n_iter}",
                             fix="give a burn-in smaller than the number of iterations")
    model, preprocessors = load_pltm(args.model)
    texts = read_aligned_args(args, aligned=False)  # held-out documents may be in one language
    extra = [x for x in texts.languages if x not in model.languages_]
    if extra:
        from tealeaves.corpus.aligned import LanguageMismatchError
        raise LanguageMismatchError(f"the tuples have languages {extra} that the model lacks "
                                    f"(it has {model.languages_})", fix="drop them with --languages")
    corpus = texts.to_aligned({x: preprocessors[x] for x in texts.languages}, fit=False)
    theta = model.transform(corpus, n_iter=args.n_iter, burn_in=args.burn_in, random_state=args.random_state)
    if args.output:
        with atomic_write(args.output, mode="wb", encoding=None, what="theta file") as fh:
            np.save(fh, theta)
    if args.format == "json":
        print(dump_json({"ids": list(texts.ids), "theta": theta.tolist()}))
    elif args.output:
        print(f"wrote theta of {len(theta)} tuples x {theta.shape[1]} topics to {args.output}")
    else:
        rows = [{"id": i, "top_topic": int(np.argmax(t)), "p": float(np.max(t))}
                for i, t in zip(texts.ids, theta, strict=True)]
        print(format_table(rows))
    return 0
