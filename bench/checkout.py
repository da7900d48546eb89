"""Puts this checkout's root on sys.path, for the harnesses of ``pbem_testing/`` (real mail servers, workers,
archive games). They live beside ``pbem/``, are never installed, and a script started as ``python bench/x.py``
has bench/ on its path, not the root. Appended, so ``pbem`` itself still comes from wherever it is installed."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.append(str(ROOT))
