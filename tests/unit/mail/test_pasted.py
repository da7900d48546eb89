"""Finding the runs of a reply that are pieces of our own mails (docs/rules.md D43)."""

from __future__ import annotations

import textwrap

import pytest

from pbem.mail.pasted import LONE_LINE, SentText

OURS = """It is your turn (decision 12): the auction for Times Square. Bob bid
brown 4 6; you hold brown 4 5 and black 4 4 6.

Send one of these commands:
  pass
  bid brown 4
  bid brown 4 5 black 4

Reply to this mail with your command lines. Several commands may share a
mail, one per line; a line 'end' stops reading.
"""


def rewrap(text: str, width: int) -> list[str]:
    out: list[str] = []
    for paragraph in text.split("\n\n"):
        out += textwrap.wrap(" ".join(paragraph.split()), width) + [""]
    return out


@pytest.mark.parametrize("lines", [OURS.splitlines(), rewrap(OURS, 72), rewrap(OURS, 76), rewrap(OURS, 40)],
                         ids=["as sent", "72", "76", "40"])
def test_our_mail_pasted_whole_is_found_however_it_is_wrapped(lines: list[str]) -> None:
    reply = ["Why can't I bid 5?", "", "---- Ann's mail program wrote ----", *lines, "", "Ann"]
    mask = SentText([OURS]).pasted(reply)
    kept = [line for line, hit in zip(reply, mask) if not hit and line.strip()]
    assert kept == ["Why can't I bid 5?", "---- Ann's mail program wrote ----", "Ann"]


def test_a_lone_short_line_of_ours_is_the_players() -> None:
    assert SentText([OURS]).pasted(["Thanks!", "pass", "Ann"]) == [False, False, False]
    assert SentText([OURS]).pasted(["bid brown 4 5 black 4"]) == [False]


def test_a_long_lone_line_of_ours_is_pasted() -> None:
    line = "Reply to this mail with your command lines. Several commands may share a"
    assert len(line) >= LONE_LINE and SentText([OURS]).pasted([line]) == [True]


def test_a_run_of_only_commands_is_the_players_unless_the_caller_says_otherwise() -> None:
    reply = ["bid brown 4", "bid brown 4 5 black 4"]  # consecutive in our list, and long enough together
    commands = SentText([OURS]).pasted(reply, is_command=lambda line: line.startswith(("pass", "bid")))
    assert commands == [False, False]
    assert SentText([OURS]).pasted(reply) == [True, True]
    assert SentText([OURS]).pasted(["Send one of these commands:", "  pass"], lambda line: "pass" in line) == [True, True]


def test_short_runs_that_meet_in_our_text_by_chance_are_kept() -> None:
    assert SentText(["the board\nBoard for Ann"]).pasted(["board", "board"]) == [False, False]


def test_no_run_spans_two_mails() -> None:
    first, second = "Auctions are over for this round of play.", "The next player is Cy, who moves first."
    mask = SentText([first, second]).pasted(["Auctions are over for this round", "of play. The next player is Cy"])
    assert mask == [False, False]


def test_nothing_sent_finds_nothing() -> None:
    ours = SentText([])
    assert not ours and ours.pasted(["pass", "Send one of these commands:"]) == [False, False]
