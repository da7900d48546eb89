"""Replies as players write them, through the mail processor on real databases (issue 14, docs/rules.md D42).

A sign-off is prose, a typo is an error that names the word meant, a command is
read where the player put it (after a greeting, before a thank-you, in the
subject, after an attribution on its line, in the second text part of a mail
split by an image), and the reply says which part of a line was taken.
"""

from __future__ import annotations

from email.message import EmailMessage
from email.utils import make_msgid

import pytest
from sqlmodel import Session, select
from test_mail_commands import first_legal, game_rows, games, mail, processor  # noqa: F401 - games, processor: fixtures

from pbem.services.table.service import GameService
from pbem.store.models import OutboxMail

# A sign-off and the name under it are passed over in silence ("courtesy"); prose is listed as ignored, as it may be
# a mistaken command (issue 35, point 10).
SIGN_OFFS = [
    ["Take care,", "Ann"], ["A bientôt,", "Ann"], ["A presto!", "Ann"], ["Pass my regards to Cy.", "Ann"],
    ["Move fast and win", "-Ann"], ["Stop sending me the whole board, please", "Ann"], ["Take it easy", "B."], ["Cheers", "C."],
    ["A quick question: why is the park empty?"], ["Bid farewell to my lead, Bob :)"], ["Add me on Signal"],
    ["Play nice, everyone!"], ["C u soon,", "Ann"], ["Cards on the table: I am winning"],
]
PROSE = {"Pass my regards to Cy.", "Move fast and win", "Stop sending me the whole board, please",
         "A quick question: why is the park empty?", "Bid farewell to my lead, Bob :)", "Add me on Signal",
         "Play nice, everyone!", "Cards on the table: I am winning"}


def last_mail_to(games: GameService, email: str) -> OutboxMail:
    with Session(games.engine) as s:
        return s.exec(select(OutboxMail).where(OutboxMail.recipient == email).order_by(OutboxMail.id.desc())).first()


@pytest.mark.parametrize("sign_off", SIGN_OFFS, ids=lambda lines: lines[0][:16])
def test_a_sign_off_under_the_command_is_prose_and_the_command_applies(processor, games, sign_off) -> None:
    email, command = first_legal(games)
    report = processor.handle(mail("\n".join([command, "", *sign_off]), sender=email), dry_run=True)
    assert report.outcome == "applied", report.reply_body
    assert [(r.line, r.status) for r in report.lines] == [(command, "done")] + \
        [(x, "ignored") for x in sign_off if x in PROSE] + [(x, "courtesy") for x in sign_off if x not in PROSE]
    listed = report.reply_body.split("Ignored:")[1] if "Ignored:" in report.reply_body else ""
    assert all((x in listed) == (x in PROSE) for x in sign_off), report.reply_body


def test_a_typo_is_an_error_that_names_the_word_meant(processor, games) -> None:
    email, command = first_legal(games)  # 'place <district> <color>'
    verb, district, color = command.split()
    typo = color[0] + color[2] + color[1] + color[3:]  # two letters swapped
    report = processor.handle(mail(f"{verb} {district} {typo}\nTake care,\nAnn", sender=email))
    assert report.outcome == "rejected"
    refused = [r for r in report.lines if r.status == "not done"]
    assert [r.line for r in refused] == [f"{verb} {district} {typo}"]
    assert f"did you mean {color}?" in refused[0].note
    assert "Take care," in [r.line for r in report.lines if r.status == "courtesy"]  # not listed, but reported


@pytest.mark.parametrize("shape, left", [
    ("Hi all, {command}", "Hi all"), ("{command} thanks!", "thanks!"), ("Morning! {command}. Cheers", None),
    ("Ok -- {command} -- see you", None),
])
def test_the_command_is_read_where_the_player_put_it_and_the_reply_says_so(processor, games, shape, left) -> None:
    email, command = first_legal(games)
    line = shape.format(command=command)
    before = game_rows(games.engine)
    report = processor.handle(mail(line, sender=email))
    assert report.outcome == "applied"
    assert [(r.line, r.status, r.read_from) for r in report.lines] == [(command, "done", line)]
    assert game_rows(games.engine) != before
    confirmation = last_mail_to(games, email).text_body
    assert f"(read from your line '{line}'; the rest of it is not a command)" in " ".join(confirmation.split())


def test_a_command_only_in_the_subject_of_a_reply(processor, games) -> None:
    email, command = first_legal(games)
    asked = last_mail_to(games, email)
    subject = f"Re: {asked.subject} {command}"
    report = processor.handle(mail("", sender=email, subject=subject, in_reply_to=asked.message_id))
    assert report.outcome == "applied"
    assert [(r.line, r.status, r.read_from) for r in report.lines] == [(command, "done", f"the subject '{subject}'")]
    assert f"(read from the subject '{subject}')" in " ".join(last_mail_to(games, email).text_body.split())


def test_a_command_only_in_the_subject_of_a_new_mail_naming_the_game(processor, games) -> None:
    email, command = first_legal(games)
    report = processor.handle(mail("Sent from my phone", sender=email, subject=f"[Fifth Avenue #1] {command}"))
    assert report.outcome == "applied" and [r.line for r in report.lines if r.status == "done"] == [command]


def test_the_words_of_our_own_subject_are_never_read_as_commands(processor, games) -> None:
    email, _ = first_legal(games)
    asked = last_mail_to(games, email)
    # a reply to a subject we cannot find: its words may be ours ('your turn: pass or bid')
    report = processor.handle(mail("", sender=email, subject="Re: [Fifth Avenue #1] pass or bid", in_reply_to="<x@y>"))
    assert report.outcome == "no-commands"
    report = processor.handle(mail("", sender=email, subject=f"Re: {asked.subject}", in_reply_to=asked.message_id))
    assert report.outcome == "no-commands"


def test_a_text_split_by_an_inline_image_is_read_whole(processor, games) -> None:
    email, command = first_legal(games)
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = f"Ann <{email}>", "game@pbem.example", "Re: [Fifth Avenue #1] your turn"
    msg["Message-ID"] = make_msgid(domain="client.example")
    msg.make_mixed()
    first, image, second = EmailMessage(), EmailMessage(), EmailMessage()
    first.set_content("Here is where I stand:\n")
    image.set_content(b"\x89PNG\r\n\x1a\n" + b"\0" * 64, maintype="image", subtype="png", disposition="inline",
                      filename="board.png")
    second.set_content(f"{command}\n\nSent from my iPad\n")
    for part in (first, image, second):
        msg.attach(part)
    report = processor.handle(bytes(msg), dry_run=True)
    assert report.outcome == "applied"
    assert [(r.line, r.status) for r in report.lines] == [(command, "done"), ("Here is where I stand:", "ignored")]


def test_a_command_after_an_attribution_on_its_line(processor, games) -> None:
    email, command = first_legal(games)
    body = f"On Mon, 23 Nov 2026 at 10:00, pbem <game@pbem.example> wrote: {command}\n> It is your turn.\n"
    report = processor.handle(mail(body, sender=email))
    assert report.outcome == "applied"
    assert [(r.line, r.status) for r in report.lines] == [(command, "done")]
    told = " ".join(last_mail_to(games, email).text_body.split())
    assert f"{command} (read from after the 'On ... wrote:' on the same line)" in told


def test_a_short_command_above_more_than_a_megabyte_of_quote_is_read(processor, games) -> None:
    email, command = first_legal(games)
    quote = "> " + "x" * 70 + "\n"
    body = f"{command}\n\nOn Mon, 23 Nov 2026 at 10:00, pbem <game@pbem.example> wrote:\n" + quote * 20_000  # 1.4 MB
    report = processor.handle(mail(body, sender=email), dry_run=True)
    assert report.outcome == "applied" and [r.line for r in report.lines] == [command]


def test_the_bad_line_of_a_refused_mail_is_shown_with_the_line_it_was_read_from(processor, games) -> None:
    email, command = first_legal(games)
    line = f"Hi all, {command} 4 thanks"
    report = processor.handle(mail(line, sender=email), dry_run=True)
    assert report.outcome == "rejected"
    assert [(r.line, r.read_from) for r in report.lines] == [(f"{command} 4", line)]
    assert f"(read from your line '{line}'; the rest of it is not a command)" in " ".join(report.reply_body.split())
