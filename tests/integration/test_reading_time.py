"""Reading a mail costs time linear in its text (issue 41, point 1), whatever the text.

One long line of one kind of character (letters, '>', spaces, '@', dots, digits, mixed scripts, pieces of
addresses and attributions), with no line break at all, goes through what ``pbem mail explain`` runs and the
worker runs on a mail: ``screening.explain``, a dry run on a real game. A pattern that tries every position of
a run ('\\S+@' on a line without '@': issue 41's hour for 1 MB) costs the square of the length; then eight times
the text costs some 64 times the CPU. The test allows 16: linear reading passes on a busy machine, a square
does not. CPU time (``time.process_time``), never wall time. One database: the reading is the same on both.
"""

from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.services.mail_in.screening import explain
from pbem.services.table.service import GameService
from pbem.store.db import make_engine

ANN = "ann@example.org"
GAME = "game@pbem.example"
SIZES = (15_625, 125_000, 1_000_000)  # characters: 10^4 to 10^6, each eight times the one before
RATIO = 16  # at most this much more CPU for eight times the text (linear: about 8; a square: 64)
RETRIES = 3  # a size whose ratio is over RATIO is read this many times more, and the least time counts
FLOOR = 0.01  # seconds: a shorter time is measured as this, so that a fixed cost does not make a ratio
# Runs of each kind of character; a run is repeated up to the size wanted.
RUNS = ["A", ">", " ", "@", ".", "1", "aЖ語ü ", "hi all ", "a@b.", "<a@b ", "1.", "1 (", "On 10:00 <a@b.c> wrote: ",
        "-", "_", ":", "Cheers, ", "bid brown 4 6 ", "Ann\u00a0", "\t"]


def body(run: str, size: int, prefix: str) -> str:
    return prefix + (run * (size // len(run) + 1))[:size]


def as_mail(text: str) -> bytes:
    """Ann's reply with ``text`` as its body, sent as it is (8bit): what a client or a forger may send."""
    return (f"From: Ann <{ANN}>\r\nTo: {GAME}\r\nSubject: Re: [Fifth Avenue #1] Ann, Bob, Cy\r\n"
            "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n"
            f"{text}\r\n").encode("utf-8", "surrogatepass")


@pytest.fixture(scope="module")
def games(tmp_path_factory, sqlite_template) -> GameService:
    import shutil

    path = tmp_path_factory.mktemp("reading") / "pbem.sqlite3"
    shutil.copy(sqlite_template, path)
    service = GameService(make_engine(f"sqlite:///{path}"))
    service.create_game("fifth-avenue", [("Ann", ANN), ("Bob", "bob@example.org"), ("Cy", "cy@example.org")], seed=41)
    return service


def cpu_seconds(games: GameService, raw: bytes) -> float:
    start = time.process_time()
    explain(raw, games, game_address=GAME)
    return time.process_time() - start


def assert_linear(games: GameService, run: str, prefix: str, sizes: tuple[int, ...]) -> None:
    """Each size eight times the one before costs less than RATIO times its CPU; a step at a time, so that a
    square fails at the second size, not after an hour at the last."""
    def cost(size: int, tries: int = 1) -> float:
        return min(cpu_seconds(games, as_mail(body(run, size, prefix))) for _ in range(tries))

    small = cost(sizes[0])
    for n, eight_n in zip(sizes, sizes[1:]):
        large = cost(eight_n)
        if large / max(small, FLOOR) >= RATIO:
            # One reading may carry a pause that is not its own (a collection of the garbage of earlier tests,
            # another process in the CPU's caches): 0.055, 0.133 and 0.060 s for the same 62,500 characters one
            # after the other. It never makes a reading cheaper, so the least of more tries is the reading's own
            # cost; a square costs 64 times in every try.
            small, large = min(small, cost(n, RETRIES)), min(large, cost(eight_n, RETRIES))
        assert large / max(small, FLOOR) < RATIO, f"{run!r}: {n} characters {small:.3f} s, {eight_n}: {large:.3f} s"
        small = large


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(run=st.sampled_from(RUNS) | st.text(min_size=1, max_size=6).filter(lambda t: t.strip("\r\n")),
       prefix=st.sampled_from(["", "A", "board\n", "Hi all,\n"]))
def test_reading_costs_time_linear_in_the_text(games: GameService, run: str, prefix: str) -> None:
    assert_linear(games, run, prefix, SIZES)


@pytest.mark.parametrize("run", RUNS)
def test_every_kind_of_run_is_read_in_linear_time(games: GameService, run: str) -> None:
    # The kinds of the issue each once, whatever hypothesis draws above, on one line after a letter.
    assert_linear(games, run, "A", (7_812, 62_500, 500_000))
