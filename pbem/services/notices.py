"""Who is mailed what after a change to a game.

After an accepted submission:
- the sender gets a confirmation: what was done and what is still owed;
- the player who must decide next gets the request, with what happened;
- everybody else is mailed only when something public happened that they
  must know: a turn or a placement ended, an auction moved, somebody scored,
  the game ended (so a turn's three phases do not flood the table).

Every mail is built for its recipient from that recipient's own view of the
game, so another player's hand can never be in it. Subjects start with the
game's tag and a word players can filter on: "your turn", "bid", "result",
"info". A mail that asks for a decision carries its number in the subject and
the body. All mails of a game reference one thread root.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Callable

from .. import render
from ..games import get_game
from ..render.mail import render_notice
from ..store.models import OutboxMail

if TYPE_CHECKING:
    from .games import GameInfo

MakeMsgid = Callable[[], str]
MAX_LISTED = 40  # more legal commands than this: a sample per kind, and 'legal' gives all
PUBLIC_KINDS = {
    "auctions", "auction", "bid", "pass", "robot_bid", "robot_out", "won", "built", "robot_built", "no_bids",
    "building_stop", "auctions_end", "scored", "special_scoring", "game_over", "central_park_business", "placed",
}
RESULT_KINDS = ("game_over", "building_stop", "won", "no_bids", "scored", "special_scoring")


# --------------------------------------------------------------------------- small helpers


def player_label(info: "GameInfo", seat: int) -> str:
    return next(p.name for p in info.players if p.seat == seat)


def describe(event: dict[str, Any], info: "GameInfo") -> str:
    """An engine event in words, with player names instead of seat numbers."""
    text = event["text"]
    actor = event.get("actor")
    robot = getattr(info.state, "robot", None) if info.state is not None else None
    if actor is not None and actor != robot and not text.startswith(("the robot", "player ")):
        text = f"{player_label(info, actor)} {text}"
    text = with_names(info, text)  # 'player 2 declared a building stop ...' -> 'Bob declared ...'
    if event.get("points") and any(event["points"]):
        text += " (" + ", ".join(
            f"{player_label(info, p)} +{pts}" for p, pts in enumerate(event["points"]) if pts) + ")"
    return text


def with_names(info: "GameInfo", text: str) -> str:
    """'player 2 bids ...' -> 'Bob bids ...' (the engine numbers seats; mails name people)."""
    names = {p.seat: p.name for p in info.players}
    return re.sub(r"\b[Pp]layer (\d+)\b", lambda m: names.get(int(m.group(1)) - 1, m.group(0)), text)


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


def thread_root(info: "GameInfo", domain: str) -> str:
    """The Message-ID every mail of a game refers to: one thread per game.

    Made of the game's number and creation time, never of its seed: the seed
    and the engine give every hand and every stack, so no player may see it.
    """
    created = info.created_at.astimezone(timezone.utc).strftime("%Y%m%d%H%M%S")
    return f"<pbem-game-{info.id}-{created}@{domain}>"


def sample_commands(legal: list[str], limit: int = MAX_LISTED) -> list[str]:
    """All legal commands, or a sample with every kind of command in it when there are too many."""
    if len(legal) <= limit:
        return legal
    groups: dict[str, list[str]] = {}
    for command in legal:
        words = command.split()
        groups.setdefault(" ".join(words[:2]), []).append(command)
    for group in groups.values():
        group.sort(key=lambda c: len(c.split()))  # the simplest commands (fewest cards) first
    per_group = max(1, limit // len(groups))
    sample = [c for group in groups.values() for c in (group[:per_group] if len(group) > per_group else group)]
    return sample[:limit] if len(sample) > limit else sample


def turn_owner(state: Any) -> tuple[Any, ...]:
    """Whose turn or placement it is: when it changes, a turn ended."""
    for frame in state.frames:
        if frame["kind"] == "turn":
            return ("turn", frame["player"])
        if frame["kind"] == "placement":
            return ("placement", frame["index"])
    return ("over",)


# --------------------------------------------------------------------------- building one mail


class Mailer:
    """Builds the outbox rows for one change of one game."""

    def __init__(self, info: "GameInfo", msgid: MakeMsgid, now: datetime, domain: str) -> None:
        self.info = info
        self.msgid = msgid
        self.now = now
        self.domain = domain
        self.engine = get_game(info.kind)

    def mail(self, seat: int, subject: str, *, headline: str, happened: list[str] = (),  # type: ignore[assignment]
             private: list[str] = (), note: list[str] = ()) -> OutboxMail:  # type: ignore[assignment]
        info, state = self.info, self.info.state
        player = next(p for p in info.players if p.seat == seat)
        decision = None
        if asks(info, seat):
            legal = state.legal_commands()
            listed = sample_commands(legal)
            notes = [with_names(info, note) for note in self.engine.decision_notes(state)]
            decision = {"number": decision_number(info), "notes": notes,
                        "commands": listed, "more": len(legal) > len(listed), "total": len(legal)}
            subject += f" (decision {decision_number(info)})"
        names = [p.name for p in sorted(info.players, key=lambda p: p.seat)]
        subject = f"{subject_tag(info)} {subject}"
        context = {
            "headline": headline, "happened": list(happened), "private": list(private), "note": list(note),
            "decision": decision, "waiting": self._waiting(seat), "secret": player.secret,
            "board": render.board(info.kind, state.view(seat), players=names).rstrip(),
        }
        text, html = render_notice(subject, context)
        message_id = self.msgid()
        root = thread_root(info, self.domain)
        return OutboxMail(
            game_id=info.id,
            recipient=player.email,
            subject=subject,
            headers={"Message-ID": message_id, "In-Reply-To": root, "References": root,
                     "Auto-Submitted": "auto-generated", "X-Pbem-Game": str(info.id)},
            text_body=text,
            html_body=html,
            next_attempt_at=self.now,
            message_id=message_id,
            created_at=self.now,
        )

    def _waiting(self, seat: int) -> str:
        info, state = self.info, self.info.state
        if state.is_terminal():
            return "The game is over."
        if info.status != "active":
            return f"The game is {info.status}: nobody acts until the moderator resumes it."
        to_act = state.current_player()
        if to_act == seat:
            return ""
        owed = self.engine.owed_this_turn(state, seat)
        waiting = "Waiting: " + with_names(info, self.engine.decision_notes(state)[0])
        return waiting + (f" Then you still {owed}." if owed else "")

    def request_subject(self, seat: int) -> str:
        frame = self.info.state.frames[-1]
        board = self.info.state.board
        if frame["kind"] == "auction":
            return f"bid: {board.name(frame['site'])}"
        if frame["kind"] == "build":
            return f"bid: you won {board.name(frame['site'])}, build"
        return "your turn"

    def result_subject(self, events: list[dict[str, Any]]) -> str | None:
        info = self.info
        for kind in RESULT_KINDS:
            for event in events:
                if event["kind"] != kind:
                    continue
                if kind == "game_over":
                    winners = [player_label(info, w) for w in info.state.result["winners"]]
                    return f"result: game over, {' and '.join(winners)} {'wins' if len(winners) == 1 else 'share the win'}"
                return "result: " + describe(event, info).split(" (")[0]
        return None


# --------------------------------------------------------------------------- the cases


def game_started(info: "GameInfo", msgid: MakeMsgid, now: datetime, domain: str = "pbem.invalid") -> list[OutboxMail]:
    mailer = Mailer(info, msgid, now, domain)
    names = ", ".join(p.name for p in sorted(info.players, key=lambda p: p.seat))
    mails = []
    for p in info.players:
        subject = mailer.request_subject(p.seat) if asks(info, p.seat) else "info: a new game begins"
        mails.append(mailer.mail(
            p.seat, subject, headline=f"A game of {info.title} begins: {names}.",
            note=[f"You play seat {p.seat + 1}. Every mail shows the board as you may see it, with your own hand."],
        ))
    return mails


def commands_applied(
    info: "GameInfo", seat: int, commands: list[str], effects: list[str], private: dict[int, list[str]],
    msgid: MakeMsgid, now: datetime, sender_note: list[str] | None = None, *,
    events: list[dict[str, Any]] | None = None, turn_before: tuple[Any, ...] | None = None,
    domain: str = "pbem.invalid",
) -> list[OutboxMail]:
    mailer = Mailer(info, msgid, now, domain)
    state = info.state
    events = events or []
    who = player_label(info, seat)
    public = state.is_terminal() or turn_owner(state) != turn_before or any(e["kind"] in PUBLIC_KINDS for e in events)
    result = mailer.result_subject(events)
    mails = []
    for p in info.players:
        acting = asks(info, p.seat)
        if p.seat != seat and not acting and not public:
            continue
        if acting:
            subject = mailer.request_subject(p.seat)
        elif result:
            subject = result
        elif p.seat == seat:
            subject = f"info: done: {'; '.join(commands)}"[:100]
        else:
            subject = f"info: {who} played {'; '.join(commands)}"[:100]
        headline = (f"You played: {'; '.join(commands)}" if p.seat == seat else f"{who} played: {'; '.join(commands)}")
        note = list(sender_note or []) if p.seat == seat else []
        mails.append(mailer.mail(p.seat, subject, headline=headline, happened=effects,
                                 private=private.get(p.seat, []), note=note))
    return mails


def moderator_change(info: "GameInfo", what: str, msgid: MakeMsgid, now: datetime,
                     domain: str = "pbem.invalid") -> list[OutboxMail]:
    mailer = Mailer(info, msgid, now, domain)
    return [
        mailer.mail(p.seat, mailer.request_subject(p.seat) if asks(info, p.seat) else "info: the moderator changed the game",
                    headline=f"The moderator changed the game: {what}.")
        for p in info.players
    ]
