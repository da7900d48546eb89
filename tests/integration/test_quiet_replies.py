"""Quiet replies (issue 35, point 10): an answer lists as ignored only what the player wrote to the game.

Every mail of the corpus in tests/data/mail (one .eml per client shape; the ``quiet_*`` ones were written for
this point: greetings, sign-offs, signatures with and without '-- ', attributions wrapped over lines, list
footers, phone apps' lines, the player's real prose) is sent as Ann's reply in a real game, and the "Ignored:"
part of the answer is read back. Its sidecar's ``prose`` names the lines the player wrote to the game (they must
be listed, or read as commands: they may be mistaken commands); ``told`` names notes of what was not read that
the player may have meant for us (a forwarded mail). Anything else listed is noise.
"""

from __future__ import annotations

import json
from email.message import EmailMessage
from pathlib import Path

import pytest

from test_mail_commands import ANN, games, processor  # noqa: F401 - games, processor: fixtures

from pbem.mail.text import read_message
from pbem.services.mail_in.mail_commands import MailCommands
from pbem.words import cut
from pbem_testing.reply_noise import listed_as_ignored

CORPUS = Path(__file__).resolve().parents[1] / "data" / "mail"
EMLS = sorted(CORPUS.glob("*.eml"))
# The share of answers that listed a line that was not the player's, before this point: 65 of 67 mails (97%).
NOISY_BEFORE = 65 / 67


def expected(eml: Path) -> dict:
    return json.loads(eml.with_name(eml.stem + ".expected.json").read_text(encoding="utf-8"))


def as_anns_reply(eml: Path) -> bytes:
    """The fixture as Ann's reply in game 1, its client's shape untouched."""
    msg: EmailMessage = read_message(eml.read_bytes())
    for header in ("From", "Subject", "In-Reply-To", "References"):
        del msg[header]
    msg["From"], msg["Subject"] = f"Ann <{ANN}>", "Re: [Fifth Avenue #1] Ann, Bob, Cy"
    return msg.as_bytes()


def noise(eml: Path, processor: MailCommands) -> tuple[list[str], list[str]]:
    """What the answer to the fixture listed that is not the player's, and the player's prose it hid."""
    want = expected(eml)
    report = processor.handle(as_anns_reply(eml), dry_run=True)
    listed = listed_as_ignored(report.reply_body or "")
    told = tuple(want.get("told", []))
    prose = {cut(line) for line in want["prose"]}  # a line is quoted back by its first QUOTED characters (issue 42)
    extra = [entry for entry in listed if entry not in prose and not (told and entry.startswith(told))]
    read = {r.line for r in report.lines if r.status in ("done", "not done")} | {r.read_from for r in report.lines}
    hidden = [line for line in want["prose"] if cut(line) not in listed and line not in read]
    return extra, hidden


def test_every_fixture_names_the_players_prose() -> None:
    assert len(EMLS) >= 60
    for eml in EMLS:
        want = expected(eml)
        assert set(want["prose"]) <= set(want["lines"]), eml.name


def test_answers_list_only_the_players_lines(processor) -> None:  # noqa: F811
    found = {eml.stem: noise(eml, processor) for eml in EMLS}
    noisy = {name: extra for name, (extra, _) in found.items() if extra}
    hidden = {name: lines for name, (_, lines) in found.items() if lines}
    share = len(noisy) / len(EMLS)
    print(f"answers listing a line that is not the player's: {len(noisy)} of {len(EMLS)} ({share:.0%}); "
          f"before: {NOISY_BEFORE:.0%}")
    assert not hidden, hidden  # the player's own prose is never dropped: it may be a mistaken command
    assert not noisy, json.dumps(noisy, indent=1, ensure_ascii=False)


@pytest.mark.parametrize("typo, meant", [("plcae 34W orange", "place"), ("pas", "pass"), ("bdi 5", "bid")])
def test_a_mistyped_command_word_is_refused_with_the_word_meant(processor, typo, meant) -> None:  # noqa: F811
    report = processor.handle(as_text(typo), dry_run=True)
    refused = [r for r in report.lines if r.status == "not done"]
    assert [r.line for r in refused] == [typo], report.reply_body
    assert f"did you mean {meant}?" in refused[0].note
    assert not listed_as_ignored(report.reply_body or "")


def as_text(body: str) -> bytes:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = f"Ann <{ANN}>", "game@pbem.example", "Re: [Fifth Avenue #1] Ann, Bob, Cy"
    msg.set_content(body)
    return bytes(msg)


@pytest.mark.parametrize("body, shown", [("Yes.", ["Yes."]), ("Agreed", ["Agreed"]), ("On Thursday.", ["On Thursday."]),
                                         ("Hi all,\n\nConfused!", ["Hi all,", "Confused!"])])
def test_a_mail_of_courtesy_alone_is_answered_with_its_lines(processor, body, shown) -> None:  # noqa: F811
    # Issue 41, point 3: lines that look like courtesy, and nothing else, were meant for somebody: the answer says
    # no command was found, shows them, and how to reach the players ('say') or the moderator ('moderator').
    report = processor.handle(as_text(body), dry_run=True)
    assert report.outcome == "no-commands"
    assert listed_as_ignored(report.reply_body or "") == shown
    assert "found no command" in report.reply_body and "'say'" in report.reply_body
    assert "'moderator'" in report.reply_body
