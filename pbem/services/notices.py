"""The mails a change to a game queues in the outbox.

Each player gets their own mail: the public effects, the secrets meant for
them alone, the board as they may see it, and what the game waits for. The
richer mail templates come with the turn-flow work; this module decides who is
told what, so hidden information never reaches the wrong inbox.
"""

from __future__ import annotations

import textwrap
from datetime import datetime
from typing import TYPE_CHECKING, Any, Callable

from ..store.models import OutboxMail

if TYPE_CHECKING:
    from .games import GameInfo

MakeMsgid = Callable[[], str]


def player_label(info: "GameInfo", seat: int) -> str:
    return next(p.name for p in info.players if p.seat == seat)


def describe(event: dict[str, Any], info: "GameInfo") -> str:
    """An engine event in words, with player names instead of seat numbers."""
    text = event["text"]
    actor = event.get("actor")
    robot = getattr(info.state, "robot", None) if info.state is not None else None
    if actor is not None and actor != robot and not text.startswith(("the robot", "player ")):
        text = f"{player_label(info, actor)} {text}"
    if event.get("points") and any(event["points"]):
        text += " (" + ", ".join(
            f"{player_label(info, p)} +{pts}" for p, pts in enumerate(event["points"]) if pts) + ")"
    return text


def _board(info: "GameInfo", seat: int) -> str:
    from ..render.text import render_board

    names = [p.name for p in sorted(info.players, key=lambda p: p.seat)]
    return render_board(info.state.view(seat), players=names)


def decision_number(info: "GameInfo") -> int:
    """Numbers the decision the game waits for: the count of commands applied so far.

    A reply quoting an older number answers a situation that has moved on.
    """
    return info.state.moves


def asks(info: "GameInfo", seat: int) -> bool:
    state = info.state
    return info.status == "active" and not state.is_terminal() and state.current_player() == seat


def subject_tag(info: "GameInfo") -> str:
    return f"[{info.title} #{info.id}]"


def _mail(info: "GameInfo", seat: int, subject: str, lines: list[str], msgid: MakeMsgid, now: datetime) -> OutboxMail:
    player = next(p for p in info.players if p.seat == seat)
    if asks(info, seat):
        subject += f" (decision {decision_number(info)})"
        lines = lines + ["", f"Decision {decision_number(info)}: reply to this mail with your commands."]
    body = "\n".join(lines).rstrip() + "\n\n" + _board(info, seat)
    message_id = msgid()
    return OutboxMail(
        game_id=info.id,
        recipient=player.email,
        subject=f"{subject_tag(info)} {subject}",
        headers={"Message-ID": message_id, "Auto-Submitted": "auto-generated", "X-Pbem-Game": str(info.id)},
        text_body=body,
        html_body=None,
        next_attempt_at=now,
        message_id=message_id,
        created_at=now,
    )


def _waiting(info: "GameInfo", seat: int) -> str:
    if info.state.is_terminal():
        return "The game is over."
    if info.status != "active":
        return f"The game is {info.status}."
    to_act = info.state.current_player()
    if to_act != seat:
        return f"Waiting for {player_label(info, to_act)}."
    legal = info.state.legal_commands()
    examples = ", ".join(legal[:8]) + (f" ... ({len(legal)} in all)" if len(legal) > 8 else "")
    return textwrap.fill(f"It is your turn. You may send: {examples}", width=72)


def game_started(info: "GameInfo", msgid: MakeMsgid, now: datetime) -> list[OutboxMail]:
    names = ", ".join(p.name for p in sorted(info.players, key=lambda p: p.seat))
    return [
        _mail(info, p.seat, "a new game begins", [f"A game of {info.title} begins: {names}.", "", _waiting(info, p.seat)],
              msgid, now)
        for p in info.players
    ]


def commands_applied(
    info: "GameInfo", seat: int, commands: list[str], effects: list[str], private: dict[int, list[str]],
    msgid: MakeMsgid, now: datetime, sender_note: list[str] | None = None,
) -> list[OutboxMail]:
    who = player_label(info, seat)
    mails = []
    for p in info.players:
        lines = [textwrap.fill(f"{who} played: {'; '.join(commands)}", width=72), ""]
        lines += [textwrap.fill(e, width=72, initial_indent="- ", subsequent_indent="  ") for e in effects]
        if private.get(p.seat):
            lines += ["", "Only you see this:"]
            lines += [textwrap.fill(x, width=72, initial_indent="- ", subsequent_indent="  ") for x in private[p.seat]]
        if p.seat == seat and sender_note:
            lines += [""] + sender_note
        lines += ["", _waiting(info, p.seat)]
        mails.append(_mail(info, p.seat, f"{who}: {'; '.join(commands)}"[:120], lines, msgid, now))
    return mails


def moderator_change(info: "GameInfo", what: str, msgid: MakeMsgid, now: datetime) -> list[OutboxMail]:
    return [
        _mail(info, p.seat, "the moderator changed the game",
              [textwrap.fill(f"The moderator changed the game: {what}.", width=72), "", _waiting(info, p.seat)],
              msgid, now)
        for p in info.players
    ]
