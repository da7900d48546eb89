"""Issue 47, point 6: the answer to 'games' and a game's first mail say about how long the game takes at a few reads
a day: from bench/days.py's model until the server has finished games of that kind and size, then from theirs."""

from __future__ import annotations

from datetime import timedelta

from sqlmodel import Session, select

from pbem.services.common.game_length import FROM_HISTORY, duration_words, length_words, modelled_days
from pbem.services.table.service import GameService
from pbem.store.models import Game, GameStatus, OutboxMail

PLAYERS = [("Ann", "ann@example.org"), ("Bob", "bob@example.org"), ("Cy", "cy@example.org")]


def test_the_words_of_a_length() -> None:
    assert [duration_words(d) for d in (1, 3.4, 13.6, 46.3, 90)] == ["a day", "3 days", "14 days", "7 weeks",
                                                                     "3 months"]
    assert modelled_days("manhattan", 6) == 2 * modelled_days("manhattan", 3)


def test_the_first_mail_says_how_long_and_finished_games_replace_the_model(game_service: GameService) -> None:
    games = game_service
    game_id = games.create_game("fifth-avenue", PLAYERS, seed=1)
    with Session(games.engine) as s:
        first = s.exec(select(OutboxMail).where(OutboxMail.game_id == game_id)).first()
        assert "A game like this takes about 7 weeks at 3 reads a day." in " ".join(first.text_body.split())
        assert length_words(s, "fifth-avenue", 3) == "about 7 weeks at 3 reads a day"
    # Games that finished here in 10 days each: their median, once there are enough of them.
    for n in range(FROM_HISTORY):
        done = games.create_game("fifth-avenue", PLAYERS, seed=10 + n)
        with Session(games.engine) as s:
            game = s.get(Game, done)
            game.status, game.updated_at = GameStatus.FINISHED, game.created_at + timedelta(days=10)
            s.add(game)
            s.commit()
            found = length_words(s, "fifth-avenue", 3)
        assert found == ("about 7 weeks at 3 reads a day" if n < FROM_HISTORY - 1 else
                         "about 10 days at 3 reads a day (as games here took)"), n
    with Session(games.engine) as s:
        assert length_words(s, "fifth-avenue", 4) == "about 2 months at 3 reads a day"  # not the same size
