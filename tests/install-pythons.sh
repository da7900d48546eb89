#!/usr/bin/env bash
# Fills the local wheelhouses the install tests take pbem's dependencies from, so that they never download:
# for every Python of pyproject.toml's requires-python found here (pyenv's versions, python3.N on PATH) the
# versions uv.lock pins, and for the oldest of them the lowest versions pyproject.toml allows
# (pbem_testing/pythons.py says where they go). Runs after `pip install -e '.[test]'`, which brings uv.
# Downloads from PyPI only what is missing: nothing when every wheelhouse is there.
set -euo pipefail
cd "$(dirname "$0")/.."
exec python -m pbem_testing.pythons
