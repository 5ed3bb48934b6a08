"""Saved files' JSON headers (``_io.check_format``, read by ``pltm`` models and ``estimator`` files): a
header of another format is refused by the caller's own error, one of another version names both
versions and the fix."""

from __future__ import annotations

import pytest

from tealeaves import _io
from tealeaves.errors import InputFormatError, TealeavesError


def _bad(problem: str) -> TealeavesError:
    return TealeavesError(f"'x' is not a saved thing: {problem}", fix="save one")


def _check(doc):
    return _io.check_format(doc, "tealeaves-thing", 3, bad=_bad, subject="thing.npz", what="thing 'x'",
                            fix="save it again")


def test_format_header_of_the_format_and_version_is_returned():
    doc = {"format": "tealeaves-thing", "format_version": 3, "k": 1}
    assert _check(doc) is doc


@pytest.mark.parametrize("doc", [[], "tealeaves-thing", {"format_version": 3},
                                 {"format": "tealeaves-other", "format_version": 3}])
def test_format_header_of_another_format_raises_the_callers_error(doc):
    with pytest.raises(TealeavesError) as info:
        _check(doc)
    assert type(info.value) is TealeavesError
    assert str(info.value).startswith("'x' is not a saved thing: thing.npz does not declare format "
                                      "'tealeaves-thing'")


@pytest.mark.parametrize("version", [None, 2, "3", 3.5])
def test_format_header_of_another_version_names_both_versions(version):
    doc = {"format": "tealeaves-thing"} | ({} if version is None else {"format_version": version})
    with pytest.raises(InputFormatError) as info:
        _check(doc)
    assert str(info.value).startswith(f"thing 'x' has format version {version!r}; this tealeaves reads "
                                      "version 3")
    assert info.value.fix == "save it again"
