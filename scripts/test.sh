#!/usr/bin/env bash
# Set up a fresh virtual environment with the test dependencies, lint, build the API reference in
# strict mode (a broken reference fails), and run the test suite.
# Reads real data from $TEALEAVES_DATA (tests that need a missing file are skipped, saying which).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[test,docs]'
.venv/bin/ruff check src tests benchmarks
mkdir -p build
if ! .venv/bin/mkdocs build --strict > build/mkdocs.log 2>&1; then
  cat build/mkdocs.log
  echo "the documentation does not build in strict mode (see above)" >&2
  exit 1
fi
set +e
.venv/bin/python -m pytest -n 2 --dist loadgroup "$@"
status=$?
set -e
# pytest exits 5 when it collected no test: that is a failure here, not a pass.
exit $status
