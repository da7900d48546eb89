"""What the headers say: above all, which mail must never be answered (RFC 3834), so no loop can start."""

from __future__ import annotations

from email.message import EmailMessage

import pytest

from pbem.mail.message import automatic_reason

GAME = "game@example.org"


def _mail(sender: str = "Ann <ann@example.org>", content_type: str | None = None, **headers: str) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = GAME
    msg["Subject"] = "Re: [Fifth Avenue #1] your turn"
    for name, value in headers.items():
        msg[name.replace("_", "-")] = value
    msg.set_content("A\n")
    if content_type:
        msg.replace_header("Content-Type", content_type)
    return msg


@pytest.mark.parametrize(
    "mail, reason",
    [
        (_mail(Auto_Submitted="auto-replied"), "Auto-Submitted: auto-replied"),
        (_mail(Auto_Submitted="auto-generated"), "Auto-Submitted: auto-generated"),
        (_mail(Precedence="bulk"), "Precedence: bulk"),
        (_mail(Precedence="junk"), "Precedence: junk"),
        (_mail(Precedence="list"), "Precedence: list"),
        (_mail(List_Id="<players.example.org>"), "List-Id header"),
        (_mail(List_Unsubscribe="<mailto:leave@example.org>"), "List-Unsubscribe header"),
        (_mail(X_Autoreply="yes"), "X-Autoreply header"),
        (_mail(X_Auto_Response_Suppress="All"), "X-Auto-Response-Suppress header"),  # Exchange's out-of-office
        (_mail(X_Auto_Response_Suppress="DR, OOF, AutoReply"), "X-Auto-Response-Suppress header"),
        (_mail(X_Pbem="1"), "our own mail"),
        (_mail(Return_Path="<>"), "null return path (a bounce)"),
        (_mail(content_type='multipart/report; report-type="delivery-status"; boundary="b"'),
         "multipart/report (delivery-status)"),
        (_mail("MAILER-DAEMON@mx.example.org"), "sent by mailer-daemon@mx.example.org"),
        (_mail("postmaster@example.org"), "sent by postmaster@example.org"),
        (_mail("players-request@lists.example.org"), "sent by players-request@lists.example.org"),
        (_mail("owner-players@lists.example.org"), "sent by owner-players@lists.example.org"),
        (_mail(f"The game <{GAME}>"), "our own mail"),
    ],
)
def test_automatic_mail_is_never_answered(mail: EmailMessage, reason: str) -> None:
    assert automatic_reason(mail, (GAME,)) == reason


@pytest.mark.parametrize("headers", [{}, {"Auto_Submitted": "no"}, {"Precedence": "first-class"},
                                     {"X_Auto_Response_Suppress": ""}])
def test_a_persons_mail_is_answered(headers: dict[str, str]) -> None:
    assert automatic_reason(_mail(**headers), (GAME,)) is None
