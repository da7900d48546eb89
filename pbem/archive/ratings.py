"""The players' ratings and records on the archive's web site, from the games' summaries.

A rating is openskill's Plackett-Luce model (a Bayesian rating for games of any number of players): every
player starts at the model's default and is rated after each finished game they played in, the games taken
in the order they ended. A game ranks its players as its result does: the winners first (a tie the engine
broke is no tie), then the others by score, equal scores sharing a rank. Only the seats count: the robot of a
two-player Fifth Avenue bids but is no player (it is never a seat, so it is never in a summary). Games that
did not finish (running, aborted) rate nobody.

openskill is imported when a rating is first asked for: the command line starts without it.
"""

from __future__ import annotations

from collections.abc import Iterable
from statistics import mean
from typing import Any

from .records import ArchivedPlayer, GameSummary, PlayerRecord, Rating


def rate(summaries: Iterable[GameSummary]) -> dict[str, tuple[Rating, ...]]:
    """Each player's rating after every finished game they played in, oldest first (player key -> ratings)."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    current: dict[str, Any] = {}
    ratings: dict[str, list[Rating]] = {}
    finished = sorted((s for s in summaries if s.finished and s.ended_at is not None),
                      key=lambda s: (s.ended_at, s.id))
    for game in finished:
        players = list(game.players)
        if len(players) < 2:
            continue
        teams = [[current.get(p.key) or model.rating(name=p.key)] for p in players]
        for player, (rated,) in zip(players, model.rate(teams, ranks=ranks(players))):
            current[player.key] = rated
            ratings.setdefault(player.key, []).append(Rating(game.id, game.ended_at, rated.mu, rated.sigma))
    return {key: tuple(history) for key, history in ratings.items()}


def ranks(players: list[ArchivedPlayer]) -> list[int]:
    """Each player's place in a finished game (1 is first; equal places for a tie nothing broke)."""
    winners = sum(1 for p in players if p.winner)

    def score(p: ArchivedPlayer) -> float:
        return float("-inf") if p.score is None else p.score

    return [1 if p.winner else 1 + winners + sum(1 for q in players if not q.winner and score(q) > score(p))
            for p in players]


def player_records(summaries: Iterable[GameSummary]) -> list[PlayerRecord]:
    """Every player of the archived games, with their games (newest first), results and ratings; by name."""
    games = list(summaries)
    ratings = rate(games)
    played: dict[str, list[tuple[GameSummary, ArchivedPlayer]]] = {}
    for game in games:
        for player in game.players:
            played.setdefault(player.key, []).append((game, player))
    records = []
    for key, entries in played.items():
        entries.sort(key=lambda entry: (entry[0].started_at, entry[0].id), reverse=True)
        finished = [player for game, player in entries if game.finished]
        scores = [p.score for p in finished if p.score is not None]
        records.append(PlayerRecord(
            key=key, name=entries[0][1].name, games=tuple(game for game, _ in entries), played=len(finished),
            won=sum(1 for p in finished if p.winner), average_score=mean(scores) if scores else None,
            ratings=ratings.get(key, ())))
    return sorted(records, key=lambda r: (r.name.lower(), r.key))


__all__ = ["player_records", "ranks", "rate"]
