#!/usr/bin/env bash
# Set up a fresh virtual environment and reproduce the article's tables: the five-term perplexity
# example, the Reuters K sweep (document completion, scikit-learn's bound, baselines) and its
# coherence column (mean NPMI by K, LSI at 20). Reads Reuters-21578 from $TEALEAVES_DATA when set;
# otherwise the first command that needs it downloads it from the UCI KDD archive into the user
# cache, announced and verified by SHA-256 (docs/data.md). Extra arguments go to
# `tealeaves reproduce reuters` (e.g. --format json).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e .
.venv/bin/tealeaves reproduce five-term
.venv/bin/tealeaves reproduce reuters -k 5 10 20 40 80 "$@"
.venv/bin/tealeaves reproduce reuters-coherence -k 5 10 20 40 80
