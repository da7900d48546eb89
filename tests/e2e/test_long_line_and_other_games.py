"""While a seated player's mail of one long line is read, a player of another game is answered (issue 41, point 2).

Through a real ``pbem worker`` on Dovecot, on both databases (``pbem_testing.other_game``): Ann's Reply holds the
worst one-line text the limits let through, Dee's ``board`` (game 2) lands right behind it. The worker reads one
mail after another, so Dee waits for Ann's mail: that wait is bounded by what one mail may cost to read (about a
second of CPU, bench/hostile.py), and her answer comes. How long it takes is measured by bench/other_game.py, never
asserted here (the test waits for the answer, not for the clock).
"""

from __future__ import annotations

import pytest

from pbem_testing.other_game import LONG_LINES, TwoGames

KINDS = ["'A' and 700,000 '>'", "330,000 x 'A,'"]  # the line; the costliest to read before the word budget


@pytest.mark.parametrize("kind", KINDS)
def test_another_games_player_is_answered_while_a_long_line_is_read(kind, database_url, dovecot, smtp_server,
                                                                     mailboxes, tmp_path) -> None:
    with TwoGames(database_url, dovecot, smtp_server.port, tmp_path) as two:
        played = two.play(LONG_LINES[kind])
        log = (tmp_path / "worker.log").read_text(errors="replace")
    assert two.notes == [], (two.notes, log[-3000:])
    assert "Board for Dee" in played["dee"], played["dee"][:500]  # her board, answered by the same worker
    # Ann is answered too, and nothing of her line is applied ('A>>>...' reads as action A, out of turn)
    assert "found no command" in played["ann"] or "Nothing of your mail was applied" in played["ann"], \
        played["ann"][:500]
    assert len(played["ann"]) < 20_000  # the long line is not sent back whole
    print(f"{kind}: Dee answered {played['latency']:.2f} s after both mails came; the worker spent "
          f"{played['worker_cpu']:.2f} s of CPU meanwhile")
