"""A language model as annotator against people: Hoyle et al. (2021)'s topics and human judgments.

Usage::

    python benchmarks/llm_vs_people.py --endpoint URL --model NAME --hoyle DIR [--n-samples 3]
        [--temperature 1] [--n-boot 1000] [--work DIR] [-j 4] [--api-key-env OPENAI_API_KEY]
    python benchmarks/llm_vs_people.py --self-test

``DIR`` holds ``all_data.json`` as Hoyle et al. released it (``ahoho/topics``,
``data/human/all_data/all_data.json``): ``{dataset: {model: {"topics": [[word, ...], ...],
"metrics": {"ratings_scores_avg": [...], "intrusion_scores_avg": [...], "c_npmi_10_full": [...],
...}}}}``, one entry per topic.  The benchmark describes one study of every (dataset, model, topic)
(``tealeaves.human.describe_study``: topic ids ``dataset/model/index``; ratings on people's 1-3
scale over the topic's first 10 words; word intrusion over its first 5 words and one intruder,
drawn with a fixed seed among the other topics' top-10 words of the same dataset and model, not
in this topic's -- the intruders people saw are not in the release, and Stammbach et al. drew their
own the same way), asks the model with ``tealeaves.human.ask`` (the prompts of Stammbach et al.
2023), scores its answers with ``tealeaves.human.score`` like people's, and prints per dataset and
topic model, as Stammbach et al.'s tables do, the Spearman correlation over topics of

* the model's mean rating with people's mean rating, and NPMI's (``c_npmi_10_full``) with it;
* the model's intrusion accuracy (model precision over samples) with people's, and NPMI's,

each with a bootstrap interval over topics (``tealeaves.human.correlate``).

This cannot run on the development machines (no endpoint, no data).  ``--self-test`` runs the whole
path end to end against the tests' local chat-completions server (``tests/conftest.py``'s
``ChatServer``) on a tiny synthetic input in Hoyle et al.'s layout, where the server answers by a
rule (rating = the share of the words from the topic's main theme; intruder = the word of the rarest
theme), and checks the printed correlations of the model's ratings against a recomputation of the
rule with scipy.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
N_RATED, N_SHOWN = 10, 5


def read_hoyle(folder: Path) -> dict:
    """``all_data.json`` of Hoyle et al. (2021), as released."""
    path = folder / "all_data.json"
    if not path.is_file():
        sys.exit(f"llm_vs_people: no {path} (Hoyle et al.'s data/human/all_data/all_data.json)")
    return json.loads(path.read_text(encoding="utf-8"))


def describe(data: dict, seed: int = 0):
    """The study of every topic (ratings and word intrusion) and the people's and NPMI's scores by topic."""
    from tealeaves.human import describe_study

    rng = random.Random(seed)
    topics, intruders, people, npmi = {}, {}, {"rating": {}, "intrusion": {}}, {}
    for dataset, models in data.items():
        for model, entry in models.items():
            metrics = entry["metrics"]
            lists = [[str(w) for w in t] for t in entry["topics"]]
            for i, words in enumerate(lists):
                key = f"{dataset}/{model}/{i}"
                topics[key] = words[:N_RATED]
                pool = sorted({w for j, t in enumerate(lists) if j != i for w in t[:N_RATED]} - set(words))
                intruder = rng.choice(pool)
                options = words[:N_SHOWN] + [intruder]
                rng.shuffle(options)
                intruders[key] = {"intruder": intruder, "options": options}
                people["rating"][key] = float(metrics["ratings_scores_avg"][i])
                people["intrusion"][key] = float(metrics["intrusion_scores_avg"][i])
                if "c_npmi_10_full" in metrics:
                    npmi[key] = float(metrics["c_npmi_10_full"][i])
    study = describe_study(topics, intruders=intruders, tasks=["rating", "word_intrusion"],
                           scale=["1", "2", "3"], name="hoyle2021")
    return study, people, npmi


def correlations(study, store: Path, people: dict, npmi: dict, n_boot: int, seed: int) -> list[dict]:
    """Per (dataset, model) and task: Spearman of the model's and NPMI's scores with people's, with CIs."""
    from tealeaves.human import correlate, read_results, score

    report = score(read_results(store, study), study)
    llm = {task: {t["topic"]: t[name] for t in report["topics"] if name in t}
           for task, name in (("rating", "mean_rating"), ("intrusion", "model_precision"))}
    groups = sorted({k.rsplit("/", 1)[0] for k in people["rating"]})
    rows = []
    for group in groups:
        for task in ("rating", "intrusion"):
            human = {k: v for k, v in people[task].items() if k.rsplit("/", 1)[0] == group}
            row = {"group": group, "task": task, "n": len(human)}
            for name, scores in (("llm", llm[task]), ("npmi", npmi)):
                mine = {k: v for k, v in scores.items() if k in human}
                if len(mine) < 3:
                    row[name] = None
                    continue
                out = correlate(human, mine, methods=("spearman",), n_boot=n_boot, seed=seed,
                                human_name=f"people_{task}", measure_name=name)
                row[name] = {"rho": out["spearman"]["estimate"], **out["spearman"]["ci"],
                             "n": out["n_topics"]}
            rows.append(row)
    return rows


def _cell(value: dict | None) -> str:
    """``rho [low, high]``; ``*`` when the estimate lies outside its percentile interval (few topics,
    tied scores: docs/human.md, "A percentile interval need not contain the estimate")."""
    if value is None:
        return "n/a"
    outside = "*" if not value["low"] <= value["rho"] <= value["high"] else ""
    return f"{value['rho']:+.3f} [{value['low']:+.3f}, {value['high']:+.3f}]{outside}"


def print_table(rows: list[dict], signature: str) -> None:
    """The Markdown table: per dataset/model and task, the model's and NPMI's Spearman with people."""
    print("| dataset/model | task | topics | LLM vs people (Spearman, 95% CI) | NPMI vs people |")
    print("|---|---|---|---|---|")
    for r in rows:
        cells = (r["group"], r["task"], str(r["n"]), _cell(r["llm"]), _cell(r["npmi"]))
        print("| " + " | ".join(cells) + " |")
    if any(c.endswith("*") for r in rows for c in (_cell(r["llm"]), _cell(r["npmi"]))):
        print("* the estimate lies outside its percentile interval: too few topics with tied scores "
              "(docs/human.md)")
    print(signature)


def run(data: dict, *, endpoint: str, model: str, work: Path, n_samples: int, temperature: float,
        n_boot: int, seed: int, n_jobs: int, api_key_env: str | None) -> list[dict]:
    """The protocol: describe the study, ask the model, score, correlate; print the table."""
    from tealeaves.human import ask

    study, people, npmi = describe(data, seed)
    store = work / "llm_judgments.sqlite"
    report = ask(study, endpoint=endpoint, model=model, output=store, n_samples=n_samples,
                 temperature=temperature, n_jobs=n_jobs, api_key_env=api_key_env)
    c = report.counts
    print(f"{c['requests']} questions: {c['asked']} asked, {c['cached']} cached, {c['unusable']} unusable, "
          f"{c['failed']} failed, {c['not_asked']} not asked; judgments in {store}")
    rows = correlations(study, store, people, npmi, n_boot, seed)
    print_table(rows, str(report.signature))
    return rows


# ------------------------------------------------------------------ the self-test
THEMES = ("river", "music", "stock", "chess", "cloud", "bread")


def _theme(word: str) -> str:
    return word.rstrip("0123456789")


def synthetic(seed: int = 0) -> dict:
    """A tiny input in Hoyle et al.'s layout: 2 datasets x 2 models x 8 topics of themed words."""
    rng = random.Random(seed)
    data: dict = {}
    for dataset in ("wikitext", "nytimes"):
        for model in ("mallet", "etm"):
            topics, ratings, intrusion, npmi = [], [], [], []
            for i in range(8):
                main, others = THEMES[i % len(THEMES)], [t for t in THEMES if t != THEMES[i % len(THEMES)]]
                m = 10 - i  # words of the main theme: 10 (coherent) down to 3
                words = [f"{main}{j}" for j in range(m)]
                words += [f"{rng.choice(others)}{10 + j}" for j in range(10 - m)]
                topics.append(words)
                ratings.append(1 + 2 * m / 10 + rng.gauss(0, 0.2))
                intrusion.append(min(1.0, max(0.0, m / 10 + rng.gauss(0, 0.15))))
                npmi.append(m / 10 - 0.5 + rng.gauss(0, 0.2))
            data.setdefault(dataset, {})[model] = {"topics": topics, "metrics": {
                "ratings_scores_avg": ratings, "intrusion_scores_avg": intrusion, "c_npmi_10_full": npmi}}
    return data


def rule_rating(words: list[str]) -> str:
    """The self-test server's rating 1-3: the share of the words from the most frequent theme."""
    themes = [_theme(w) for w in words]
    share = max(themes.count(t) for t in set(themes)) / len(themes)
    return "3" if share >= 0.8 else "2" if share >= 0.5 else "1"


def responder(body: dict) -> str:
    """Rule answers to the prompts of ``tealeaves.human.llm.prompts``."""
    import re

    from tealeaves.human.llm.prompts import PROMPTS

    system, user = body["messages"][0]["content"], body["messages"][1]["content"]
    if system == PROMPTS["stammbach2023-intrusion-v1"].system:
        words = re.findall(r'"([^"]+)"', user)
        themes = [_theme(w) for w in words]
        return min(words, key=lambda w: (themes.count(_theme(w)), w))
    return rule_rating(user.split(", "))


def self_test() -> int:
    """Run the protocol against the tests' local server on :func:`synthetic` and check the rating column."""
    from scipy.stats import spearmanr

    sys.path.insert(0, str(REPO / "tests"))
    from conftest import ChatServer

    data = synthetic()
    with tempfile.TemporaryDirectory() as tmp, ChatServer(responder) as server:
        rows = run(data, endpoint=server.url, model="rule", work=Path(tmp), n_samples=2, temperature=0.0,
                   n_boot=200, seed=0, n_jobs=2, api_key_env=None)
        asked = len(server.requests)
    assert asked == 2 * 2 * 32, asked  # 32 topics x 2 tasks x 2 samples
    for row in (r for r in rows if r["task"] == "rating"):
        dataset, model = row["group"].split("/")
        entry = data[dataset][model]
        llm = [float(rule_rating(t[:N_RATED])) for t in entry["topics"]]
        expected = spearmanr(llm, entry["metrics"]["ratings_scores_avg"]).statistic
        npmi = spearmanr(entry["metrics"]["c_npmi_10_full"], entry["metrics"]["ratings_scores_avg"]).statistic
        assert np.isclose(row["llm"]["rho"], expected, atol=1e-12), (row, expected)
        assert np.isclose(row["npmi"]["rho"], npmi, atol=1e-12), (row, npmi)
        assert row["llm"]["low"] <= row["llm"]["rho"] <= row["llm"]["high"]
    print(f"self-test passed: {asked} requests to the local server; the LLM and NPMI rating correlations "
          "equal scipy's recomputation")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Parse the options and run the benchmark (or its self-test)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--endpoint", help="base URL of an OpenAI-compatible API, e.g. http://127.0.0.1:8080/v1")
    p.add_argument("--model", help="the model's name as the endpoint knows it")
    p.add_argument("--hoyle", type=Path, help="folder holding Hoyle et al.'s all_data.json")
    p.add_argument("--work", type=Path, default=Path("llm_vs_people"),
                   help="folder for the judgment database and the request cache (reruns reuse them)")
    p.add_argument("--n-samples", type=int, default=3, help="answers per item (Stammbach et al.: 3 ratings)")
    p.add_argument("--temperature", type=float, default=1.0, help="sampling temperature (default 1)")
    p.add_argument("--n-boot", type=int, default=1000, help="bootstrap resamples of the intervals")
    p.add_argument("--seed", type=int, default=0, help="seed of the intruders and the bootstrap")
    p.add_argument("-j", "--n-jobs", type=int, default=4, help="requests in flight at once")
    p.add_argument("--api-key-env", default="OPENAI_API_KEY", help="environment variable holding the API key")
    p.add_argument("--self-test", action="store_true",
                   help="run against a local fake server on synthetic data")
    args = p.parse_args(argv)
    if args.self_test:
        return self_test()
    if not (args.endpoint and args.model and args.hoyle):
        p.error("--endpoint, --model and --hoyle are required (or --self-test)")
    args.work.mkdir(parents=True, exist_ok=True)
    run(read_hoyle(args.hoyle), endpoint=args.endpoint, model=args.model, work=args.work,
        n_samples=args.n_samples, temperature=args.temperature, n_boot=args.n_boot, seed=args.seed,
        n_jobs=args.n_jobs, api_key_env=args.api_key_env)
    return 0


if __name__ == "__main__":
    sys.exit(main())
