"""A watcher's mail (docs/signup.md): the public side of a game for an address with no seat in it, once a day.

What happened since the watcher's last mail, in the words of a reader with no seat (``chronicle.happenings``
for nobody's seat), with neither private lines (a player's drawn card, "only you see this") nor table talk
(the players' words are theirs), and the board as anybody may see it (``state.view(None)``: no hand). Text
only, no picture. Pure: the timekeeper (services.clock.timekeeper) decides when and writes it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Callable, Iterable

from ... import render
from ...store.models import OutboxMail
from ...render.text import wrap
from ...words import listing, plural
from ..common.game_info import GameInfo
from .chronicle import TALK_KINDS, board_names, credited, happenings, player_label
from .notices import game_subject, plain_mail, sender_name, thread_root


def public_rows(rows: Iterable[Any]) -> list[Any]:
    """The events anybody may read: not talk, not an event with readers of its own. (The private lines of a
    command are told only to a reader whose seat they name: a watcher has none.)"""
    return [row for row in rows if row.kind not in TALK_KINDS and not (row.data or {}).get("readers")]


def standings(info: GameInfo) -> str:
    """The game as it stands, in a sentence: the scores, best first, and who won or whom the game waits for."""
    scores = sorted(((info.state.scores[p.seat], p.seat) for p in info.players), key=lambda x: -x[0])
    said = "Scores: " + ", ".join(f"{credited(info, seat)} {score}" for score, seat in scores) + "."
    if info.over:
        winners = [credited(info, seat) for seat in (info.state.result or {}).get("winners", [])]
        return (f"The game is over: {listing(winners)} {'wins' if len(winners) == 1 else 'share the win'}. "
                + said)
    due = info.state.current_player() if info.to_act else None  # (to_act holds addresses: never in a mail)
    return said + (f" Waiting for {player_label(info, due)}." if due is not None else "")


def watcher_mail(info: GameInfo, email: str, rows: Iterable[Any], after: int, msgid: Callable[[], str],
                 now: datetime, domain: str) -> OutboxMail | None:
    """The mail of the watcher ``email``: what happened after event ``after`` and the board; None when nothing
    did."""
    happened = happenings(public_rows(rows), info, None, after=after)
    if not happened:
        return None
    names = board_names(info)
    # The standings first (issue 47): what a watcher opens the mail for, then what led there; every paragraph
    # wrapped at the 72 columns of every mail's text part, as plain_mail wraps its own.
    lines = [wrap(f"You watch game {info.id} ({info.title}): {plural(len(happened), 'thing')} happened since "
                  "your last mail. You see what everybody sees, never a hand."), "", wrap(standings(info)), "",
             "What happened:"]
    for item in happened:
        lines.append(wrap(item.headline, indent="- ", hang="  "))
        lines += [wrap(detail, indent="    ", hang="    ") for detail in item.details]
    lines += ["", "Board:", render.board(info.kind, info.state.view(None), players=names).rstrip(),
              "", wrap(f"To stop these mails, send a mail with the line 'unwatch {info.id}'.")]
    mail = plain_mail(email, game_subject(info), lines, msgid, now, game_id=info.id, tagged=False, verbatim=True,
                      headers={"References": thread_root(info, domain)})
    mail.headers = {**mail.headers, "From-Name": sender_name(info)}
    return mail


__all__ = ["public_rows", "standings", "watcher_mail"]
