"""A user-built aligned reference (``tealeaves build-aligned-reference``) against brute-force set
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
    r = run_cli(["build-aligned-reference", str(src), "-o", str(ref)])
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
    r = run_cli(["build-aligned-reference", "--lang", f"en={tmp_path / 'en.txt'}", "--lang",
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
