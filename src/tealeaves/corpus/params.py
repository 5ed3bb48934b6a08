"""The preprocessing settings of :class:`tealeaves.corpus.Preprocessor`, declared once
(:class:`tealeaves._params.Param`) for the Python API and the command line's preprocessing
options (``tealeaves._cli_options.add_preprocessing``: ``sweep``, ``evaluate``, ``index build``).

This module imports no numerical library, so ``tealeaves --help`` stays light.
"""

from __future__ import annotations

from tealeaves._params import Param, declare

#: The stop-word lists known by name (``stop_words="english"``: scikit-learn's 318 words).  On the
#: command line ``none`` means no stop words (Python: ``stop_words=None``).
STOP_LISTS = ("english",)
#: The names the command line accepts for ``stop_words`` (a known list, or ``none``).
STOP_NAMES = (*STOP_LISTS, "none")

#: Regular expression whose matches (its group, when it has one) are the tokens.
TOKEN_PATTERN = Param("token_pattern", "str",
                      help="regular expression whose matches are the tokens (its one group, when it has "
                           "one); default: words of two or more letters, with their combining marks")
#: Lowercase the text before matching (the command line's switch turns it off).
LOWERCASE = Param("lowercase", "bool", flag_name="--no-lowercase",
                  help="keep the text's case (default: lowercase it before matching)")
#: Stop words: a list by name, or the words (the command line: a name or a file of one word per line).
STOP_WORDS = Param("stop_words", "str",
                   help="stop words: a list by name (english: scikit-learn's 318 words; none) or a file "
                        "of one word per line (default english)")
#: Keep words in at least this many training documents (an int) or this share of them (a float).
MIN_DF = Param("min_df", "count_or_share",
               help="keep words in at least this many documents (a whole number) or this share of them "
                    "(a number in (0, 1]) (default 1)")
#: Keep words in at most this many training documents (an int) or this share of them (a float).
MAX_DF = Param("max_df", "count_or_share",
               help="keep words in at most this many documents (a whole number) or this share of them "
                    "(a number in (0, 1]) (default 1.0: no limit)")
#: Keep only this many words, the most frequent in total count (after the document-frequency bounds).
MAX_FEATURES = Param("max_features", "int", min_value=1,
                     help="keep only this many words, those of largest total count (ties by word), after "
                          "the document-frequency bounds (default: no cap)")
#: Drop tokens shorter than this many characters (code points).
MIN_LENGTH = Param("min_length", "int", min_value=1,
                   help="drop tokens of fewer characters (default 1: keep every match; the default "
                        "pattern's words have at least 2)")

#: Every declaration, by Python name.
PARAMS = declare(TOKEN_PATTERN, LOWERCASE, STOP_WORDS, MIN_DF, MAX_DF, MAX_FEATURES, MIN_LENGTH)
