"""Issue 35, point 11: the details of a game's page in the archive, from made-up records (no database).

- The status line keeps a space between its sentences ("waiting for Cy. Started ...", not "Cy.Started").
- The count of steps the page gives is the count the stepper ends at: step 0 is the start, steps 1 to N the
  events, and the page says N events, as the stepper says "Step N of N".
- The score chart draws what happened: a score holds until the step that changed it (a staircase, never a
  slope between two counts), and its caption says so; a Manhattan chart says scores are counted at each
  round's end.
- What a player alone saw reads in the third person once the game is finished.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from html.parser import HTMLParser

import pytest

from pbem.archive.history import seen_alone
from pbem.archive.records import ArchivedPlayer, GameRecord, GameSummary
from pbem.archive.site import DrawnStep, game_page, score_chart

START = datetime(2026, 3, 1, 9, tzinfo=UTC)


def summary(kind: str = "manhattan", status: str = "active", to_act: tuple[str, ...] = ("Cy",)) -> GameSummary:
    names = ("Ann", "Bob", "Cy")
    finished = status == "finished"
    return GameSummary(
        id=7, kind=kind, title=kind.replace("-", " ").title(), variant="standard", status=status,
        players=tuple(ArchivedPlayer(seat, name, f"key{seat}", 10 * seat, winner=finished and seat == 2)
                      for seat, name in enumerate(names)),
        started_at=START, ended_at=START + timedelta(days=3) if finished else None,
        to_act=() if finished else to_act, last_seq=40)


def drawn(scores_at: dict[int, tuple[int, ...]], last: int) -> list[DrawnStep]:
    """Steps 0 to ``last``; the scores change at the steps ``scores_at`` names (to the scores it gives)."""
    scores, steps = (0, 0, 0), []
    for number in range(last + 1):
        scores = scores_at.get(number, scores)
        steps.append(DrawnStep(number, number + 1, list(scores),
                               f'<section class="step" id="step-{number}">Step {number}</section>'))
    return steps


class Text(HTMLParser):
    """A page's text as a reader sees it: what the tags hold, runs of white space as one space."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.skipping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.skipping += tag in ("script", "style")

    def handle_endtag(self, tag: str) -> None:
        self.skipping -= tag in ("script", "style")

    def handle_data(self, data: str) -> None:
        if not self.skipping:
            self.parts.append(data)

    @classmethod
    def of(cls, html: str) -> str:
        parser = cls()
        parser.feed(html)
        return " ".join("".join(parser.parts).split())


def page_text(game: GameSummary, steps: list[DrawnStep]) -> str:
    record = GameRecord(summary=game, settings=(), steps=(), scoring=())
    return Text.of(game_page(record, steps))


@pytest.mark.parametrize("game", [summary(), summary(to_act=()), summary(status="paused"),
                                  summary(status="finished"), summary(status="aborted")])
def test_the_status_line_keeps_a_space_between_its_sentences(game: GameSummary) -> None:
    text = page_text(game, drawn({}, 3))
    assert re.search(r"[.:] Started 2026-03-01\.", text), text
    assert not re.search(r"\w\.[A-Z]", text), text  # no sentence runs into the next


@pytest.mark.parametrize("last, said", [
    (33, "Step 0 is the game as it started; steps 1 to 33 show the board after each of its 33 events."),
    (1, "Step 0 is the game as it started; step 1 shows the board after its one event."),
    (0, "Step 0 is the game as it started; nothing has happened since."),
])
def test_the_page_counts_the_steps_as_the_stepper_does(last: int, said: str) -> None:
    html = game_page(GameRecord(summary=summary(), settings=(), steps=(), scoring=()), drawn({}, last))
    text = Text.of(html)
    assert said in text, text
    assert f"{last + 1} steps" not in text
    # the stepper (archive.js) says "Step N of <the last step's number>": the same count
    assert re.search(rf'<input type="range" min="0" max="{last}"', html)


def segments(points: str) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    xy = [tuple(float(v) for v in point.split(",")) for point in points.split()]
    return list(zip(xy, xy[1:]))  # type: ignore[arg-type]


@pytest.mark.parametrize("kind", ["manhattan", "fifth-avenue"])
def test_the_score_chart_holds_a_score_until_the_step_that_changed_it(kind: str) -> None:
    # a Manhattan of three rounds: the scores are counted at the end of each (steps 10, 20 and 30)
    steps = drawn({10: (5, 3, 1), 20: (9, 8, 4), 30: (12, 14, 9)}, 30)
    chart = score_chart(summary(kind, "finished"), steps)
    assert chart is not None
    for series in chart.series:
        parts = segments(series.points)
        assert parts and all(a[0] == b[0] or a[1] == b[1] for a, b in parts), series  # flat, or a jump up or down
        xs = sorted({a[0] for a, b in parts if a[1] != b[1]})
        assert len(xs) == 3, series  # one jump at each of the three counts, none in between
    caption = f"{chart.x_label} {chart.note} {chart.description}"
    assert "flat" in chart.note and "changed" in chart.note, chart.note
    if kind == "manhattan":
        assert "end of each round" in caption and "steps 10, 20 and 30" in chart.description, caption


def test_the_chart_caption_is_on_the_page() -> None:
    steps = drawn({10: (5, 3, 0), 20: (9, 8, 4)}, 25)
    text = page_text(summary("manhattan", "finished"), steps)
    chart = score_chart(summary("manhattan", "finished"), steps)
    assert chart is not None and chart.note in text


@pytest.mark.parametrize("secret, lines", [
    ("You drew black [6].", ["Bob drew black 6; only Bob saw it during the game."]),
    ("You drew black [6, 12].", ["Bob drew black 6 and 12; only Bob saw it during the game."]),
    ("You drew black [6, 12]. You drew black [7] (no skyscraper in the district).",
     ["Bob drew black 6 and 12; only Bob saw it during the game.",
      "Bob drew black 7 (no skyscraper in the district); only Bob saw it during the game."]),
    (" You drew black [4] (no skyscraper in the district).",
     ["Bob drew black 4 (no skyscraper in the district); only Bob saw it during the game."]),
    ("You drew black [].", ["Bob drew no black card; only Bob saw it during the game."]),
    ("You drew card 17.", ["Bob drew card 17; only Bob saw it during the game."]),
    ("There was no card to draw.", ["There was no card for Bob to draw; only Bob saw it during the game."]),
    ("Your hand is full.", ["Bob's hand is full; only Bob saw it during the game."]),
])
def test_what_a_player_alone_saw_reads_in_the_third_person(secret: str, lines: list[str]) -> None:
    assert seen_alone("Bob", secret) == lines
