"""Issue 44, point 5: no mail over 45 KB as sent, the mails of choices included. One lists at most
limits.CHOICES_MOST commands (services.mail_out.taps.groups cuts a larger group in parts); at that many, each
longer than any command the engines write (a bid of 15 cards is 40 characters), with the game's tag and the
decision words at their longest and a long game address, the mail as the sender builds it stays under the limit."""

from __future__ import annotations

from datetime import datetime, timezone

from pbem.adapters.outbox_sender import build_message
from pbem.limits import CHOICES_MOST
from pbem.services.mail_in.choices_mail import list_mail
from pbem.services.mail_out.taps import Group, choice_links
from pbem.store.models import OutboxMail

LIMIT = 45 * 1024


def test_the_largest_mail_of_choices_stays_under_45_kb_as_sent() -> None:
    commands = tuple(f"bid violet 4 4 4 5 5 5 6 6 black 4 4 4 5 5 5 6 6 {n:02d}"[:60].ljust(60, "6") for n in
                     range(CHOICES_MOST))
    group = Group(("bid", "violet"), commands, 2, 9)
    tag = "[Fifth Avenue #2147483647]"
    links = choice_links(group, tag, 123456, "TF0bpI8ZQTjsagsUESwCzA")
    answer = list_mail(f"{tag} " + "Ann Example-Longname, " * 9, "your bid in the auction for 42nd Street West "
                       "(high bid 44)", 123456, group, links)
    mail = OutboxMail(recipient="player.with.a.long.address@example.org", subject=tag + " x" * 90, headers={},
                      text_body="\n".join(answer.text) + "\n", html_body=answer.html, message_id="<a@b>",
                      next_attempt_at=datetime.now(timezone.utc), created_at=datetime.now(timezone.utc))
    sent = len(build_message(mail, "the-game-of-fifth-avenue-for-the-club@games.some-long-domain.example.org")
               .as_bytes())
    print(f"the largest mail of choices: {sent:,} bytes as sent ({len(answer.html or ''):,} of HTML)")
    assert sent < LIMIT
