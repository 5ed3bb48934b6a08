"""The Python arguments of :func:`tealeaves.sweep.sweep` (``n_components``, ``seeds``, ``reference``,
``settings``) of a wrong type: refused with the :class:`~tealeaves.errors.ParameterError` the command line
uses, before any store is opened.  A comment "before:" says what the case did before its fix."""

from __future__ import annotations

import pytest

from tealeaves.errors import ParameterError
from tealeaves.sweep import sweep
from tealeaves.sweep.params import check_n_components, check_seeds
from test_sweep_runs import lda_corpus


@pytest.mark.parametrize("kwargs, fragment", [
    # before: TypeError (exit 70 through a script); seeds="10" fitted seeds 1 and 0
    ({"n_components": 5}, "n_components must be a list of whole numbers >= 2, got 5 (int)"),
    ({"n_components": "23"}, "n_components must be a list of whole numbers >= 2, got '23' (str)"),
    ({"n_components": [2], "seeds": "10"}, "a whole number of seeds or a list of seeds, got '10'"),
    ({"n_components": [2], "seeds": 2.0}, "a whole number of seeds or a list of seeds, got 2.0"),
    ({"n_components": [2], "seeds": True}, "got True (bool)"),
    ({"n_components": [2], "seeds": ["1"]}, "seeds must be a whole number >= 0"),
    ({"n_components": [2], "seeds": [1.0]}, "seeds must be a whole number >= 0"),
    ({"n_components": [2], "seeds": None}, "got None (NoneType)"),
    ({"n_components": [2], "reference": 123}, "reference must be a ReferenceIndex, an index file path"),
    ({"n_components": [2], "settings": [1]}, "settings must be a dict of engine settings, got list"),
])
def test_sweep_arguments_of_a_wrong_type_refused(kwargs, fragment, tmp_path):
    out = tmp_path / "r.sqlite"
    with pytest.raises(ParameterError, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        sweep(lda_corpus(n_docs=30), output=out, progress=False, **kwargs)
    assert not out.exists()


def test_old_keyword_ks_is_checked_as_n_components(tmp_path, monkeypatch):
    from tealeaves import _params

    monkeypatch.setattr(_params, "_WARNED", set())  # the old name warns once per process
    with pytest.warns(FutureWarning), pytest.raises(ParameterError, match="got 5 \\(int\\)"):
        sweep(lda_corpus(n_docs=30), ks=5, output=tmp_path / "r.sqlite", progress=False)


def test_seeds_and_numbers_of_topics_read_as_documented():
    # a count n is seeds 0 .. n-1; a list is the seeds themselves (numpy integers too)
    import numpy as np

    assert check_seeds(3) == [0, 1, 2]
    assert check_seeds(np.int64(2)) == [0, 1]
    assert check_seeds([7, 0]) == [7, 0]
    assert check_seeds((np.uint32(5),)) == [5]
    assert check_n_components(range(2, 5)) == [2, 3, 4]
    assert check_n_components(np.array([5, 10])) == [5, 10]
