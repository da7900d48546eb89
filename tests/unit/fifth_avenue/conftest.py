"""Fixtures for the Fifth Avenue rule tests; the helpers live in fa_helpers.py."""

from __future__ import annotations

import pytest

from fa_helpers import clear_plots, started


@pytest.fixture
def game4():
    """A 4-player game past the placement, with empty districts; seat 0 chooses an action."""
    s = started(4, seed=11)
    clear_plots(s)
    return s
