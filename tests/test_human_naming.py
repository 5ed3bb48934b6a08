"""One vocabulary for `tealeaves human | annotate` and tealeaves.human (docs/naming.md).

Old option spellings and keyword names still work with one deprecation line each; the one `n_top`
rule holds from Python and on the command line; the study's input files are read by library
functions that Python callers reach, with the same errors (naming the parameter from Python and the
option on the command line).
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from tealeaves import _cli_args, _params
from tealeaves.errors import InputFormatError, InputNotFoundError, ParameterError
from tealeaves.human.inputs import load_doc_topic, load_documents, load_multilingual
from tealeaves.human.study import N_TOP, Study, build_study
from tealeaves.human.survey import describe_study, import_survey
from tealeaves.human.tables import load_tables
from tealeaves.models.base import FixedTopicModel


def model(n_words: int = 80) -> FixedTopicModel:
    rng = np.random.default_rng(0)
    phi = rng.dirichlet(np.full(n_words, 0.05), size=6)
    return FixedTopicModel(phi, [f"w{i}" for i in range(n_words)])


@pytest.fixture
def fresh_warnings(monkeypatch):
    """Each deprecation is announced once per process: forget the ones already shown."""
    monkeypatch.setattr(_cli_args, "_WARNED", set())
    monkeypatch.setattr(_params, "_WARNED", set())


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    """A model, a study, its judgments, scores and a measures table."""
    root = tmp_path_factory.mktemp("human_naming")
    m = model()
    m.save(root / "model.npz")
    study = build_study(m, tasks=["rating"], n_checks=0, seed=0)
    study.save(root / "study.json")
    lines = ["item_id,annotator,response"] + [
        f"{i['id']},{a},{(k + len(a)) % 3}" for k, i in enumerate(study.items) for a in ("ann", "bob", "cat")
    ]
    (root / "results.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (root / "m.csv").write_text(
        "topic,npmi,umass\n" + "".join(f"{k},{k / 10},{-k / (k + 3)}\n" for k in range(6)), encoding="utf-8"
    )
    return root


def _warnings(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("tealeaves: warning: ")]


# -- old option spellings --
def test_out_is_a_deprecated_alias_of_output_everywhere(root, tmp_path, run_cli, fresh_warnings):
    for argv in (
        ["human", "build-study", root / "model.npz", "--tasks", "rating", "--out"],
        ["annotate", "build", root / "model.npz", "--tasks", "rating", "--out"],
        ["human", "export-items", root / "study.json", "--out"],
        ["human", "score", root / "results.csv", "--study", root / "study.json", "--out"],
        ["human", "describe-study", "--topics", root / "topics.json", "--out"],
    ):
        (root / "topics.json").write_text('{"a": ["x", "y"]}', encoding="utf-8")
        _cli_args._WARNED.clear()
        suffix = ".csv" if argv[1] == "export-items" else ".json"
        old = run_cli([*argv, tmp_path / f"old{suffix}"])
        assert old.code == 0, old.err
        assert _warnings(old.err) == [
            "tealeaves: warning: --out is deprecated and will be removed; use --output"
        ], old.err
        new = run_cli([*argv[:-1], "-o", tmp_path / f"new{suffix}"])
        assert new.code == 0 and not _warnings(new.err), new.err
        assert (tmp_path / f"old{suffix}").read_bytes() == (tmp_path / f"new{suffix}").read_bytes()


def test_out_alias_of_a_required_output(tmp_path, run_cli, fresh_warnings, cli_error):
    """Given only by its old spelling, a required -o/--output is not reported missing."""
    (tmp_path / "topics.json").write_text('{"a": ["x", "y"]}', encoding="utf-8")
    res = run_cli(
        ["human", "describe-study", "--topics", tmp_path / "topics.json", "--out", tmp_path / "s.json"]
    )
    assert res.code == 0 and (tmp_path / "s.json").is_file(), res.err
    cli_error(["human", "describe-study", "--topics", tmp_path / "topics.json"], "-o/--output is required", 2)


@pytest.mark.parametrize(
    "command, extra",
    [
        ("correlate", ["--measure", "npmi", "--n-boot", "20"]),
        ("compare", ["--measure", "npmi", "--measure", "umass", "--n-boot", "20"]),
    ],
)
def test_measures_file_is_a_deprecated_alias_of_measure_scores(root, run_cli, fresh_warnings, command, extra):
    (root / "scores.json").unlink(missing_ok=True)
    assert (
        run_cli(
            [
                "human",
                "score",
                root / "results.csv",
                "--study",
                root / "study.json",
                "-o",
                root / "scores.json",
            ]
        ).code
        == 0
    )
    base = ["human", command, root / "scores.json", *extra, "--format", "json"]
    old = run_cli([*base, "--measures", root / "m.csv"])
    assert old.code == 0, old.err
    assert _warnings(old.err) == [
        "tealeaves: warning: --measures is deprecated and will be removed; use --measure-scores"
    ]
    new = run_cli([*base, "--measure-scores", root / "m.csv"])
    assert new.code == 0 and not _warnings(new.err) and new.out == old.out


def test_checks_is_a_deprecated_alias_of_n_checks(root, tmp_path, run_cli, fresh_warnings):
    base = ["human", "build-study", root / "model.npz", "--tasks", "rating"]
    old = run_cli([*base, "--checks", "1", "-o", tmp_path / "old.json"])
    assert old.code == 0, old.err
    assert _warnings(old.err) == [
        "tealeaves: warning: --checks is deprecated and will be removed; use --n-checks"
    ]
    assert run_cli([*base, "--n-checks", "1", "-o", tmp_path / "new.json"]).code == 0
    assert Study.load(tmp_path / "old.json").items == Study.load(tmp_path / "new.json").items
    assert sum(bool(i.get("check")) for i in Study.load(tmp_path / "new.json").items) == 1


# -- old keyword names --
def _topic_intrusion_inputs():
    rng = np.random.default_rng(1)
    theta = rng.dirichlet(np.full(6, 0.5), size=5) + 1e-3
    theta /= theta.sum(axis=1, keepdims=True)
    records = [{"title": f"T{d}", "text": f"text {d} " * 30, "id": f"d{d}"} for d in range(5)]
    return theta, records


def test_documents_as_row_numbers_is_the_old_document_ids(fresh_warnings):
    theta, records = _topic_intrusion_inputs()
    kw = dict(tasks=["topic_intrusion"], doc_topic=theta, documents=records, n_checks=0, seed=2)
    new = build_study(model(), document_ids=[1, 3], **kw)
    old_kw = {
        **kw,
        "titles": [r["title"] for r in records],
        "texts": [r["text"] for r in records],
        "doc_ids": [r["id"] for r in records],
    }
    del old_kw["documents"]
    with pytest.warns(FutureWarning) as caught:
        old = build_study(model(), documents=np.array([1, 3]), **old_kw)
    assert [str(w.message) for w in caught] == [
        "build_study(): 'documents' is deprecated and will be removed; use 'document_ids'"
    ]
    assert old.items == new.items and [i["id"] for i in new.items] == ["ti-1", "ti-3"]
    with pytest.raises(ParameterError, match="both 'documents'"):
        build_study(model(), documents=[1], document_ids=[1], **{k: v for k, v in old_kw.items()})


def test_sep_is_the_old_key_sep(fresh_warnings):
    with pytest.warns(FutureWarning, match="'sep' is deprecated .* use 'key_sep'"):
        old = describe_study({"a": ["x", "y"]}, sep="|")
    assert old.items == describe_study({"a": ["x", "y"]}, key_sep="|").items
    import pandas as pd

    frame = pd.DataFrame({"topic": ["a", "b"], "who": ["x", "x"], "r": ["1", "2"]})
    kw = dict(item=["topic"], task="rating", annotator="who", response="r", scale=(1, 3))
    with pytest.warns(FutureWarning, match="use 'key_sep'"):
        long_old, _, _ = import_survey(frame, sep="|", **kw)
    long_new, _, _ = import_survey(frame, key_sep="|", **kw)
    assert long_old.equals(long_new) and list(long_new["item_id"]) == ["rating|a", "rating|b"]


# -- one n_top rule --
@pytest.mark.parametrize("n_top", [1, 51])
def test_n_top_rule_is_one_in_python_and_on_the_command_line(n_top, root, tmp_path, cli_error):
    rule = "n_top must be a whole number >= 2 and <= 50"
    with pytest.raises(ParameterError, match=rule) as info:
        build_study(model(200), n_top=n_top)
    assert info.value.param == "n_top" and str(info.value) == str(_check(N_TOP, n_top))
    cli_error(
        ["human", "build-study", root / "model.npz", "--n-top", str(n_top), "-o", tmp_path / "s.json"],
        "--" + rule.replace("n_top", "n-top"),
        2,
    )


def _check(param, value):
    with pytest.raises(ParameterError) as info:
        param.check(value)
    return info.value


def test_n_top_bounds_are_accepted(root, tmp_path, run_cli):
    for n_top in (2, 50):
        study = build_study(model(400), tasks=["word_intrusion"], n_top=n_top, n_checks=0)
        assert all(len(i["options"]) == n_top + 1 for i in study.items)
    res = run_cli(
        [
            "human",
            "build-study",
            root / "model.npz",
            "--n-top",
            "2",
            "--tasks",
            "word_intrusion",
            "-o",
            tmp_path / "s.json",
        ]
    )
    assert res.code == 0, res.err


# -- the study's inputs, from Python --
def test_build_study_reads_the_input_files_as_the_command_line_does(root, tmp_path, run_cli):
    theta, records = _topic_intrusion_inputs()
    np.save(tmp_path / "theta.npy", theta)
    (tmp_path / "docs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    ml = {
        "en": [[f"e{k}{j}" for j in range(5)] for k in range(6)],
        "fr": [[f"f{k}{j}" for j in range(5)] for k in range(6)],
    }
    (tmp_path / "ml.json").write_text(json.dumps(ml), encoding="utf-8")
    tasks = "topic_intrusion,multilingual_rating"
    res = run_cli(
        [
            "human",
            "build-study",
            root / "model.npz",
            "--tasks",
            tasks,
            "--doc-topic",
            tmp_path / "theta.npy",
            "--documents",
            tmp_path / "docs.jsonl",
            "--multilingual",
            tmp_path / "ml.json",
            "--seed",
            "4",
            "-o",
            tmp_path / "cli.json",
        ]
    )
    assert res.code == 0, res.err
    from tealeaves.models.adapters import load_model

    kw = dict(tasks=tasks.split(","), seed=4)
    from_paths = build_study(
        load_model(root / "model.npz"),
        doc_topic=str(tmp_path / "theta.npy"),
        documents=tmp_path / "docs.jsonl",
        multilingual=tmp_path / "ml.json",
        **kw,
    )
    from_data = build_study(
        load_model(root / "model.npz"), doc_topic=theta, documents=records, multilingual=ml, **kw
    )
    assert from_paths.items == from_data.items == Study.load(tmp_path / "cli.json").items
    assert load_documents(tmp_path / "docs.jsonl", 5)["doc_ids"] == ["d0", "d1", "d2", "d3", "d4"]
    assert load_multilingual(tmp_path / "ml.json") == ml
    assert np.array_equal(load_doc_topic(tmp_path / "theta.npy"), theta)


@pytest.mark.parametrize(
    "setup, cls, fragment, param",
    [
        (
            lambda p: load_doc_topic(_write(p / "t.npy", "not numpy")),
            InputFormatError,
            "is not a .npy array",
            "doc_topic",
        ),
        (
            lambda p: load_doc_topic(_npy(p, np.ones(6))),
            InputFormatError,
            "must be a D x K array",
            "doc_topic",
        ),
        (lambda p: load_doc_topic(p / "absent.npy"), InputNotFoundError, "does not exist", "doc_topic"),
        (
            lambda p: load_documents(_write(p / "d.jsonl", '{"title": "a", "text": "b"}\n'), 2),
            InputFormatError,
            "has 1 records but `doc_topic` 2 rows",
            ("documents", "doc_topic"),
        ),
        (
            lambda p: load_documents(_write(p / "d.jsonl", '{"title": "a"}\n{oops\n')),
            InputFormatError,
            "line 2 is not JSON",
            "documents",
        ),
        (
            lambda p: load_documents([{"title": 3, "text": "b"}]),
            InputFormatError,
            "string 'title' and 'text'",
            "documents",
        ),
        (
            lambda p: load_multilingual(_write(p / "m.json", '{"en": [["a", null]]}')),
            InputFormatError,
            "one non-empty list of words",
            "multilingual",
        ),
        (
            lambda p: build_study(
                model(), tasks=["topic_intrusion"], doc_topic=_npy(p, np.full((2, 6), 1 / 6))
            ),
            ParameterError,
            "doc_topic needs `documents`",
            ("doc_topic", "documents"),
        ),
    ],
)
def test_input_errors_name_the_python_parameter(tmp_path, setup, cls, fragment, param):
    with pytest.raises(cls, match=fragment) as info:
        setup(tmp_path)
    assert "--" not in str(info.value).replace(str(tmp_path), "") and info.value.param == param


def _write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def _npy(root, array):
    np.save(root / "theta.npy", array)
    return root / "theta.npy"


def test_load_tables_reads_what_correlate_reads(root):
    (root / "scores2.json").write_text(
        json.dumps({"topics": [{"topic": str(k), "mean_rating": k % 3} for k in range(6)]}), encoding="utf-8"
    )
    tables = load_tables(root / "scores2.json", root / "m.csv", measures=["umass"])
    assert tables.name == "mean_rating" and tables.chosen == ["umass"]
    assert tables.measures["npmi"]["3"] == pytest.approx(0.3)
    with pytest.raises(ParameterError, match="key_sep must not be empty") as info:
        load_tables(root / "scores2.json", root / "m.csv", key_sep="")
    assert info.value.param == "key_sep"


# -- library errors name parameters; the command line names options --
def test_import_errors_name_parameters_in_python_and_options_on_the_command_line(tmp_path, cli_error):
    import pandas as pd

    frame = pd.DataFrame({"topic": ["a"], "who": ["x"], "r": ["1"]})
    with pytest.raises(ParameterError, match=r"^give either `scale` or `scale_map`, not both$"):
        import_survey(
            frame,
            item=["topic"],
            task="rating",
            annotator="who",
            response="r",
            scale=(1, 3),
            scale_map={"a": "1"},
        )
    with pytest.raises(Exception, match=r"no column `item` 'model'") as info:
        import_survey(
            frame, item=["topic", "model"], task="rating", annotator="who", response="r", scale=(1, 3)
        )
    assert info.value.param == "item"
    frame.to_csv(tmp_path / "r.csv", index=False)
    cli_error(
        [
            "human",
            "import",
            tmp_path / "r.csv",
            "--item",
            "topic,model",
            "--task",
            "rating",
            "--annotator",
            "who",
            "--response",
            "r",
            "--scale",
            "1-3",
            "-o",
            tmp_path / "o.csv",
        ],
        "no column --item 'model'",
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ParameterError, match=r"^kind option-index needs `index_base` 0 or 1"):
            import_survey(
                pd.DataFrame({"topic": ["a"], "who": ["x"], "r": ["1"]}),
                item=["topic"],
                task="word_intrusion",
                annotator="who",
                response="r",
                kind="option-index",
            )


def test_a_file_named_like_the_option_keeps_its_name_in_the_message(root, tmp_path, cli_error):
    np.save(tmp_path / "doc_topic.npy", np.full((2, 6), 1 / 6))
    (tmp_path / "documents.jsonl").write_text('{"title": "a", "text": "b"}\n', encoding="utf-8")
    res = cli_error(["human", "build-study", root / "model.npz", "--tasks", "topic_intrusion", "--doc-topic",
                     tmp_path / "doc_topic.npy", "--documents", tmp_path / "documents.jsonl", "-o",
                     tmp_path / "s.json"], "has 1 records but --doc-topic 2 rows")
    assert f"--documents '{tmp_path / 'documents.jsonl'}'" in res.err
