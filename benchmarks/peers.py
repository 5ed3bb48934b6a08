"""tealeaves against the peers' own code on the same real models: the parity table of docs/peers.md.

Usage::

    python benchmarks/peers.py [--venv /work/scratch/venv-tmtoolkit] [--gibbs-docs 2000]
                               [--gibbs-iter 400] [--no-octis]

1. Creates (once) a scratch virtual environment OUTSIDE the repository (default
   ``/work/scratch/venv-tmtoolkit``, ``python3 -m venv`` and ``pip install tmtoolkit gmpy2``);
   nothing is installed into the environment tealeaves runs in.
2. Fits two real models on the Reuters-21578 ModApte training stories, read through the
   project's loader (:func:`tealeaves.reproduce.reuters.load_corpora`): scikit-learn LDA with
   K=20 on all 7,769 stories (:func:`tealeaves.reproduce.reuters.fit_reuters_models`, cached)
   and tealeaves' ``GibbsLDA`` with K=20 on the first ``--gibbs-docs`` stories (it keeps a
   log-likelihood trace, which Griffiths 2004 needs).
3. Writes each model's arrays (``topic_word_``, the training documents' topic proportions
   and lengths, the trace after burn-in) to a temporary ``.npz`` and runs tmtoolkit's
   ``tmtoolkit.topicmod.evaluate`` functions on them in the scratch environment
   (``metric_arun_2010``, ``metric_cao_juan_2009``, ``metric_griffiths_2004``; tmtoolkit 0.12.0,
   the release on PyPI, has no ``metric_deveaud_2014``: that row says so).
4. Computes the same numbers with :mod:`tealeaves.comparison.kchoice` and prints one row per
   (model, measure): both values and their absolute and relative difference.

When ``benchmarks/peers_octis.py`` exists (OCTIS's measures and tmtoolkit's Mimno coherence,
another benchmark), its ``rows()`` are appended to the table (``--no-octis`` skips them); its
per-topic rows keep their own difference (the largest per topic) beside the means.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent

#: What runs inside the scratch environment: tmtoolkit's functions on the saved arrays.
PEER_SCRIPT = r"""
import json, sys
import numpy as np
from tmtoolkit.topicmod import evaluate as ev
data = np.load(sys.argv[1])
out = {"tmtoolkit": __import__("tmtoolkit").__version__}
phi = data["phi"]
out["cao_juan2009"] = float(ev.metric_cao_juan_2009(phi))
out["arun2010"] = float(ev.metric_arun_2010(phi, data["theta"], data["lengths"]))
if "logliks" in data.files:
    out["griffiths2004"] = float(ev.metric_griffiths_2004(data["logliks"]))
if hasattr(ev, "metric_deveaud_2014"):
    out["deveaud2014"] = float(ev.metric_deveaud_2014(phi, n=20))
print(json.dumps(out))
"""


def scratch_python(path: Path) -> Path:
    """The scratch environment's interpreter, creating it and installing tmtoolkit on first use.

    Parameters
    ----------
    path : Path
        The environment's folder (outside the repository).

    Returns
    -------
    Path
        Its ``bin/python``.
    """
    python = path / "bin" / "python"
    if not python.exists():
        venv.create(path, with_pip=True)
    probe = subprocess.run([python, "-c", "import tmtoolkit, gmpy2"], capture_output=True)
    if probe.returncode != 0:
        subprocess.run([python, "-m", "pip", "install", "-q", "tmtoolkit", "gmpy2"], check=True)
    return python


def run_peer(python: Path, arrays: dict) -> dict:
    """tmtoolkit's numbers for one model's arrays (run in the scratch environment).

    Parameters
    ----------
    python : Path
        The scratch interpreter.
    arrays : dict
        ``phi``, ``theta``, ``lengths`` and optionally ``logliks``.

    Returns
    -------
    dict
        Measure name -> tmtoolkit's value, and ``tmtoolkit`` (its version).
    """
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.npz"
        np.savez(path, **arrays)
        done = subprocess.run([python, "-c", PEER_SCRIPT, path], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def tealeaves_numbers(model, theta, lengths) -> dict:
    """The same measures from :mod:`tealeaves.comparison.kchoice`.

    Parameters
    ----------
    model : TopicModel
        The model.
    theta : numpy.ndarray
        Its training documents' topic proportions.
    lengths : numpy.ndarray
        Their token counts.

    Returns
    -------
    dict
        Measure name -> value.
    """
    from tealeaves.comparison import kchoice

    out = {"cao_juan2009": kchoice.cao_juan2009(model).value,
           "arun2010": kchoice.arun2010(model, theta, lengths).value,
           "deveaud2014": kchoice.deveaud2014(model, 20).value}
    if getattr(model, "log_likelihood_trace_", None) is not None:
        out["griffiths2004"] = kchoice.griffiths2004(model).value
    return out


def models(gibbs_docs: int, gibbs_iter: int) -> list[tuple[str, object, np.ndarray, np.ndarray]]:
    """``(name, model, theta, lengths)`` of the two real models (see the module docstring).

    Parameters
    ----------
    gibbs_docs : int
        Training stories for the Gibbs model.
    gibbs_iter : int
        Its Gibbs sweeps.

    Returns
    -------
    list of tuple
        The scikit-learn and the Gibbs model with their training proportions and lengths.
    """
    from tealeaves.models import GibbsLDA
    from tealeaves.reproduce.reuters import fit_reuters_models, load_corpora

    train, _ = load_corpora()
    sklearn = fit_reuters_models([20], progress=None)[20]
    small = train.subset(range(min(gibbs_docs, len(train))))
    burn_in = min(200, gibbs_iter // 2)
    gibbs = GibbsLDA(20, n_iter=gibbs_iter, optimize_burn_in=burn_in, random_state=0).fit(small)
    return [("sklearn-lda K=20, 7769 stories", sklearn, sklearn.transform(train), train.lengths),
            (f"GibbsLDA K=20, {len(small)} stories", gibbs, gibbs.doc_topic_, small.lengths)]


def octis_rows(path: Path = HERE / "peers_octis.py") -> list[dict]:
    """The rows of ``benchmarks/peers_octis.py`` (its ``rows()``) in this table's form, or none when absent.

    Its rows (``peer``, ``measure``, ``setting``, ``peer_value``, ``tealeaves_value``,
    ``difference``: the largest per-topic difference for per-topic measures, ``target``) keep
    their own difference; a row with a ``note`` only (a peer that raises) is kept as a note.

    Parameters
    ----------
    path : Path
        The OCTIS benchmark's file.

    Returns
    -------
    list of dict
        Rows with ``model``, ``measure``, ``peer``, ``peer_value``, ``tealeaves``,
        ``difference`` and ``note``.
    """
    if not path.exists():
        return []
    spec = importlib.util.spec_from_file_location("peers_octis", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = []
    for r in module.rows():
        row = {"model": "peers_octis: sklearn-lda K=20, quick fit", "measure": r["measure"],
               "peer": r["peer"]}
        if "note" in r:
            out.append({**row, "peer_value": None, "tealeaves": None, "note": str(r["note"])})
            continue
        target = r.get("target", "")
        out.append({**row, "measure": f"{r['measure']} [{r['setting']}]", "peer_value": r["peer_value"],
                    "tealeaves": r["tealeaves_value"], "difference": r["difference"],
                    "note": "" if target.startswith("<=") else "not claimed: how far the peer is"})
    return out


def print_table(rows: list[dict]) -> None:
    """One line per row: model, measure, peer, both values, absolute and relative difference, note.

    Parameters
    ----------
    rows : list of dict
        ``model``, ``measure``, ``peer`` (its name and version), ``peer_value``,
        ``tealeaves``, optionally ``difference`` (else ``|peer - tealeaves|``) and ``note``.
    """
    wide = {key: max([len(key)] + [len(str(r[key])) for r in rows]) for key in ("model", "measure", "peer")}

    def head(r: dict) -> str:
        return " ".join(f"{str(r[key]):<{wide[key]}}" for key in ("model", "measure", "peer"))

    print(f"{head({'model': 'model', 'measure': 'measure', 'peer': 'peer'})} {'peer value':>22} "
          f"{'tealeaves':>22} {'abs diff':>9} {'rel diff':>9}  note")
    for r in rows:
        peer, ours = r.get("peer_value"), r.get("tealeaves")
        if peer is None or ours is None:
            print(f"{head(r)} {'-':>22} {'-' if ours is None else repr(ours):>22} {'':>9} {'':>9}  "
                  f"{r.get('note', '')}")
            continue
        diff = r.get("difference", abs(peer - ours))
        rel = diff / abs(peer) if peer else diff
        print(f"{head(r)} {peer!r:>22} {ours!r:>22} {diff:>9.1e} {rel:>9.1e}  {r.get('note', '')}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--venv", type=Path, default=Path("/work/scratch/venv-tmtoolkit"),
                        help="scratch environment for tmtoolkit (outside the repository)")
    parser.add_argument("--gibbs-docs", type=int, default=2000, help="training stories of the Gibbs model")
    parser.add_argument("--gibbs-iter", type=int, default=400, help="Gibbs sweeps")
    parser.add_argument("--no-octis", action="store_true", help="skip benchmarks/peers_octis.py")
    parser.add_argument("--octis", type=Path, default=HERE / "peers_octis.py",
                        help="the OCTIS benchmark whose rows() to include")
    args = parser.parse_args(argv)
    python = scratch_python(args.venv)
    rows = []
    for name, model, theta, lengths in models(args.gibbs_docs, args.gibbs_iter):
        arrays = {"phi": np.asarray(model.topic_word_, dtype=np.float64), "theta": np.asarray(theta),
                  "lengths": np.asarray(lengths, dtype=np.float64)}
        if getattr(model, "log_likelihood_trace_", None) is not None:
            from tealeaves.comparison.kchoice import log_likelihood_trace

            arrays["logliks"] = log_likelihood_trace(model)[0]
        peer = run_peer(python, arrays)
        ours = tealeaves_numbers(model, theta, lengths)
        label = f"tmtoolkit {peer['tmtoolkit']}"
        for measure, value in ours.items():
            note = "" if measure in peer else f"tmtoolkit {peer['tmtoolkit']} has no metric_deveaud_2014"
            rows.append({"model": name, "measure": measure, "peer": label, "peer_value": peer.get(measure),
                         "tealeaves": value, "note": note})
    if not args.no_octis:
        rows += octis_rows(args.octis)
    print_table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
