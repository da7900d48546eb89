"""The players' ratings and records on the archive's web site, from the games' summaries.

A rating is openskill's Plackett-Luce model (a Bayesian rating for games of any number of players): every
player starts at the model's default and is rated after each finished game they played in, the games taken
in the order they ended. A game ranks its players as its result does: the winners first (a tie the engine
broke is no tie), then the others by score, equal scores sharing a rank. Only the seats count: the robot of a
two-player Fifth Avenue bids but is no player (it is never a seat, so it is never in a summary). Games that
did not finish (running, aborted) rate nobody. A seat that changed hands counts for each of its holders by their
share of its commands (docs/rules.md, D47; ``rate``), except for a player who resigned it: resigning concedes,
so they are rated as last of the game with the whole change, and it counts as a game played and lost.

openskill is imported when a rating is first asked for: the command line starts without it.
"""

from __future__ import annotations

from collections.abc import Iterable
from statistics import mean
from typing import Any

from .records import ArchivedPlayer, GameSummary, PlayerRecord, Rating


def rate(summaries: Iterable[GameSummary]) -> dict[str, tuple[Rating, ...]]:
    """Each player's rating after every finished game they played in, oldest first (player key -> ratings).

    A seat that changed hands (docs/rules.md, D47) rates each of its holders who played a command of it: as if
    they had held it alone against the other seats' main holders (who played most of theirs), their rating
    moved by their share of the seat's commands. A holder who resigned the seat is rated as if they had held it
    alone and come last (below every seat), with the whole change: resigning a lost game must not cost less
    than playing it out (D47)."""
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
        places = ranks(players)
        main = [max(shares(p).items(), key=lambda x: x[1])[0] for p in players]
        quit_ = {seat: [h.key for h in p.holdings() if h.resigned] for seat, p in enumerate(players)}
        keys = [key for seat, p in enumerate(players) for key in (*shares(p), *quit_[seat])]
        before = {key: current.get(key) or model.rating(name=key) for key in keys}
        rated = dict(zip(main, (team[0] for team in model.rate([[before[key]] for key in main], ranks=places))))
        for seat, player in enumerate(players):
            for key, share in shares(player).items():
                if key not in rated:  # one who held the seat for part of the game, against the main holders
                    teams = [[before[key] if other == seat else before[main[other]]] for other in range(len(players))]
                    rated[key] = model.rate(teams, ranks=places)[seat][0]
                new = rated[key]
                old = before[key]
                mu, sigma = old.mu + share * (new.mu - old.mu), old.sigma + share * (new.sigma - old.sigma)
                current[key] = model.rating(mu=mu, sigma=sigma, name=key)
                ratings.setdefault(key, []).append(Rating(game.id, game.ended_at, mu, sigma))
        last = max(places) + 1
        for seat, resigned in quit_.items():
            for key in dict.fromkeys(resigned):
                teams = [[before[key] if other == seat else before[main[other]]] for other in range(len(players))]
                new = model.rate(teams, ranks=[last if other == seat else places[other]
                                               for other in range(len(players))])[seat][0]
                current[key] = model.rating(mu=new.mu, sigma=new.sigma, name=key)
                ratings.setdefault(key, []).append(Rating(game.id, game.ended_at, new.mu, new.sigma))
    return {key: tuple(history) for key, history in ratings.items()}


def shares(player: ArchivedPlayer) -> dict[str, float]:
    """Who is rated for a seat by their share of its commands: its holders who played any and did not resign it
    (its player alone, with 1.0, when it never changed hands), oldest first. When none of those is left (the
    game ended before the robot that took a resigned seat moved), its last holder, with 1.0."""
    held = {h.key: player.share(h.key) for h in player.holdings() if not player.resigned(h.key)}
    return {key: share for key, share in held.items() if share > 0} or {player.holdings()[-1].key: 1.0}


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
            for key in dict.fromkeys(h.key for h in player.holdings()):  # whoever held a seat has the game
                played.setdefault(key, []).append((game, player))
    records = []
    for key, entries in played.items():
        entries.sort(key=lambda entry: (entry[0].started_at, entry[0].id), reverse=True)
        # A game counts in the record of those who played a command of the seat (D47), the seat's result theirs;
        # a player who resigned it played and lost it, and the score the robot made after them is not theirs.
        finished = [player for game, player in entries if game.finished and key in shares(player)]
        resigned = [player for game, player in entries if game.finished and player.resigned(key)
                    and key not in shares(player)]
        scores = [p.score for p in finished if p.score is not None]
        records.append(PlayerRecord(
            key=key, name=entries[0][1].held_by(key)[0].name, games=tuple(game for game, _ in entries),
            played=len(finished) + len(resigned),
            won=sum(1 for p in finished if p.winner), average_score=mean(scores) if scores else None,
            ratings=ratings.get(key, ())))
    return sorted(records, key=lambda r: (r.name.lower(), r.key))


__all__ = ["player_records", "ranks", "rate"]
