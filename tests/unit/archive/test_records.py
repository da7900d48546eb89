"""The archive's records keep between builds: a game's summary round-trips through its JSON form."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from pbem.archive.records import ArchivedPlayer, GameSummary, summary_from_dict, summary_to_dict


def test_a_summary_reads_back_as_it_was_written() -> None:
    players = (ArchivedPlayer(0, "Ann", "a1b2c3d4e5f6", 31, winner=True),
               ArchivedPlayer(1, "Player 0f9e8d", "0f9e8d7c6b5a", 28, hidden=True))
    running = GameSummary(7, "fifth-avenue", "Fifth Avenue", "standard", "active", players,
                          datetime(2026, 11, 1, 9, 30, tzinfo=UTC), None, ("Ann",), 41)
    finished = GameSummary(8, "manhattan", "Manhattan", "standard", "finished", players,
                           datetime(2026, 11, 1, tzinfo=UTC), datetime(2026, 11, 20, 18, 5, tzinfo=UTC), (), 230)
    for summary in (running, finished):
        again = summary_from_dict(json.loads(json.dumps(summary_to_dict(summary))))
        assert again == summary and again.winners == summary.winners
