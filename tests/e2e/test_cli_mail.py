"""`pbem mail explain`: what a mail would do, without changing anything."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


def test_explain_shows_the_reading_and_changes_nothing(database_url: str, tmp_path: Path, pbem) -> None:
    pbem(database_url, "game", "new", "fifth-avenue", "--player", "Ann=ann@example.org",
         "--player", "Bob=bob@example.org", "--seed", "3")
    legal = json.loads(pbem(database_url, "game", "legal", "1", "--json").stdout)["to_act"]["ann@example.org"]
    eml = tmp_path / "reply.eml"
    eml.write_bytes(
        b"From: Ann <ann@example.org>\r\nTo: game@pbem.example\r\n"
        b"Subject: Re: [Fifth Avenue #1] Ann, Bob\r\nMessage-ID: <r1@client.example>\r\n"
        b"Content-Type: text/plain; charset=utf-8\r\n\r\n"
        + f"Here we go\r\n{legal[0]}\r\nbid gray 4\r\n\r\n-- \r\nAnn\r\n".encode()
    )
    history = pbem(database_url, "game", "history", "1", "--json").stdout
    doc = json.loads(pbem(database_url, "mail", "explain", str(eml), "--json").stdout)
    assert doc["game_id"] == 1 and doc["seat"] == 0 and doc["matched_by"] == "subject"
    assert doc["text"]["lines"] == ["Here we go", legal[0], "bid gray 4"]
    assert doc["outcome"] == "rejected" and doc["changed"] is False
    assert [line["status"] for line in doc["lines"]] == ["not done", "not done", "ignored"]
    assert "Not done:" in doc["reply_body"]
    text = pbem(database_url, "mail", "explain", str(eml)).stdout
    assert "Outcome: rejected (changes nothing)" in text and "Reply to ann@example.org" in text
    assert pbem(database_url, "game", "history", "1", "--json").stdout == history


def test_explain_shows_a_subject_with_brackets_as_written(database_url: str, tmp_path: Path, pbem) -> None:
    pbem(database_url, "game", "new", "fifth-avenue", "--player", "Ann=ann@example.org",
         "--player", "Bob=bob@example.org", "--seed", "3")
    eml = tmp_path / "brackets.eml"
    eml.write_bytes(b"From: Ann <ann@example.org>\r\nSubject: [/b] [bold]hi\r\nMessage-ID: <r2@client.example>\r\n"
                    b"Content-Type: text/plain; charset=utf-8\r\n\r\nhello [/i]\r\n")
    text = pbem(database_url, "mail", "explain", str(eml)).stdout
    assert "Subject: [/b] [bold]hi" in text and "Reply to ann@example.org: Re: [Fifth Avenue #1] Ann, Bob" in text


def _automatic_mail(tmp_path: Path, header: bytes) -> Path:
    """A player's mail that would get the board back, were it not automatic."""
    eml = tmp_path / "auto.eml"
    eml.write_bytes(b"From: Ann <ann@example.org>\r\nTo: game@pbem.example\r\n"
                    b"Subject: Automatic reply: [Fifth Avenue #1] Ann, Bob\r\nMessage-ID: <oof1@client.example>\r\n"
                    + header + b"\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nboard\r\n")
    return eml


@pytest.mark.parametrize("header, reason", [
    (b"X-Auto-Response-Suppress: All", "X-Auto-Response-Suppress header"),  # Exchange's out-of-office, alone
    (b"Auto-Submitted: auto-replied", "Auto-Submitted: auto-replied"),
])
def test_explain_says_the_worker_ignores_automatic_mail_and_shows_no_reply(
        database_url: str, tmp_path: Path, pbem, header: bytes, reason: str) -> None:
    pbem(database_url, "game", "new", "fifth-avenue", "--player", "Ann=ann@example.org",
         "--player", "Bob=bob@example.org", "--seed", "3")
    eml = _automatic_mail(tmp_path, header)
    doc = json.loads(pbem(database_url, "mail", "explain", str(eml), "--json").stdout)
    assert doc["outcome"] == "ignored" and doc["reason"] == reason and doc["changed"] is False
    assert doc["reply_to"] is None and doc["reply_body"] is None
    text = pbem(database_url, "mail", "explain", str(eml)).stdout
    assert "Outcome: ignored" in text and f"Why: {reason}" in text and "No reply:" in text
    assert "Reply to" not in text and "answered: board" not in text
