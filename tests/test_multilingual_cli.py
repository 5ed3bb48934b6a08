"""A user-built aligned reference (``tealeaves index build-aligned``) against brute-force set
computations; ``cnpmi --reference PATH`` and the built-in names share one code path."""

from __future__ import annotations

import json
import math
from itertools import combinations, product

import pytest

from tealeaves.corpus.aligned import default_preprocessor

TUPLES = [
    {"id": 1, "en": "The king went to the city. The king spoke.", "sv": "Kungen gick till staden.",
     "ro": "Regele a mers in oras."},
    {"id": 2, "en": "The city was large and the people were glad.", "sv": "Staden var stor och folket glatt.",
     "ro": None},
    {"id": 3, "en": "A shepherd kept his sheep in the field.", "sv": "En herde vaktade sina får på fältet."},
    {"id": "four", "sv": "Kungen och herden talade.", "ro": "Regele si pastorul au vorbit."},
    {"id": 5, "en": "The people and the king feasted in the city.",
     "sv": "Folket och kungen festade i staden.",
     "ro": "Poporul si regele au petrecut in oras."},
    {"id": 6, "en": "Sheep grazed; the shepherd slept.", "ro": "Oile pasteau; pastorul dormea."},
]
TOPICS = {"en": [["king", "city", "people", "absentword"], ["shepherd", "sheep", "field", "king"]],
          "sv": [["kungen", "staden", "folket", "stor"], ["herde", "får", "fältet", "herden"]],
          "ro": [["regele", "oras", "poporul", "mers"], ["pastorul", "oile", "regele", "dormea"]]}


def _sets(lang):
    pre = default_preprocessor(lang, max_df=1.0)
    return [set(pre.tokenize(t[lang])) if t.get(lang) else None for t in TUPLES]


def _npmi(pab, pa, pb):
    if pa == 0 or pb == 0:
        return 0.0
    if pab == 0:
        return -1.0
    if pab == 1:
        return 1.0
    return math.log(pab / (pa * pb)) / -math.log(pab)


def brute_cnpmi(l1, l2, k):
    pairs = [(a, b) for a, b in zip(_sets(l1), _sets(l2), strict=True) if a is not None and b is not None]
    n = len(pairs)
    vals = [_npmi(sum(a in x and b in y for x, y in pairs) / n, sum(a in x for x, _ in pairs) / n,
                  sum(b in y for _, y in pairs) / n) for a, b in product(TOPICS[l1][k], TOPICS[l2][k])]
    return sum(vals) / len(vals)


def brute_npmi(lang, k):
    docs = [d for d in _sets(lang) if d is not None]
    n = len(docs)
    vals = [_npmi(sum(a in d and b in d for d in docs) / n, sum(a in d for d in docs) / n,
                  sum(b in d for d in docs) / n) for a, b in combinations(TOPICS[lang][k], 2)]
    return sum(vals) / len(vals)


@pytest.fixture
def built(tmp_path, run_cli):
    src = tmp_path / "tuples.jsonl"
    src.write_text("\n".join(json.dumps(t, ensure_ascii=False) for t in TUPLES) + "\n\n", encoding="utf-8")
    topics = tmp_path / "topics.json"
    topics.write_text(json.dumps(TOPICS, ensure_ascii=False), encoding="utf-8")
    ref = tmp_path / "myref"
    r = run_cli(["index", "build-aligned", str(src), "-o", str(ref)])
    assert r.code == 0, r.err
    assert "6 tuples (en: 5, sv: 5, ro: 4 documents)" in r.out
    return src, topics, ref


def test_cnpmi_inpmi_twc_of_a_user_reference_equal_brute_force(built, run_cli):
    _, topics, ref = built
    r = run_cli(["cnpmi", str(topics), "--reference", str(ref), "--top", "4", "--format", "json"])
    assert r.code == 0, r.err
    out = json.loads(r.out)
    langs = ["en", "sv", "ro"]
    for k in range(2):
        pair_means = [brute_cnpmi(a, b, k) for a, b in combinations(langs, 2)]
        assert out["cnpmi"]["per_topic"][k] == pytest.approx(sum(pair_means) / 3, abs=1e-12)
        expected = sum(brute_npmi(x, k) for x in langs) / 3
        assert out["inpmi"]["per_topic"][k] == pytest.approx(expected, abs=1e-12)
    # the pairwise tuple counts: en-sv share tuples 1, 2, 3, 5; en-ro 1, 5, 6; sv-ro 1, four, 5
    assert out["cnpmi"]["details"]["n_tuples_en-sv"] == 4
    assert out["cnpmi"]["details"]["n_tuples_en-ro"] == 3
    assert out["cnpmi"]["details"]["n_tuples_sv-ro"] == 3
    # TWC: topic 0 lacks only "absentword" (11 of 12 words found)
    assert out["twc"]["per_topic"][0] == pytest.approx(11 / 12)
    assert out["cnpmi"]["signature"].startswith("cnpmi|ref=myref@")


def test_cnpmi_output_file_equals_what_is_printed(built, tmp_path, run_cli):
    import csv

    _, topics, ref = built
    argv = ["cnpmi", str(topics), "--reference", str(ref), "--n-top", "4"]
    data = json.loads(run_cli([*argv, "--format", "json"]).out)
    for fmt in ("json", "csv", "tsv"):
        printed = run_cli([*argv, "--format", fmt]).out
        written = run_cli([*argv, "-o", tmp_path / f"scores.{fmt}"])
        assert written.code == 0 and written.out == "", written.err
        assert (tmp_path / f"scores.{fmt}").read_text(encoding="utf-8") == printed
    rows = list(csv.DictReader((tmp_path / "scores.csv").open(encoding="utf-8")))
    assert [r["topic"] for r in rows] == ["0", "1"]  # one row per topic; the text table's mean row is not one
    for measure in ("cnpmi", "inpmi", "twc"):
        assert [float(r[measure]) for r in rows] == data[measure]["per_topic"]


def test_parallel_line_files_build_the_same_reference(built, tmp_path, run_cli):
    _, topics, ref = built
    ids, lines = [], {"en": [], "sv": []}
    for t in TUPLES:  # two "sentences" per document: the text, then an empty (missing) line
        for part in (t.get("en") or "", ""):
            ids.append(str(t["id"]))
            lines["en"].append(part)
        for part in ("", t.get("sv") or ""):
            lines["sv"].append(part)
    (tmp_path / "ids.txt").write_text("\n".join(ids) + "\n", encoding="utf-8")
    for x in lines:
        (tmp_path / f"{x}.txt").write_text("\n".join(lines[x]) + "\n", encoding="utf-8")
    ref2 = tmp_path / "lines"
    r = run_cli(["index", "build-aligned", "--lang", f"en={tmp_path / 'en.txt'}", "--lang",
                 f"sv={tmp_path / 'sv.txt'}", "--doc-ids", str(tmp_path / "ids.txt"), "-o", str(ref2)])
    assert r.code == 0, r.err
    pair = tmp_path / "pair.json"
    pair.write_text(json.dumps({x: TOPICS[x] for x in ("en", "sv")}), encoding="utf-8")
    a = json.loads(run_cli(["cnpmi", str(pair), "--reference", str(ref), "--format", "json"]).out)
    b = json.loads(run_cli(["cnpmi", str(pair), "--reference", str(ref2), "--format", "json"]).out)
    assert a["cnpmi"]["per_topic"] == b["cnpmi"]["per_topic"]
    assert a["cnpmi"]["per_topic"] == pytest.approx([brute_cnpmi("en", "sv", k) for k in range(2)], abs=1e-12)


def test_python_api_takes_the_same_path_and_names(built):
    from tealeaves.multilingual import measures as M
    from tealeaves.multilingual.aligned_files import load_aligned_reference

    _, _, ref = built
    by_path = M.cnpmi(TOPICS, str(ref))
    by_object = M.cnpmi(TOPICS, load_aligned_reference(ref))
    assert by_path.per_topic.tolist() == by_object.per_topic.tolist()
    assert str(by_path.signature) == str(by_object.signature)
    assert M.twc(TOPICS, ref).per_topic.tolist() == pytest.approx([11 / 12, 1.0])


def test_builtin_names_and_saved_builtins_agree(tmp_path):
    """A built-in reference saved to a folder and loaded back counts exactly what the built-in does."""
    from conftest import require_data
    from tealeaves.multilingual import measures as M
    from tealeaves.multilingual.aligned_files import save_aligned_reference
    from tealeaves.multilingual.reference import named_reference

    require_data("parallel/udhr/eng.articles.jsonl")
    topics = {"en": [["rights", "freedom", "equal", "dignity"]],
              "sv": [["rättigheter", "frihet", "lika", "alla"]]}
    builtin = named_reference("udhr", ["en", "sv"])
    save_aligned_reference(builtin, tmp_path / "udhr")
    a, b = M.cnpmi(topics, "udhr"), M.cnpmi(topics, tmp_path / "udhr")
    assert a.per_topic.tolist() == b.per_topic.tolist()
    assert M.inpmi(topics, "udhr").per_topic.tolist() == M.inpmi(topics, tmp_path / "udhr").per_topic.tolist()
    assert str(a.signature) == str(b.signature)  # same name and same per-language index checksums


def _shards(tmp_path, k=3):
    """TUPLES split into ``k`` JSON Lines shards (one gzip-compressed), in order."""
    import gzip

    paths = []
    for s in range(k):
        part = TUPLES[s * len(TUPLES) // k:(s + 1) * len(TUPLES) // k]
        rows = "".join(json.dumps(t, ensure_ascii=False) + "\n" for t in part)
        path = tmp_path / f"part{s}.jsonl" if s else tmp_path / f"part{s}.jsonl.gz"
        if s:
            path.write_text(rows, encoding="utf-8")
        else:
            with gzip.open(path, "wt", encoding="utf-8") as fh:
                fh.write(rows)
        paths.append(path)
    return paths


def _same_reference(a, b):
    """Two saved aligned references hold identical indices (every array) and tuple ids."""
    import numpy as np

    from tealeaves.multilingual.aligned_files import load_aligned_reference

    ra, rb = load_aligned_reference(a), load_aligned_reference(b)
    assert ra.languages == rb.languages and ra.index.n_tuples == rb.index.n_tuples
    for lang in ra.languages:
        xa, xb = ra.index.indices[lang].arrays, rb.index.indices[lang].arrays
        for name in xa:
            assert np.array_equal(np.asarray(xa[name]), np.asarray(xb[name])), (lang, name)
    assert (a / "tuple_ids.txt").read_text() == (b / "tuple_ids.txt").read_text()


def test_sharded_and_chunked_builds_equal_the_single_build(built, tmp_path, run_cli):
    """Several shards (ids prefixed with the shard name), tiny chunks (many partials per language, some
    chunks without a language) and a gzip shard give the same counts; only ids change."""
    import numpy as np

    from tealeaves.multilingual import measures as M
    from tealeaves.multilingual.aligned_build import build_aligned_reference

    _, _, ref = built
    sharded, _ = build_aligned_reference(_shards(tmp_path), tmp_path / "sharded", chunk_tokens=3)
    ids = (tmp_path / "sharded" / "tuple_ids.txt").read_text(encoding="utf-8").split()
    assert ids == [f"part{s}.jsonl{'.gz' if s == 0 else ''}:{t['id']}" for s in range(3)
                   for t in TUPLES[s * 2:(s + 1) * 2]]
    single = M.cnpmi(TOPICS, str(ref))
    assert M.cnpmi(TOPICS, sharded).per_topic.tolist() == single.per_topic.tolist()
    assert M.inpmi(TOPICS, sharded).per_topic.tolist() == M.inpmi(TOPICS, str(ref)).per_topic.tolist()
    from tealeaves.multilingual.aligned_files import load_aligned_reference

    whole = load_aligned_reference(ref)
    for lang in sharded.languages:  # the same postings, positions and lengths in every language
        a, b = sharded.index.indices[lang].arrays, whole.index.indices[lang].arrays
        for name in ("vocab_blob", "post_docs", "positions", "present", "doc_lengths", "word_ptr"):
            assert np.array_equal(np.asarray(a[name]), np.asarray(b[name])), (lang, name)


def test_two_dask_workers_equal_the_one_process_build(tmp_path, run_cli):
    """Acceptance (issue 13 point 1): the reference built on a 2-worker LocalCluster equals the
    1-process build, array for array, and its CNPMI equals the brute-force set computation."""
    pytest.importorskip("distributed")
    shards = _shards(tmp_path)
    one, two = tmp_path / "one", tmp_path / "two"
    r = run_cli(["index", "build-aligned", *shards, "-o", one])
    assert r.code == 0, r.err
    r = run_cli(["index", "build-aligned", *shards, "-o", two, "--workers", "2"])
    assert r.code == 0, r.err
    assert "shard 3/3" in r.err
    _same_reference(one, two)
    topics = tmp_path / "pair.json"
    topics.write_text(json.dumps({x: TOPICS[x] for x in ("en", "sv")}), encoding="utf-8")
    out = json.loads(run_cli(["cnpmi", topics, "--reference", two, "--top", "4", "--format", "json"]).out)
    expected = [brute_cnpmi("en", "sv", k) for k in range(2)]
    assert out["cnpmi"]["per_topic"] == pytest.approx(expected, abs=1e-12)


def test_deprecated_alias_warns_and_builds_the_same_folder(built, tmp_path, run_cli):
    src, _, ref = built
    r = run_cli(["build-aligned-reference", src, "-o", tmp_path / "alias"])
    assert r.code == 0, r.err
    assert "tealeaves: warning: `tealeaves build-aligned-reference` is deprecated; use `tealeaves index " \
           "build-aligned`" in r.err
    _same_reference(ref, tmp_path / "alias")


def test_rebuilding_replaces_a_reference_and_languages_select(built, tmp_path, run_cli):
    """-o on an existing reference replaces it; --languages keeps those sides (tuples and ids kept)."""
    import numpy as np

    from tealeaves.multilingual.aligned_files import load_aligned_reference

    src, _, ref = built
    r = run_cli(["index", "build-aligned", src, "--languages", "sv,ro", "-o", ref])
    assert r.code == 0, r.err
    again = load_aligned_reference(ref)
    assert again.languages == ["sv", "ro"] and again.index.n_tuples == len(TUPLES)
    assert np.flatnonzero(again.index.present("ro")).tolist() == [0, 3, 4, 5]
    assert sorted(p.name for p in ref.iterdir()) == ["aligned.json", "ro.tlx", "sv.tlx", "tuple_ids.txt"]
