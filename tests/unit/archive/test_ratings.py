"""The archive's ratings and player records (pbem.archive.ratings), from made-up summaries: no database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from pbem.archive.ratings import player_records, ranks, rate
from pbem.archive.records import ArchivedPlayer, GameSummary

START = datetime(2026, 3, 1, tzinfo=UTC)


def game(game_id: int, results: dict[str, int], *, winners: tuple[str, ...] | None = None, day: int = 0,
         status: str = "finished", kind: str = "manhattan") -> GameSummary:
    """A game of the players named in ``results`` (name: score), in that seat order; the winners are those
    with the best score unless named. A player's key is their name in lower case."""
    best = max(results.values())
    winners = winners if winners is not None else tuple(n for n, s in results.items() if s == best)
    finished = status == "finished"
    return GameSummary(
        id=game_id, kind=kind, title=kind.title(), variant="standard", status=status,
        players=tuple(ArchivedPlayer(seat, name, name.lower(), score, winner=finished and name in winners)
                      for seat, (name, score) in enumerate(results.items())),
        started_at=START + timedelta(days=day), ended_at=START + timedelta(days=day, hours=5) if finished else None,
        to_act=(), last_seq=100)


def current(ratings, key: str) -> float:
    return ratings[key][-1].ordinal


def skill(ratings, key: str) -> tuple[float, float]:
    return ratings[key][-1].mu, ratings[key][-1].sigma


def test_winners_rise_and_losers_fall() -> None:
    ratings = rate([game(1, {"Ann": 50, "Bob": 40, "Cy": 30})])
    first = {key: history[0] for key, history in ratings.items()}
    assert first["ann"].mu > 25 > first["cy"].mu
    assert first["ann"].mu > first["bob"].mu > first["cy"].mu
    assert all(r.sigma < 25 / 3 for r in first.values())  # a game teaches something of everybody
    assert first["ann"].game_id == 1 and first["ann"].when == START + timedelta(hours=5)


def test_a_tie_nothing_broke_is_shared_and_a_broken_one_is_not() -> None:
    shared = rate([game(1, {"Ann": 40, "Bob": 40, "Cy": 30})])
    assert skill(shared, "ann") == pytest.approx(skill(shared, "bob"))
    broken = rate([game(1, {"Ann": 40, "Bob": 40, "Cy": 30}, winners=("Bob",))])
    assert broken["bob"][0].mu > broken["ann"][0].mu > broken["cy"][0].mu
    losers_tied = rate([game(1, {"Ann": 50, "Bob": 30, "Cy": 30})])
    assert skill(losers_tied, "bob") == pytest.approx(skill(losers_tied, "cy"))


def test_places_follow_the_result() -> None:
    players = game(1, {"Ann": 40, "Bob": 40, "Cy": 30, "Dee": 30}, winners=("Bob",)).players
    assert ranks(list(players)) == [2, 1, 3, 3]
    assert ranks(list(game(1, {"Ann": 40, "Bob": 40, "Cy": 10}).players)) == [1, 1, 3]


def test_the_order_of_the_games_matters_and_is_the_order_they_ended() -> None:
    ann_first = game(1, {"Ann": 50, "Bob": 40}, day=0)
    bob_later = game(2, {"Ann": 40, "Bob": 50}, day=1)
    bob_first = game(2, {"Ann": 40, "Bob": 50}, day=0)
    ann_later = game(1, {"Ann": 50, "Bob": 40}, day=1)
    one, other = rate([bob_later, ann_first]), rate([ann_later, bob_first])  # given in any order
    assert [r.game_id for r in one["ann"]] == [1, 2] and [r.game_id for r in other["ann"]] == [2, 1]
    assert current(one, "bob") > current(one, "ann")  # the latest result counts most
    assert current(other, "ann") > current(other, "bob")


def test_only_finished_games_rate_and_the_robot_is_no_player() -> None:
    running = game(1, {"Ann": 50, "Bob": 10}, status="active")
    aborted = game(2, {"Ann": 50, "Cy": 10}, status="aborted")
    two_player = game(3, {"Dee": 30, "Eve": 20}, kind="fifth-avenue")  # the robot bid in it, and is no seat
    ratings = rate([running, aborted, two_player])
    assert set(ratings) == {"dee", "eve"}
    alone = rate([game(4, {"Dee": 30, "Eve": 20}, kind="manhattan")])
    assert skill(ratings, "dee") == pytest.approx(skill(alone, "dee"))  # rated as a game of two


def test_player_records() -> None:
    games = [game(1, {"Ann": 50, "Bob": 40}, day=0), game(2, {"Ann": 20, "Cy": 30}, day=1),
             game(3, {"Ann": 10, "Bob": 20}, day=2, status="active")]
    records = {r.key: r for r in player_records(games)}
    ann = records["ann"]
    assert [g.id for g in ann.games] == [3, 2, 1]  # newest first, the running game too
    assert (ann.played, ann.won, ann.average_score) == (2, 1, 35)
    assert [r.game_id for r in ann.ratings] == [1, 2]
    assert (records["cy"].played, records["cy"].won, records["cy"].average_score) == (1, 1, 30)
    assert [r.name for r in player_records(games)] == ["Ann", "Bob", "Cy"]
    nobody_finished = player_records([game(4, {"Dee": 5, "Eve": 6}, status="active")])
    assert all(r.played == 0 and r.average_score is None and r.ratings == () for r in nobody_finished)
