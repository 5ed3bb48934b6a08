"""Renamed Python keywords (issue 19): an old name still works with one ``FutureWarning``; given with its
new name it is refused; with a bad value it fails exactly as the new name does (the message names the new
parameter, which the warning maps the old one to); positional use is unchanged."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from conftest import DOCS, TOPICS
from tealeaves.errors import ParameterError, TealeavesError


def _sweep(**kw):
    from tealeaves.sweep.core import sweep

    return sweep(DOCS, **({} if "ks" in kw else {"n_components": [2]}) | kw)


def _coherence(**kw):
    from tealeaves.coherence import coherence

    return coherence(TOPICS, DOCS, **kw)


def _gibbs(**kw):
    from tealeaves.corpus import Corpus
    from tealeaves.models.lda_gibbs import GibbsLDA

    return GibbsLDA(2, n_iter=2, **kw).fit(Corpus.from_token_lists([d.split() for d in DOCS]))


def _pltm(**kw):
    from tealeaves.corpus.aligned import AlignedCorpus
    from tealeaves.models.polylingual import PolylingualTopicModel

    model = PolylingualTopicModel(n_iter=2, **kw)
    texts = {"en": ["a b", "c d", "e f", "g h"], "sv": ["i j", "k l", "m n", "o p"]}
    corpus = AlignedCorpus.from_texts(texts, ids=["1", "2", "3", "4"])
    return model.fit(corpus)


def _study(**kw):
    from tealeaves.human.study import build_study
    from tealeaves.models.base import FixedTopicModel

    model = FixedTopicModel(np.random.default_rng(0).dirichlet(np.full(30, 0.1), size=3),
                            [f"w{i}" for i in range(30)])
    return build_study(model, tasks=["topic_intrusion"], doc_topic=np.full((4, 3), 1 / 3), titles=["t"] * 4,
                       texts=["x"] * 4, **kw)


def _survey(**kw):
    from tealeaves.human.survey import import_survey

    return import_survey("absent.csv", item=["a"], annotator="b", response="c", **kw)


def _cnpmi(**kw):
    from tealeaves.multilingual.measures import cnpmi

    return cnpmi({"en": [["a", "b"]], "sv": [["c", "d"]]}, None, **kw)


def _aligned_reference(tmp_path, **kw):
    from tealeaves.multilingual.aligned_build import build_aligned_reference

    return build_aligned_reference([tmp_path / "absent.jsonl"], **kw)


def _report(tmp_path, **kw):
    from tealeaves.report.html import write_report

    return write_report(None, tmp_path / "r.html", **kw)


# (call, old, new, a bad value, a good value); call(**{name: value})
CASES = [
    (_sweep, "ks", "n_components", [1], [2]),
    (_sweep, "workers", "n_jobs", 0, 1),
    (_sweep, "top_n", "n_top", 1, 3),
    (_coherence, "top_n", "n_top", 1, 3),
    (_gibbs, "burn_in", "optimize_burn_in", -1, 1),
    (_gibbs, "burn_in", "optimize_burn_in", "3", 1),
    (_pltm, "n_topics", "n_components", 0, 2),
    (_pltm, "n_topics", "n_components", 2.5, 2),
    (_study, "documents", "document_ids", [0, 7], [0, 1]),
    (_survey, "sep", "key_sep", "", "."),
    (_cnpmi, "zero_cooccurrence", "zero", "never", "limit"),
]


def test_cnpmi_without_a_reference():  # before: AttributeError 'NoneType' object has no attribute 'n_pairs'
    with pytest.raises(ParameterError, match="reference must be an aligned reference.*got NoneType"):
        _cnpmi()


def _error(call, **kw):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(Exception) as info:
            call(**kw)
    return info.value, [w for w in caught if issubclass(w.category, FutureWarning)]


@pytest.mark.parametrize("call, old, new, bad, good", CASES, ids=lambda v: getattr(v, "__name__", None))
def test_old_and_new_name_together(call, old, new, bad, good):
    exc, _ = _error(call, **{old: good, new: good})
    assert isinstance(exc, ParameterError), repr(exc)
    assert f"got both {old!r}" in str(exc) and f"and {new!r}" in str(exc), exc
    assert f"give only {new!r}" in str(exc)


@pytest.mark.parametrize("call, old, new, bad, good", CASES, ids=lambda v: getattr(v, "__name__", None))
def test_old_name_with_a_bad_value_fails_as_the_new_one(call, old, new, bad, good):
    old_exc, old_warnings = _error(call, **{old: bad})
    new_exc, new_warnings = _error(call, **{new: bad})
    assert isinstance(old_exc, TealeavesError), repr(old_exc)
    assert (type(old_exc), str(old_exc)) == (type(new_exc), str(new_exc))
    assert not new_warnings and len(old_warnings) <= 1  # one warning per process and name
    assert old not in str(old_exc).replace(new, "")  # it names the new parameter


@pytest.mark.parametrize("call", [_aligned_reference, _report])
def test_path_keywords_together(tmp_path, call):
    old, new = ("out", "output") if call is _aligned_reference else ("figures_dir", "figures")
    exc, _ = _error(lambda **kw: call(tmp_path, **kw), **{old: tmp_path / "a", new: tmp_path / "b"})
    assert isinstance(exc, ParameterError) and f"got both {old!r} and {new!r}" in str(exc), exc


def test_dask_client_workers_and_n_jobs_together():
    from tealeaves.index.dask import dask_client

    with pytest.raises(ParameterError, match="got both 'workers' and 'n_jobs'"):
        dask_client(workers=1, n_jobs=1)


def test_positional_use_is_unchanged():
    from tealeaves.models.lda_gibbs import GibbsLDA
    from tealeaves.models.polylingual import PolylingualTopicModel

    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        assert PolylingualTopicModel(3).n_components == 3
        assert GibbsLDA(4).n_components == 4
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        assert GibbsLDA(4, burn_in=3).optimize_burn_in == 3


def test_unknown_keyword_is_still_a_type_error():
    from tealeaves.models.lda_gibbs import GibbsLDA

    with pytest.raises(TypeError, match="unexpected keyword argument 'burnin'"):
        GibbsLDA(5, burnin=3)


# -- n_topics -> n_components (issue 19 item 3): the old keyword warns once and gives the same result ------
def _files(tmp_path):
    (tmp_path / "dense.txt").write_text("0\tdoc0\t0.25\t0.75\n1\tdoc1\t0.5\t0.5\n", encoding="utf-8")
    (tmp_path / "counts.txt").write_text("0 apple 0:2 1:1\n1 pear 1:3\n", encoding="utf-8")
    (tmp_path / "keys.txt").write_text("0\t0.1\tapple pear\n1\t0.2\tpear apple\n", encoding="utf-8")
    return tmp_path


def _flag_topics(tmp_path, **kw):
    from tealeaves.comparison.flags import flag_topics

    return flag_topics(recurrence=[1, 1, 0, 1, 1], **kw).to_dict()


def _check_alpha(tmp_path, **kw):
    from tealeaves.models.base import check_alpha

    return check_alpha(0.5, **kw).tolist()


def _doc_topics(tmp_path, **kw):
    from tealeaves.models.adapters.mallet import read_doc_topics

    return read_doc_topics(_files(tmp_path) / "dense.txt", **kw).proportions.tolist()


def _word_topic_counts(tmp_path, **kw):
    from tealeaves.models.adapters.mallet import read_word_topic_counts

    return read_word_topic_counts(_files(tmp_path) / "counts.txt", beta=0.5, **kw).topic_word_.tolist()


def _alpha_from_keys(tmp_path, **kw):
    from tealeaves.models.adapters.topic_files import alpha_from_topic_keys

    return alpha_from_topic_keys(_files(tmp_path) / "keys.txt", **kw).tolist()


def _load_path(tmp_path, **kw):
    from tealeaves.models.adapters.paths import load_path

    model = load_path(_files(tmp_path) / "counts.txt", format="mallet-counts", beta=0.5, **kw)
    return model.topic_word_.tolist()


def _check_record(tmp_path, **kw):
    from tealeaves.models.inference_registry import check_record

    return check_record({"method": "plsa-fold-in", "max_iter": 10, "tol": 0.0}, **kw).key


def _check_topic_ids(tmp_path, **kw):
    from tealeaves.human.study import check_topic_ids

    return check_topic_ids([2, "0"], **kw)


def _save_estimator(tmp_path, **kw):  # an unfitted estimator fails alike once the keyword is accepted
    from tealeaves.multilingual.estimator_io import save_estimator

    try:
        save_estimator(object(), tmp_path / "e.json", None, ["en"], **kw)
    except AttributeError as exc:
        return str(exc)
    raise AssertionError("an object() estimator was saved")


# (call, a good number of topics); call(tmp_path, **{name: value})
N_TOPICS_CALLS = [(_flag_topics, 5), (_check_alpha, 3), (_doc_topics, 2), (_word_topic_counts, 3),
                  (_alpha_from_keys, 2), (_load_path, 3), (_check_record, 3), (_check_topic_ids, 3),
                  (_save_estimator, 4)]


@pytest.fixture
def fresh_warnings(monkeypatch):
    import tealeaves._params as params

    monkeypatch.setattr(params, "_WARNED", set())


def _future(caught) -> list[str]:
    return [str(w.message) for w in caught if issubclass(w.category, FutureWarning)]


@pytest.mark.parametrize("call, k", N_TOPICS_CALLS, ids=lambda v: getattr(v, "__name__", None))
def test_n_topics_keyword_warns_once_with_the_same_result(tmp_path, fresh_warnings, call, k):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        new = call(tmp_path, n_components=k)
        assert not _future(caught)
        old = call(tmp_path, n_topics=k)
        again = call(tmp_path, n_topics=k)
    assert old == new == again
    messages = _future(caught)
    assert len(messages) == 1 and "'n_topics' is deprecated" in messages[0]
    assert "'n_components'" in messages[0]


@pytest.mark.parametrize("call, k", N_TOPICS_CALLS, ids=lambda v: getattr(v, "__name__", None))
def test_n_topics_and_n_components_together(tmp_path, call, k):
    with pytest.raises(ParameterError, match="got both 'n_topics' and 'n_components'"):
        call(tmp_path, n_topics=k, n_components=k)


def test_flag_report_n_topics_is_a_warning_read_only_alias(fresh_warnings):
    from tealeaves.comparison.flags import flag_topics

    report = flag_topics(5, recurrence=[1, 1, 0, 1, 1])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert report.n_topics == report.n_components == 5
        assert report.n_topics == 5
    assert len(_future(caught)) == 1
    with pytest.raises(AttributeError):
        report.n_topics = 4
    assert "n_topics" not in report.to_dict() and "n_components" not in report.to_dict()


def test_check_topics_is_a_deprecated_alias_of_check_topic_ids(fresh_warnings):
    from tealeaves.human import study

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert study.check_topics([1, "0"], 2) == study.check_topic_ids([1, "0"], 2) == [1, 0]
    messages = _future(caught)
    assert len(messages) == 1 and "'check_topics'" in messages[0] and "check_topic_ids" in messages[0]


def _coherence_object():
    from tealeaves.coherence.measure import Coherence

    return Coherence(n_top=7)


def _sweep_data():
    from tealeaves.sweep.measures import SweepData

    return SweepData(None, None, None, ("npmi",), 7, 0)


@pytest.mark.parametrize("make, old, new, where", [(_coherence_object, "top_n", "n_top", "Coherence"),
                                                   (_sweep_data, "top_n", "n_top", "SweepData")],
                         ids=["Coherence", "SweepData"])
def test_renamed_attribute_is_a_warning_read_only_alias(fresh_warnings, make, old, new, where):
    obj = make()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert getattr(obj, old) == getattr(obj, new) == 7
        assert getattr(obj, old) == 7
    assert _future(caught) == [f"{where}: '{old}' is deprecated and will be removed; use '{new}'"]
    assert [w.filename for w in caught] == [__file__]  # the warning points at the caller's line
    with pytest.raises(AttributeError):
        setattr(obj, old, 3)
    assert getattr(obj, new) == 7
