"""The recorded-inference registry: a saved model infers by its recorded method with only base imported."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

from tealeaves.corpus import Corpus
from tealeaves.errors import InvalidModelError
from tealeaves.models import PLSA, SklearnLDA
from tealeaves.models import inference_registry as registry
from tealeaves.models.base import FixedTopicModel, load_model


def _corpus(seed: int) -> Corpus:
    counts = np.random.default_rng(seed).poisson(0.5, size=(30, 20))
    return Corpus.from_counts(counts, [f"w{i:02d}" for i in range(20)])


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """Two fitted models saved to files, with the proportions the live models and the loaded ones infer."""
    folder = tmp_path_factory.mktemp("registry")
    test = _corpus(1)
    out = {}
    for name, model in (("plsa", PLSA(3, n_restarts=2, max_iter=50, random_state=0)),
                        ("sklearn", SklearnLDA(3, max_iter=5, random_state=0))):
        model.fit(_corpus(0))
        path = model.save(folder / f"{name}.npz")
        out[name] = (path, model.transform(test), load_model(path).transform(test))
    np.save(folder / "test_counts.npy", test.counts.toarray())
    return folder, out


def test_a_loaded_model_infers_as_the_live_one(saved):
    _, out = saved
    for live, loaded in ((v[1], v[2]) for v in out.values()):
        np.testing.assert_array_equal(live, loaded)


def test_a_model_loaded_with_only_the_base_imported_infers_identically(saved):
    """A fresh interpreter imports tealeaves.models.base alone: the registry imports the registering
    module (tealeaves.models.plsa / sklearn_lda) by the key the file records, and the proportions are
    bit for bit those of the process that fitted the models."""
    folder, out = saved
    for name, (path, _, expected) in out.items():
        np.save(folder / f"{name}_expected.npy", expected)
        module = {"plsa": "tealeaves.models.plsa", "sklearn": "tealeaves.models.sklearn_lda"}[name]
        script = textwrap.dedent(f"""
            import sys
            import numpy as np
            from tealeaves.models.base import load_model
            from tealeaves.corpus.corpus import Corpus
            model = load_model({str(path)!r})
            assert {module!r} not in sys.modules, "the base imported its subclass"
            counts = np.load({str(folder / 'test_counts.npy')!r})
            test = Corpus.from_counts(counts, list(model.vocabulary_))
            theta = model.transform(test)
            assert {module!r} in sys.modules, "the registry did not import the registering module"
            np.testing.assert_array_equal(theta, np.load({str(folder / f'{name}_expected.npy')!r}))
            print("ok")
        """)
        run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
        assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr


def test_an_unknown_method_names_the_known_ones():
    model = FixedTopicModel(np.full((2, 3), 1 / 3), ["a", "b", "c"], 0.5,
                            metadata={"inference": {"method": "x"}})
    with pytest.raises(InvalidModelError,
                       match="names the method 'x'; expected plsa-fold-in or sklearn-e-step"):
        model.transform(Corpus.from_token_lists([["a"]], model.vocabulary_))


def test_a_registered_method_is_used_by_a_loaded_model():
    """Another model module registers its own method the same way plsa and sklearn_lda do."""
    def infer(topic_word, record, counts):
        return np.full((counts.shape[0], topic_word.shape[0]), record["value"])

    method = registry.register_inference(registry.InferenceMethod(
        "test-constant", "TestModel", lambda record, k: registry.need_number(record, "value"), infer))
    try:
        model = FixedTopicModel(np.full((2, 3), 1 / 3), ["a", "b", "c"], 0.5,
                                metadata={"inference": {"method": "test-constant", "value": 0.5}})
        theta = model.transform(Corpus.from_token_lists([["a"], ["b"]], model.vocabulary_))
        np.testing.assert_array_equal(theta, np.full((2, 2), 0.5))
        assert registry.class_inference("TestModel") == "test-constant"
        model.metadata_["inference"]["value"] = -1
        with pytest.raises(InvalidModelError, match="value=-1; expected a positive finite number"):
            model.transform(Corpus.from_token_lists([["a"]], model.vocabulary_))
    finally:
        registry._METHODS.pop(method.key)
