"""Play whole games with random players, for smoke tests, statistics and benchmarks.

A random player picks uniformly among the legal commands of whoever must act
(policy ``uniform``). Because business placements and bids outnumber every
other command, that player rarely scores or stops a district; the ``by-kind``
policy first picks a kind of command uniformly (bid, pass, move, ...) and then
one of that kind, which plays every rule often.
Game ``i`` of a run with seed ``S`` uses engine seed ``S + i`` and a policy RNG
seeded the same way, so every game of a run can be replayed on its own.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Callable

from ...games import get_game
from ...games.rng import Rng


@dataclass
class SimResult:
    game: int
    seed: int
    players: int
    winners: list[int]
    scores: list[int]
    commands: int
    ended_by: str
    commands_log: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        if not self.commands_log:
            data.pop("commands_log")
        return data


POLICIES = ("uniform", "by-kind")


def choose(actions: list[Any], rng: Rng, policy: str) -> Any:
    if policy == "uniform":
        return actions[rng.below(len(actions))]
    if policy == "by-kind":
        kinds: dict[str, list[Any]] = {}
        for action in actions:
            kinds.setdefault(type(action).__name__, []).append(action)
        group = kinds[sorted(kinds)[rng.below(len(kinds))]]
        return group[rng.below(len(group))]
    raise ValueError(f"unknown policy {policy!r}; use one of {', '.join(POLICIES)}")


def play_random_game(
    game: str,
    players: int,
    seed: int,
    *,
    policy: str = "uniform",
    keep_log: bool = False,
    max_commands: int = 100_000,
    **options: Any,
) -> tuple[Any, list[str]]:
    """Play one game to the end; returns the final state and the commands played."""
    engine = get_game(game)
    state = engine.new_game(players=players, seed=seed, **options)
    rng = Rng(seed ^ 0x5EED)
    log: list[str] = []
    while not state.is_terminal():
        if state.moves >= max_commands:
            raise RuntimeError(f"game with seed {seed} did not end after {max_commands} commands")
        action = choose(state.legal_actions(), rng, policy)
        if keep_log:
            log.append(f"{state.current_player()}: {action}")
        state.apply_action(state.current_player(), action)
    return state, log


def simulate(
    game: str,
    players: int,
    games: int,
    seed: int,
    *,
    policy: str = "uniform",
    keep_log: bool = False,
    on_game_done: Callable[[SimResult], None] | None = None,
    **options: Any,
) -> list[SimResult]:
    engine = get_game(game)
    if players not in engine.PLAYERS:
        raise ValueError(f"{engine.TITLE} is for {', '.join(map(str, engine.PLAYERS))} players, not {players}")
    results = []
    for i in range(games):
        state, log = play_random_game(game, players, seed + i, policy=policy, keep_log=keep_log, **options)
        result = SimResult(
            game=i + 1,
            seed=seed + i,
            players=players,
            winners=list(state.result["winners"]),
            scores=list(state.scores),
            commands=state.moves,
            ended_by=state.result["reason"],
            commands_log=log,
        )
        results.append(result)
        if on_game_done:
            on_game_done(result)
    return results
