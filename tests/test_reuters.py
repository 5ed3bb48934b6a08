"""Reuters-21578: the SGML reader, the ModApte split and the default recipe."""

from __future__ import annotations

import re

import pytest

from conftest import require_data
from tealeaves.corpus import reuters as R

pytestmark = pytest.mark.xdist_group("reuters")


@pytest.fixture(scope="module")
def stories():
    require_data("reuters21578/reut2-000.sgm")
    from conftest import disk_cached

    return disk_cached("reuters_stories_v1", R.read_reuters)


def test_all_stories_parsed(stories):
    # README §VI: 21 files of 1,000 stories and one of 578; NEWIDs 1..21578 in order.
    assert len(stories) == 21578
    assert [s.newid for s in stories] == list(range(1, 21579))


def test_modapte_sizes(stories):
    train, test, cats = R.modapte_split(stories)
    assert (len(train), len(test), len(cats)) == (7769, 3019, 90)


def test_fixture_shapes(reuters):
    train, test, pre = reuters
    assert (len(train), len(test)) == (7769, 3019)
    assert "test/14826" in test.ids and "training/9865" in train.ids
    assert train.vocabulary is pre.vocabulary_ is test.vocabulary


def test_training_9865_categories(stories):
    # NLTK book, ch. 2: reuters.categories('training/9865') == ['barley', 'corn', 'grain', 'wheat'].
    train, _, _ = R.modapte_split(stories)
    story = next(s for s in train if R.story_id(s) == "training/9865")
    assert sorted(story.topics) == ["barley", "corn", "grain", "wheat"]
    assert re.search(r"wheat", story.text, re.I)


def test_7770_cause_is_newid_1199(stories):
    # The literal README rules keep 7,770 training stories; the extra one is the
    # "Blah blah blah." test transmission, the only candidate with a CSECS attribute.
    train_all, test_all, _ = R.modapte_split(stories, exclude=())
    assert (len(train_all), len(test_all)) == (7770, 3019)
    train, _, _ = R.modapte_split(stories)
    extra = {s.newid for s in train_all} - {s.newid for s in train}
    assert extra == {1199}
    raw = require_data("reuters21578/reut2-001.sgm").read_text(encoding="latin-1")
    block = re.search(r'<REUTERS[^>]*NEWID="1199">.*?</REUTERS>', raw, re.S).group(0)
    assert "CSECS=" in block and "Blah blah blah." in block
    # It is the only ModApte candidate whose REUTERS tag has a CSECS attribute.
    tags = re.findall(r'<REUTERS TOPICS="YES" LEWISSPLIT="TRAIN"[^>]*CSECS[^>]*>', "".join(
        p.read_text(encoding="latin-1") for p in sorted(raw_dir().glob("reut2-*.sgm"))))
    assert len(tags) == 1


def raw_dir():
    return require_data("reuters21578/reut2-000.sgm").parent


def test_published_category_sizes(stories):
    # Widely reported ApteMod sizes (training + test stories per category, e.g. NLTK's
    # len(reuters.fileids(c))): earn 3964, acq 2369, trade 485, corn 237 (NEWID 5467 lists
    # corn twice; NEWID 19918 lists trade twice).
    train, test, _ = R.modapte_split(stories)
    sizes = R.category_counts(train + test)
    assert (sizes["earn"], sizes["acq"], sizes["trade"], sizes["corn"]) == (3964, 2369, 485, 237)
