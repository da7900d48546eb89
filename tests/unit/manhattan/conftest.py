"""Fixtures for the Manhattan rule tests; the helpers live in mh_helpers.py."""

from __future__ import annotations

import pytest
from mh_helpers import building, clear


@pytest.fixture
def game4():
    """A 4-player game in round 1 with its parts chosen and empty cities; seat 0 (blue) plays."""
    s = building(4, seed=11)
    clear(s)
    return s


@pytest.fixture
def game2():
    """A 2-player game in round 1 with its parts chosen and empty cities; seat 0 (blue, green) plays."""
    s = building(2, seed=5)
    clear(s)
    return s
