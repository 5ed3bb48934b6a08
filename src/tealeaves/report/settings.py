"""The report's "what was fitted" section in words: engines, K, runs, settings, data, preprocessing, sources.

Hashes (data fingerprints, signatures) are kept out of the sentences and shown only in a
``<details>`` box.
"""

from __future__ import annotations

import html
import json

from tealeaves._docs import shared_doc
from tealeaves.report import hooks


def _esc(value) -> str:
    return html.escape(str(value))


def _settings_text(value) -> str:
    """An engine's settings JSON as ``key = value, ...`` (the text itself when it is not JSON)."""
    try:
        parsed = json.loads(value) if isinstance(value, str) else value
    except json.JSONDecodeError:
        return str(value)
    if isinstance(parsed, dict):
        return ", ".join(f"{k} = {v}" for k, v in sorted(parsed.items())) or "defaults"
    return str(parsed)


def _name(reference) -> str:
    """A reference or data name without its hash suffix (``training-corpus@2903abc3f50b``)."""
    return str(reference).split("@")[0]


@shared_doc
def facts(results) -> list[tuple[str, str]]:
    """The settings as ``(label, text)`` pairs, hashes left out.

    Parameters: %(report_results)s

    Returns
    -------
    list of tuple of str
        Label and plain text of each fact.
    """
    models = results.models.assign(_config=hooks.configs(results))
    sweep = results.sweep or {}
    out = []
    for engine, rows in models.groupby("engine"):
        settings = sorted({_settings_text(s) for s in rows["settings"]}) if "settings" in rows else []
        out.append((f"engine {engine}", f"{len(rows)} models, K = "
                    f"{', '.join(str(k) for k in sorted(set(int(k) for k in rows['k'])))}; settings: "
                    f"{'; '.join(settings) or 'not recorded'}"))
    per = models.groupby("_config").size()
    runs = f"{per.min()}" if per.min() == per.max() else f"{per.min()} to {per.max()}"
    seeds = sorted({int(s) for s in models["seed"].dropna()}) if "seed" in models else []
    out.append(("runs", f"{len(per)} configurations, {runs} runs each"
                + (f" (seeds {', '.join(map(str, seeds))})" if seeds else "")))
    out.append(("training data", f"vocabulary of {len(results.vocabulary):,} words"))
    if "documents_split" in models and models["documents_split"].notna().any():
        docs, words = int(models["documents_split"].max()), int(models["heldout_words"].max())
        how = ("a test corpus given apart" if sweep.get("test_given") else
               f"{sweep.get('test_fraction', 0):.0%} of the corpus held out" if "test_fraction" in sweep
               else "held-out documents")
        out.append(("held-out data", f"{how}; {docs:,} test documents completed (each split into halves, "
                    f"split seed {sweep.get('split_seed', '?')}), {words:,} held-out words"))
    if "measures" in sweep:
        out.append(("coherence", f"{', '.join(sweep['measures'])} of the top {sweep.get('top_n', '?')} words "
                    f"of each topic, counted in {_name(sweep.get('reference', 'the reference'))}"))
    if "vectors" in sweep:
        out.append(("word vectors", f"{sweep['vectors']} (name@checksum), for the word-embedding measures"))
    recipe = getattr(results, "preprocessing", None)
    out.append(("preprocessing", "not recorded in this store" if not recipe else
                ", ".join(f"{k} = {v}" for k, v in sorted(recipe.items()))))
    return out


@shared_doc
def sources(results) -> list[tuple[str, str]]:
    """Each model's source, when the store records it (``models["source"]``).

    Parameters: %(report_results)s

    Returns
    -------
    list of tuple of str
        ``(model, description)``; empty when no model has a recorded source.
    """
    if "source" not in results.models:
        return []
    out = []
    for name, source in zip(results.models["name"], results.models["source"]):
        if isinstance(source, str):
            try:
                source = json.loads(source)
            except json.JSONDecodeError:
                source = {"kind": source}
        if not isinstance(source, dict):
            continue
        text = "fitted by this sweep" if source.get("kind") == "sweep" else (
            f"{source.get('kind', 'unknown')} model"
            + (f" read from {source['path']}" if source.get("path") else "")
            + (f" ({int(source['bytes']):,} bytes)" if source.get("bytes") is not None else ""))
        out.append((str(name), text))
    return out


def _hashes(results) -> list[tuple[str, str]]:
    sweep = results.sweep or {}
    out = [(k, str(sweep[k])) for k in ("train", "test", "reference") if k in sweep]
    for name, sig in zip(results.models["name"], results.models.get("signature", [])):
        out.append((f"{name} signature", str(sig)))
    for name, source in zip(results.models["name"], results.models.get("source", [])):
        if isinstance(source, dict) and source.get("sha256"):
            out.append((f"{name} sha256", str(source["sha256"])))
    return out


@shared_doc
def settings_html(results) -> str:
    """The settings section's body: the facts as a definition list, sources, hashes in ``<details>``.

    Parameters: %(report_results)s

    Returns
    -------
    str
        HTML.
    """
    items = "".join(f"<dt>{_esc(k)}</dt><dd>{_esc(v)}</dd>" for k, v in facts(results))
    parts = [f'<dl class="facts">{items}</dl>']
    src = sources(results)
    if src and any(text != "fitted by this sweep" for _, text in src):
        parts.append("<h3>Where each model came from</h3><ul>"
                     + "".join(f"<li><code>{_esc(n)}</code>: {_esc(t)}</li>" for n, t in src) + "</ul>")
    rows = "".join(f"<tr><td>{_esc(k)}</td><td><code>{_esc(v)}</code></td></tr>" for k, v in _hashes(results))
    parts.append(f"<details><summary>Fingerprints and signatures</summary><table>{rows}</table></details>")
    return "".join(parts)
