#!/usr/bin/env bash
# Set up a fresh virtual environment and reproduce the article's tables
# (the five-term perplexity example and the Reuters K sweep). Needs $TEALEAVES_DATA.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e .
.venv/bin/tealeaves reproduce five-term
.venv/bin/tealeaves reproduce reuters --k 5 10 20 40 80 "$@"
