"""The help players are mailed (issue 15.4): every command of each game with an example its parser reads, the
other words, the deadlines, the moderator, and a one-line-per-command form for a game's first mail."""

from __future__ import annotations

import importlib
import re
from datetime import datetime, timezone
from pathlib import Path

import pytest

from pbem.games import get_game
from pbem.games.errors import CommandError, InvalidCommandError
from pbem.services.common.game_info import GameInfo, PlayerInfo
from pbem.services.mail_out.help_text import WIDTH, first_mail_help, mail_help
from pbem.services.common.timing import Timing

ROOT = Path(__file__).resolve().parents[2]
KINDS = ("fifth_avenue", "manhattan")
NAMES = ("Alice", "Bob", "Carol", "Dave")
MODERATOR = "umpire@example.org"


def make_info(kind: str, players: int = 3, *, status: str = "active", timing: Timing = Timing(),
              steps: int = 0) -> GameInfo:
    """A game of ``kind`` as the services load it, after ``steps`` commands (the first legal one each time)."""
    state = get_game(kind).new_game(players=players, seed=1)
    for _ in range(steps):
        state.apply_command(state.current_player(), state.legal_commands()[0])
    now = datetime(2026, 3, 1, tzinfo=timezone.utc)
    return GameInfo(id=12, kind=kind, title=get_game(kind).TITLE, variant="", seed=1, status=status, settings={},
                    players=[PlayerInfo(seat, NAMES[seat], f"{NAMES[seat].lower()}@example.org")
                             for seat in range(players)],
                    created_at=now, updated_at=now, state=state, timing=timing)


def parser(kind: str):
    return importlib.import_module(f"{get_game(kind).__name__}.actions").parse_command


def text_of(lines: list[str]) -> str:
    """The lines as one text, wrapping undone: every run of white space is one space."""
    return " ".join(" ".join(lines).split())


def examples(entry) -> list[str]:
    return [entry.example] + ([entry.two_players[1]] if entry.two_players else [])


# --------------------------------------------------------------------------- the engines' COMMAND_HELP


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("players", (2, 3, 4))
def test_every_example_parses_in_its_game(kind: str, players: int) -> None:
    """Each example reads as its own command; in a real game it may be illegal now, never unreadable."""
    state = get_game(kind).new_game(players=players, seed=1)
    parse_command = parser(kind)
    for entry in get_game(kind).COMMAND_HELP:
        for example in examples(entry):
            action = parse_command(state.board, example)
            assert str(action).split()[0].lower() == entry.word.lower(), (example, str(action))
            for seat in range(players):
                try:
                    state.parse(seat, example)
                except InvalidCommandError as exc:  # pragma: no cover - the failure itself
                    pytest.fail(f"{kind}: '{example}' does not parse: {exc}")
                except CommandError:
                    pass  # readable, but not allowed in this position


@pytest.mark.parametrize("kind", KINDS)
def test_the_other_spellings_mean_the_same_command(kind: str) -> None:
    """'card green violet' is 'cards green violet'; 'action A' and 'stop building' are whole commands."""
    board = get_game(kind).new_game(players=3, seed=1).board
    parse_command = parser(kind)
    for entry in get_game(kind).COMMAND_HELP:
        for spelling in entry.also:
            text = spelling if " " in spelling else " ".join([spelling, *entry.example.split()[1:]])
            assert type(parse_command(board, text)) is type(parse_command(board, entry.example)), (kind, text)


@pytest.mark.parametrize("kind", KINDS)
def test_every_command_word_has_an_entry(kind: str) -> None:
    engine = get_game(kind)
    covered = {entry.word.lower() for entry in engine.COMMAND_HELP}
    covered |= {spelling.split()[0].lower() for entry in engine.COMMAND_HELP for spelling in entry.also}
    assert set(engine.VOCABULARY.commands) <= covered, set(engine.VOCABULARY.commands) - covered
    assert covered <= set(engine.VOCABULARY.commands), covered - set(engine.VOCABULARY.commands)
    assert len({entry.word for entry in engine.COMMAND_HELP}) == len(engine.COMMAND_HELP)


def test_the_commands_the_issue_names_are_there() -> None:
    words = {kind: [entry.word for entry in get_game(kind).COMMAND_HELP] for kind in KINDS}
    assert {"A", "B", "C", "D", "cards", "move", "bid", "pass", "build", "stop"} <= set(words["fifth_avenue"])
    assert words["manhattan"] == ["choose", "play", "pass"]


# --------------------------------------------------------------------------- mail_help


@pytest.mark.parametrize("kind", KINDS)
def test_mail_help_names_the_other_words_the_deadlines_and_the_moderator(kind: str) -> None:
    timing = Timing(deadline=48 * 3600, bid_deadline=12 * 3600, on_timeout="auto")
    info = make_info(kind, timing=timing)
    lines = mail_help(info, 1, moderator=MODERATOR)
    text = text_of(lines)
    for shown in ("say TEXT", "moderator TEXT", "mail turns", "mail all", "mail digest",
                  "away 2026-12-24 to 2027-01-02", "game N", MODERATOR,
                  text_of([timing.describe(auctions="bid" in get_game(kind).COMMAND_WORDS)])):
        assert shown in text, shown
    assert ("bid" in text.lower()) == ("bid" in get_game(kind).COMMAND_WORDS)  # Manhattan's deadlines and mails know no bids
    for word in ("board", "hand", "legal", "history", "help"):
        assert any(re.match(rf"  {word}\b", line) for line in lines), word
    for entry in get_game(kind).COMMAND_HELP:
        assert entry.shape in text and f"for example: {entry.example}" in text and text_of([entry.does]) in text
    order = [text.index(part) for part in ("The game waits", "for example:", "Words that answer", "say TEXT",
                                           "Deadlines:", "Moderator:")]
    assert order == sorted(order)


def test_mail_help_without_a_moderator_address_says_so() -> None:
    text = text_of(mail_help(make_info("manhattan"), 0, moderator=""))
    assert "Moderator: no moderator address is configured" in text


def test_mail_help_shows_the_two_player_forms_in_a_two_player_manhattan_game() -> None:
    text = text_of(mail_help(make_info("manhattan", 2), 0, moderator=MODERATOR))
    assert "choose <color> <sizes>" in text and "for example: choose blue 1 1 2 3" in text
    assert "for example: choose 1 1 2 3" not in text


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("steps", (0, 1, 5))
def test_the_decision_line_names_the_player_to_act(kind: str, steps: int) -> None:
    info = make_info(kind, steps=steps)
    to_act = info.state.current_player()
    name = NAMES[to_act]
    mine = mail_help(info, to_act, moderator=MODERATOR)
    now = text_of(mine[mine.index("") + 1:])
    assert now.startswith(f"The game waits for you. {name} "), now[:120]
    assert "For example: " + info.state.legal_commands()[0] in now
    for seat in [s for s in range(3) if s != to_act] + [None]:
        theirs = mail_help(info, seat, moderator=MODERATOR)
        now = text_of(theirs[theirs.index("") + 1:])
        assert now.startswith(f"The game waits for {name}. "), (seat, now[:120])
        assert "waits for you" not in now and "player " not in now.split("The commands")[0].lower()


def test_a_paused_game_waits_for_the_moderator() -> None:
    text = text_of(mail_help(make_info("fifth_avenue", status="paused"), 0, moderator=MODERATOR))
    assert "The game is paused: nobody acts until the moderator resumes it." in text


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("players", (2, 3, 4))
def test_every_line_fits(kind: str, players: int) -> None:
    for steps in (0, 3, 9):
        info = make_info(kind, players, steps=steps)
        for seat in [*range(players), None]:
            lines = mail_help(info, seat, moderator="a-rather-long-moderator-address@games.example.org")
            too_long = [line for line in lines if len(line) > WIDTH]
            assert not too_long, too_long
        assert all(len(line) <= WIDTH for line in first_mail_help(info))


# --------------------------------------------------------------------------- first_mail_help


def rules_headings() -> set[str]:
    """The section numbers of docs/rules.md's headings: '2.2' of '### 2.2 A turn ...', 'M-2' of '## M-2. ...'."""
    text = (ROOT / "docs" / "rules.md").read_text()
    return set(re.findall(r"^#+ ((?:M-)?\d+(?:\.\d+)?)\.? ", text, re.M))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("players", (2, 3))
def test_first_mail_help_has_one_line_per_command_with_its_rule(kind: str, players: int) -> None:
    info = make_info(kind, players)
    lines = first_mail_help(info)
    entries = get_game(kind).COMMAND_HELP
    headings = rules_headings()
    assert {"2.2", "2.6", "M-2", "M-3"} <= headings
    ruled = [line for line in lines if "(rules " in line]
    assert len(ruled) == len(entries)
    for line, entry in zip(ruled, entries):
        example = entry.two_players[1] if entry.two_players and players == 2 else entry.example
        assert line.startswith(f"  {example} ") and line.endswith(f"(rules {entry.section}: {entry.rule})"), line
        assert entry.summary in line
        assert entry.section in headings, (entry.word, entry.section)
        assert len(line) <= WIDTH, line
    last = lines[-1]
    assert all(word in last for word in ("say", "moderator", "mail", "pictures", "away", "help")), last
