"""Docstring descriptions shared by several functions, written once (like SciPy's ``scipy._lib.doccer``).

A docstring line made only of placeholders, ``%(key)s`` (several may share the line), stands for
the entries :data:`DESCRIPTIONS` holds under those keys, indented as the line is; a line
``Parameters: %(key)s ...`` (or ``Returns:``, ``Raises:``, ``Yields:``, ``Attributes:``,
``Other Parameters:``) stands for the whole section, its title and underline included::

    @shared_doc
    def read_lines(path, encoding=None, what="file"):
        \"\"\"The lines of ``path``.

        Parameters
        ----------
        %(file_path)s %(file_encoding)s %(file_what)s  <- three shared entries
        ...
        Raises: %(raises_file_missing)s  <- a section of one shared entry
        \"\"\"

:func:`shared_doc` expands a function's or class's ``__doc__`` when the module is imported (so
``help()`` and :func:`inspect.getdoc` show the full entries), and the API reference's griffe
extension (``docs/griffe_shared_docs.py``) expands the docstrings mkdocstrings reads from the source
with the same :func:`expand`.  Only a description that is the same concept with the same words in
every place it stands goes here; a parameter that means something particular in one function keeps
its own entry there.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TypeVar

T = TypeVar("T")

#: key -> one docstring entry (``name : type`` then its description indented by four spaces), or
#: several entries that always go together.  Grouped by where they are used; a new shared
#: description goes under its group, keyed ``<group>_<parameter>``.
DESCRIPTIONS: dict[str, str] = {
    # -- Files read under tealeaves._io's reading policy (_io, corpus readers)
    "file_path": """\
path : path-like
    The file.""",
    "file_encoding": """\
encoding : str or None, default None
    Its encoding (None: UTF-8, a byte-order mark removed).""",
    "file_what": """\
what : str, default "file"
    What the file is, for error messages.""",
    "files_encoding": """\
encoding : str or None, default None
    The files' encoding (None: UTF-8, a byte-order mark removed).""",
    "raises_file_missing": """\
InputNotFoundError
    If the file does not exist.""",
    "raises_path_missing": """\
InputNotFoundError
    If ``path`` does not exist.""",
    "raises_file_encoding": """\
InputEncodingError
    Naming the file and line, for bytes invalid in the encoding.""",
    "raises_file_unreadable": """\
TealeavesError
    If the path is a folder, cannot be read, or the encoding is unknown.""",
    # -- Compiled kernels called under Ctrl-C handling (tealeaves._interrupt)
    "signal_signum": """\
signum : int
    The signal received.""",
    "signal_frame": """\
frame : frame or None
    The interrupted frame.""",
    "returns_kernel": """\
object
    What the kernel returns.""",
    # -- Files written (tealeaves._io, tealeaves._output)
    "returns_path": """\
Path
    The path.""",
    "returns_folder": """\
pathlib.Path
    The folder.""",
    "raises_folder_is_file": """\
OutputError
    When ``folder`` exists and is not a folder.""",
    "output_what": """\
what : str, default "output file"
    What the file is, for error messages.""",
    "table_rows": """\
rows : sequence of mapping of str to object
    The rows, as dicts.""",
    "table_columns": """\
columns : sequence of str or None, default None
    The columns, in order (None: the first row's keys).""",
    "table_floatfmt": """\
floatfmt : str, default ".3f"
    The format of float cells.""",
    "returns_table": """\
str
    The table (``"(no rows)"`` when empty).""",
    # -- Sweep scoring (tealeaves.sweep.measures)
    "sweep_model": """\
model : TopicModel
    The fitted model.""",
    "sweep_data": """\
data : SweepData
    The sweep's shared data.""",
    # -- Word-embedding measures between topics (tealeaves.comparison.embedding)
    "ranked_topics": """\
topics : object
    A fitted topic model or lists of ranked words (each at least ``n_top`` long).""",
    "embedding_vectors": """\
vectors : WordVectors
    The word vectors.""",
    # -- Coherence (tealeaves.coherence.measure)
    "returns_coherence": """\
CoherenceResult
    The scores.""",
    # -- Topics of a result (tealeaves.coherence.result, tealeaves.comparison.flags)
    "topic_index": """\
topic : int
    The topic's index.""",
    # -- Topic matching, stability and diversity (tealeaves.comparison)
    "match_a": """\
a : object
    The first fitted model (or ranked word lists for ``jaccard`` and ``rbo``).""",
    "match_b": """\
b : object
    The second.""",
    "match_metric": """\
metric : str, default "js"
    ``js``, ``cosine``, ``jaccard`` or ``rbo`` (see the module docstring).""",
    "match_n_top": """\
n_top : int, default 10
    Top words compared by the word-list metrics.""",
    "match_p": """\
p : float, default 0.9
    RBO's persistence, in ``(0, 1]``.""",
    "match_min_shared": """\
min_shared : float, default 0.5
    Least share of the smaller vocabulary the two must share, in ``[0, 1]``.""",
    "stability_metric": """\
metric : str, default "js"
    ``js``, ``cosine``, ``jaccard`` or ``rbo``
    (as :func:`~tealeaves.comparison.matching.similarity_matrix`).""",
    "stability_threshold": """\
threshold : float or None, default None
    Least matched similarity for a topic to count as recurring; None takes the
    metric's :data:`DEFAULT_THRESHOLDS`.""",
    "stability_n_top": """\
n_top : int, default 10
    Top words compared by the word-list metrics.""",
    "stability_p": """\
p : float, default 0.9
    RBO's persistence.""",
    "stability_min_shared": """\
min_shared : float, default 0.5
    Least share of the smaller vocabulary two runs must share.""",
    "diversity_n_top": """\
n_top : int, default 10
    The number of top words per topic.""",
    # -- Held-out likelihood estimators (tealeaves.likelihood.estimators)
    "estimator_phi": """\
phi : numpy.ndarray
    The ``K x V`` topic-word probabilities.""",
    "estimator_alpha": """\
alpha : numpy.ndarray
    The ``K`` Dirichlet parameters of the topic proportions.""",
    "estimator_corpus": """\
corpus : Corpus
    The ``D`` documents, encoded over the topics' vocabulary.""",
    "estimator_seed": """\
seed : int or None, default 0
    Sampler seed (None: fresh randomness); document ``d`` draws from its own random stream
    derived from ``(seed, d)`` (:data:`tealeaves.likelihood._kernels.RNG_SCHEME`).""",
    "estimator_threads": """\
n_threads : int or None, default None
    Threads estimating documents in parallel (None: every core); the numbers do not depend on it.""",
    "returns_est": """\
est : numpy.ndarray
    ``D`` per-document estimates of ``log p(w_d)``.""",
    "returns_se": """\
se : numpy.ndarray
    ``D`` delta-method standard errors (NaN where they cannot be estimated).""",
    "raises_bad_count": """\
ParameterError
    If a count is not a whole number in range.""",
    # -- Test documents checked before scoring (tealeaves.likelihood._perplexity)
    "scored_what": """\
what : str, default "test documents"
    What ``corpus`` is, for error messages.""",
    "returns_same_corpus": """\
Corpus
    ``corpus`` itself.""",
    # -- Document completion and paired differences (tealeaves.likelihood.completion, comparison.paired)
    "completion_test": """\
test : Corpus
    The test documents.""",
    "completion_seed": """\
seed : int, default 0
    Seed of the random split, in ``[0, 2**32)``.""",
    "completion_min_length": """\
min_length : int, default 2
    Documents with fewer tokens are skipped (>= 2).""",
    "paired_n_boot": """\
n_boot : int, default 10000
    Bootstrap resamples (>= 100).""",
    "paired_level": """\
level : float, default 0.95
    Coverage of the percentile interval, in ``(0, 1)``.""",
    "paired_seed": """\
seed : int, default 0
    Seed of ``numpy.random.default_rng``.""",
    # -- Reports (tealeaves.report: figures, hooks, html)
    "report_results": """\
results : SweepResults
    A results store (:class:`~tealeaves.sweep.SweepResults`).""",
    "returns_figure": """\
matplotlib.figure.Figure
    The figure (no pyplot state).""",
    "report_model": """\
model : str
    The stored model's name.""",
    "relevance_topic_word": """\
topic_word : array_like
    ``K x V`` rows.""",
    "relevance_p_word": """\
p_word : array_like
    ``p(w)`` (:func:`word_marginal`).""",
    "relevance_topic": """\
topic : int
    The topic.""",
    "relevance_lam": """\
lam : float
    ``lambda`` in ``[0, 1]``.""",
    "returns_per_model": """\
pandas.Series
    One value per model, indexed like ``results.models``.""",
    # -- Results stores (tealeaves.store, tealeaves.sweep.results)
    "store_path_text": """\
text : str or os.PathLike
    A path, possibly ending in ``#MODEL``.""",
    "store_model_name": """\
name : str
    A model's name.""",
    "store_file": """\
path : str or os.PathLike
    The store's file.""",
    # -- Corpora (tealeaves.corpus: readers, Corpus, Preprocessor)
    "corpus_hashed": """\
corpus : Corpus
    The corpus.""",
    "corpus_glob": """\
glob : str, default "**/*"
    For a folder, the pattern the files match.""",
    "corpus_text_field": """\
text_field : str, default "text"
    The JSON Lines field holding the text.""",
    "corpus_id_field": """\
id_field : str or None, default "id"
    The field holding the id (None: 1-based line numbers).""",
    "corpus_label_field": """\
label_field : str or None, default None
    The field holding a label, if any.""",
    "corpus_ids_path": """\
ids_path : path-like or None, default None
    For a one-document-per-line file, a file with one id per line (None: 1-based line numbers).""",
    "returns_read_corpus": """\
Corpus
    The documents, with ``metadata["source"]`` set to the path and, for raw text,
    :attr:`Corpus.preprocessing` to the recipe (None for pre-tokenised lines).""",
    "raises_no_document": """\
EmptyInputError
    If there is no document.""",
    "raises_corpus_format": """\
CorpusFormatError
    If a file is malformed.""",
    "corpus_ids": """\
ids : sequence of str or None, default None
    One id per document (None: ``"0"``, ``"1"``, ...).""",
    "corpus_d": """\
d : int
    The document's index.""",
    "text_ids": """\
ids : sequence of str or None, default None
    One id per text (None: ``"0"``, ``"1"``, ...).""",
    "text_labels": """\
labels : sequence or None, default None
    One label per text.""",
    "returns_encoded": """\
Corpus
    The encoded texts, with ``metadata["preprocessing"]`` set to :meth:`get_params`.""",
    "raises_unsegmented": """\
UnsegmentedTextError
    If the text looks unsegmented.""",
    "raises_nothing_survives": """\
EmptyInputError
    If there are no texts or no word survives the pruning.""",
    "returns_scan_ids": """\
ids : numpy.ndarray
    The word number of every match, in order.""",
    "returns_scan_counts": """\
counts : numpy.ndarray
    The number of matches of each text.""",
    # -- Aligned corpora and parallel texts (tealeaves.corpus.aligned, tealeaves.corpus.parallel)
    "parallel_languages": """\
languages : sequence of str
    Language codes (any alias of :func:`~tealeaves.corpus.aligned.normalize_language`).""",
    "parallel_files": """\
files : mapping of str to (str or Path)
    Language code to its line-aligned file.""",
    "parallel_separator": """\
separator : str, default " "
    Joins a document's sentences.""",
    "parallel_encoding": """\
encoding : str or None, default None
    Every file's encoding (None: UTF-8).""",
    "returns_parallel": """\
ParallelTexts
    The documents.""",
    "raises_no_language": """\
EmptyInputError
    If no language is requested.""",
    "raises_language_missing": """\
LanguageMismatchError
    If the corpus has no text in a requested language.""",
    "raises_parallel_format": """\
ParallelFormatError
    If an id recurs after other documents or a file has another number of lines than ids.""",
    "aligned_lang": """\
lang : str
    A language of the corpus.""",
    "raises_lang_missing": """\
LanguageMismatchError
    If ``lang`` is not in the corpus.""",
    "returns_canonical_code": """\
str
    The canonical code.""",
    # -- Word-level estimator features (tealeaves.multilingual.drift, tealeaves.multilingual.era)
    "english_words": """\
words : sequence of str
    A topic's English words.""",
    "returns_word_stats": """\
tuple of (float, float, int)
    The mean and population standard deviation of the words' values, and the number of words
    missing.""",
    "raises_empty_words": """\
EmptyInputError
    When ``words`` is empty.""",
    # -- Multilingual measures (tealeaves.multilingual.measures)
    "aligned_reference": """\
reference : AlignedReference, str or os.PathLike
    The aligned reference, or a built-in name or saved folder
    (:func:`as_aligned_reference`).""",
    "multilingual_topics": """\
topics : mapping
    ``{language: [[word, ...] per topic]}`` (:mod:`tealeaves.multilingual.topics`).""",
    "pair_topics": """\
topics : mapping
    ``{language: [[word, ...] per topic]}`` holding ``l1`` and ``l2``.""",
    "pair_l1": """\
l1 : str
    One language.""",
    "pair_l2": """\
l2 : str
    The other.""",
    "npmi_zero": """\
zero : str, default "limit"
    NPMI of present words that never co-occur (:data:`ZERO`).""",
    "aligned_reference_input": """\
reference : AlignedReference, str or os.PathLike
    A reference object, a built-in reference name or a saved aligned reference folder.""",
    "aligned_reference_languages": """\
languages : sequence of str
    The languages the reference must hold.""",
    "returns_aligned_reference": """\
AlignedReference
    The reference to count in.""",
    # -- Gibbs sampler kernels (tealeaves.models._pltm_kernels: the layout of its module docstring)
    "pltm_segments": """\
tokens, seg_start, seg_lang, seg_row : numpy.ndarray
    The segments of the module docstring: word ids (int32), starts (int64), languages and rows.""",
    "pltm_z": """\
z : numpy.ndarray
    Each token's topic (int32, updated in place).""",
    "pltm_counts": """\
n_lk, n_rk : numpy.ndarray
    Language-topic (``L x K``) and row-topic (``R x K``) counts, updated in place.""",
    "pltm_priors": """\
alpha, beta, beta_sum : numpy.ndarray
    The priors: ``alpha_k`` (``K`` values), each language's ``beta_l`` and ``V_l * beta_l``.""",
    # -- Topic models (tealeaves.models and its adapters)
    "fit_corpus": """\
corpus : Corpus
    The training documents.""",
    "transform_corpus": """\
corpus : Corpus
    Documents over the model's vocabulary.""",
    "infer_corpus": """\
corpus : Corpus
    The documents, over the model's vocabulary.""",
    "returns_doc_topic": """\
numpy.ndarray
    The ``D x K`` topic proportions.""",
    "pltm_lang": """\
lang : str
    A language of the model.""",
    "raises_not_corpus": """\
TypeError
    When ``corpus`` is not a :class:`~tealeaves.corpus.Corpus`.""",
    "raises_bad_k": """\
InvalidModelError
    If ``n_components`` is below 1 or above the vocabulary size.""",
    "raises_other_vocabulary": """\
InvalidModelError
    If the corpus's vocabulary is not the model's size.""",
    "topic_file_encoding": """\
encoding : str, optional
    Its text encoding (detected when omitted).""",
    "topic_file_line": """\
line : str
    A line of the file.""",
    "returns_ranked_words": """\
RankedWordsModel
    The topics.""",
    "foreign_file": """\
file : str or os.PathLike, optional
    The file the model was read from, recorded in ``metadata_["source"]``.""",
    "saved_model_path": """\
path : str or os.PathLike
    The file ``model.save(path)`` wrote.""",
    "returns_saved_model": """\
AdaptedModel
    The model, adapted as by the module's ``from_<library>`` function with the same arguments,
    with ``path`` recorded.""",
    "raises_no_saved_model": """\
InputNotFoundError
    If there is no file at ``path``.""",
    "raises_untrained": """\
InvalidModelError
    If the model has not been trained.""",
    "gensim_lda": """\
lda : gensim.models.LdaModel
    A trained gensim LDA model.""",
    "field_text": """\
text : str
    The field.""",
    "field_where": """\
path, line, what
    The file, line number and name of the field, for the message.""",
    # -- Human judgements and their correlation with measures (tealeaves.human)
    "annotator": """\
annotator : str
    The annotator's name.""",
    "human_scores": """\
human : mapping
    Topic -> human score.""",
    "correlation_method": """\
method : {"pearson", "spearman", "kendall"}
    The correlation.""",
    "bootstrap_n_boot": """\
n_boot : int
    Bootstrap resamples.""",
    "bootstrap_seed": """\
seed : int
    Seed of the bootstrap.""",
    "bootstrap_level": """\
level : float
    Confidence level of the interval, in (0, 1).""",
    "bootstrap_unit": """\
bootstrap : {"topics", "annotators", "both"}
    The level resampled.""",
    "raises_option_range": """\
ParameterError
    When an option is out of range.""",
    "llm_signature": """\
llm : mapping, optional
    The language-model annotators behind the human score (the ``llm`` entry of ``tealeaves human
    score``'s report; :func:`~tealeaves.human.tables.load_tables` reads it into ``meta["llm"]``), added to
    the signature (:func:`~tealeaves.human.llm.meta.signed_llm`).""",
    "paired_values": """\
x, y : numpy.ndarray
    Paired values.""",
    "raises_constant": """\
CorrelationError
    When one of the variables is constant.""",
    "item_topic": """\
k : int
    The topic.""",
    "item_model": """\
model : object
    A fitted model with ``topic_word_weights_`` and ``vocabulary_``.""",
    "app_study": """\
study : Study
    The study annotated.""",
    "app_host": """\
host : str
    The address listened on.""",
    "app_port": """\
port : int
    The port (0 picks a free port).""",
    "app_quiet": """\
quiet : bool
    Do not log each request to standard error.""",
    "app_origins": """\
allowed_origins : sequence of str
    More origins that may post judgments (:func:`check_origins`).""",
    "raises_no_choices": """\
EmptyInputError
    When ``choices`` is empty.""",
    # -- Reproductions (tealeaves.reproduce)
    "run_config": """\
config : Config
    The run's settings.""",
    "run_lang": """\
lang : str
    The language paired with English.""",
    "run_result": """\
result : dict
    What :func:`run` returned.""",
    "run_pair": """\
pair : _Pair
    One English-X pair (training tuples, references, dictionary and cached
    models), as :func:`run` builds it.""",
    "run_log": """\
log : callable, optional
    Called with a one-line message after each language pair.""",
    "run_n_estimators": """\
n_estimators : int, default 50
    Boosting rounds of the coherence estimator.""",
    "returns_quick_config": """\
Config
    The reduced settings (the others at their defaults).""",
    "reuters_seed": """\
seed : int, default 0
    scikit-learn's ``random_state``.""",
    "reuters_n_components": """\
n_components : iterable of int, default (5, 10, 20, 40, 80)
    The numbers of topics: whole numbers >= 2, each once (:func:`check_ks`).""",
    "reuters_quick": """\
quick : bool, default False
    Fit with :data:`QUICK_PARAMS` instead of :data:`LDA_PARAMS`.""",
    "reuters_cache_dir": """\
cache_dir : str or pathlib.Path, optional
    The model cache folder; default :func:`default_cache_dir`.""",
    "reuters_use_cache": """\
use_cache : bool, default True
    Read and write fitted models in the cache (False: neither).""",
    "reuters_progress": """\
progress : callable or None, default: print to standard error
    Called with a one-line message before each model is fitted or scored;
    None for silence.""",
    # -- Parameter declarations and options (tealeaves._params, tealeaves._cli_args)
    "param_name": """\
name : str
    The Python parameter name.""",
    # -- Renamed parameters and attributes (tealeaves._params)
    "renamed_old": """\
old : str
    The deprecated name.""",
    "renamed_new": """\
new : str
    The name to use.""",
    "renamed_where": """\
where : str
    The function or class the name belongs to, named in the ``FutureWarning``.""",
    # -- Command-line helpers (tealeaves._cli_options, the command modules)
    "cli_args": """\
args : argparse.Namespace
    The parsed options.""",
    "returns_report_text": """\
str
    The text, ready to print.""",
    "returns_markdown": """\
str
    The Markdown, ready to paste into a page.""",
    # -- Value checks (tealeaves.validation)
    "returns_int_value": """\
int
    The value.""",
    "check_value": """\
value : object
    The value to check.""",
    "check_number": """\
value : object
    The value to check (booleans are refused).""",
    "check_name": """\
name : str
    The parameter's name, for the error message.""",
    "check_allow_str": """\
allow_str : bool, default False
    Accept a numeric string (command-line values).""",
    "check_include_min": """\
include_min : bool, default True
    Whether ``min_value`` itself is allowed.""",
    "arg_name": """\
name : str
    The name in the error message.""",
    "returns_value_str": """\
str
    ``value``.""",
    # -- Reference indexes and coherence (tealeaves.index, tealeaves.coherence.segmentation)
    "index_word_id": """\
word_id : int
    A word id of the index.""",
    "index_file_path": """\
path : str or os.PathLike
    The index file.""",
    "index_checked_path": """\
path : Path
    The index file, for messages.""",
    "index_checked_header": """\
header : mapping
    Its checked header.""",
    "index_arrays": """\
arrays : mapping of str to numpy.ndarray
    Its arrays, by name.""",
    "returns_index_vocabulary": """\
Vocabulary
    The decoded vocabulary (its words distinct).""",
    "raises_index_integrity": """\
IndexIntegrityError
    At the first broken invariant.""",
    "segmentation_name": """\
name : str
    A key of :data:`SEGMENTATIONS`.""",
    "segmentation_k": """\
k : int
    The number of ranked words.""",
    "build_shard_stats": """\
stats : IngestStats
    What was read and skipped.""",
    "build_shard_manifest": """\
manifest : dict
    The shard's manifest entry.""",
    "build_shard_n_tokens": """\
n_tokens : int, default 0
    Tokens indexed.""",
    "raises_counts_memory": """\
ParameterError
    When ``memory`` is below what one document's range needs (the message names the minimum).""",
    # -- Data sets (tealeaves.data)
    "dataset_path": """\
path : str
    A path relative to the data set's folder.""",

}

_PLACEHOLDER = re.compile(r"%\((\w+)\)s")
_SECTIONS = ("Parameters", "Other Parameters", "Returns", "Yields", "Raises", "Attributes")
#: A line of placeholders: its indentation, an optional section title with ": ", the placeholders.
PLACEHOLDER_LINE = re.compile(r"^([ \t]*)((?:(?:" + "|".join(_SECTIONS) + r"): )?)((?:%\(\w+\)s[ \t]*)+)$",
                              re.MULTILINE)


def expand(doc: str | None, table: Mapping[str, str] = DESCRIPTIONS) -> str | None:
    """``doc`` with each placeholder line replaced by the entries it names.

    Parameters
    ----------
    doc : str or None
        A docstring (None, under ``python -OO``, is returned as it is).
    table : mapping of str to str, default :data:`DESCRIPTIONS`
        Key -> the entry it stands for.

    Returns
    -------
    str or None
        The docstring with every line made only of ``%(key)s`` placeholders (after an optional
        section title and a colon) replaced by those keys' entries (after the section's title and
        underline), each line indented as the placeholder was.

    Raises
    ------
    KeyError
        If a placeholder names no entry of ``table`` (a mistake in tealeaves' own source).

    Examples
    --------
    >>> table = {"a": "a : int\\n    One.", "b": "b : str"}
    >>> print(expand("Parameters\\n----------\\n    %(a)s %(b)s", table))
    Parameters
    ----------
        a : int
            One.
        b : str
    """
    if doc is None or "%(" not in doc:
        return doc

    def entries(match: re.Match) -> str:
        indent, title = match.group(1), match.group(2)[:-2]
        lines = [indent + title, indent + "-" * len(title)] if title else []
        for key in _PLACEHOLDER.findall(match.group(3)):
            if key not in table:
                raise KeyError(f"no shared description {key!r} in tealeaves._docs.DESCRIPTIONS")
            lines += [indent + line if line else line for line in table[key].splitlines()]
        return "\n".join(lines)

    return PLACEHOLDER_LINE.sub(entries, doc)


def shared_doc(obj: T) -> T:
    """Decorator: expand the placeholders of ``obj``'s docstring (:func:`expand`) in place.

    Put it directly above ``def`` or ``class`` (below any other decorator), so that a wrapper
    copies the expanded text.

    Parameters
    ----------
    obj : function or class
        What the decorated statement defines.

    Returns
    -------
    function or class
        ``obj`` itself, its ``__doc__`` expanded.
    """
    obj.__doc__ = expand(obj.__doc__)
    return obj
