"""Two real processes submitting to the same game at once are serialised.

Each process reads the legal commands, then submits one, as fast as it can.
Without the game lock both would number their event alike (a unique-key
error) or apply a command to a stale state. With it, every submission either
applies to the current state or is refused as illegal, the event numbers run
1, 2, 3, ... and the stored state equals a replay of the stored events.
"""

from __future__ import annotations

import multiprocessing as mp

from pbem.games.fifth_avenue import new_game
from pbem.services.table.service import GameService
from pbem.services.common.errors import ServiceError
from pbem.store.db import make_engine
from pbem_testing.waiting import HANG

ROUNDS = 25


def _worker(url: str, game_id: int, barrier, results) -> None:  # type: ignore[no-untyped-def]
    service = GameService(make_engine(url))
    applied = refused = 0
    barrier.wait()
    for _ in range(ROUNDS):
        info, legal = service.legal(game_id)
        if not legal:
            break
        (email, commands), = legal.items()
        try:
            service.submit(game_id, email, commands[0])
            applied += 1
        except ServiceError:
            refused += 1
    results.put((applied, refused))


def run_at_once(target, count: int, *args) -> list:  # type: ignore[no-untyped-def]
    """Start ``count`` real processes running ``target(*args, barrier, results)`` together; their results."""
    ctx = mp.get_context("spawn")
    barrier = ctx.Barrier(count)
    results = ctx.Queue()
    processes = [ctx.Process(target=target, args=(*args, barrier, results)) for _ in range(count)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=HANG)
        assert process.exitcode == 0, "a process crashed (see its traceback above)"
    return [results.get(timeout=HANG) for _ in processes]


def test_two_processes_submitting_at_once_are_serialised(database_url: str) -> None:
    service = GameService(make_engine(database_url))
    game_id = service.create_game("fifth-avenue", [("Ann", "ann@example.org"), ("Bob", "bob@example.org")], seed=21)
    outcomes = run_at_once(_worker, 2, database_url, game_id)
    applied = sum(a for a, _ in outcomes)
    assert applied >= ROUNDS  # both made progress between them

    history = service.history(game_id)
    assert [h.seq for h in history] == list(range(1, len(history) + 1))
    commands = [h for h in history if h.kind == "command"]
    assert len(commands) == applied
    replay = new_game(2, 21)
    for h in commands:
        replay.apply_command(h.seat, h.data["command"])
    assert service.get(game_id).state.to_json() == replay.to_json()


def _claimer(url: str, barrier, results) -> None:  # type: ignore[no-untyped-def]
    from pbem.adapters.outbox_sender import claim
    from pbem.store.models import utcnow

    engine = make_engine(url)
    taken: list[int] = []
    barrier.wait()
    while batch := claim(engine, utcnow(), limit=3):
        taken += [mail.id for mail in batch]
    results.put(taken)


def test_several_workers_claiming_the_outbox_never_take_one_mail_twice(database_url: str) -> None:
    service = GameService(make_engine(database_url))
    for seed in range(20):
        service.create_game("fifth-avenue", [("Ann", "ann@example.org"), ("Bob", "bob@example.org")], seed=seed)
    taken = run_at_once(_claimer, 3, database_url)
    every = [mail for batch in taken for mail in batch]
    assert sorted(every) == list(range(1, 41))  # each of the 40 opening mails claimed exactly once
