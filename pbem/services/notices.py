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
from datetime import datetime, timedelta, timezone
from typing import Any, Callable

from .. import render
from ..games import get_game
from ..render.mail import html_part, render_notice
from ..store.models import OutboxMail
from ..timespans import format_duration, format_moment
from ..words import listing, plural

from .game_info import GameInfo

MakeMsgid = Callable[[], str]
MAX_LISTED = 40  # more legal commands than this: a sample per kind, and 'legal' gives all


# --------------------------------------------------------------------------- small helpers


def player_label(info: GameInfo, seat: int) -> str:
    return next(p.name for p in info.players if p.seat == seat)


def describe(event: dict[str, Any], info: GameInfo, reader: int | None = None) -> str:
    """An engine event in words as the player at seat ``reader`` reads it (None: the moderator), with player
    names instead of seat numbers (a Manhattan site is numbered from the reader's side of the board)."""
    text = get_game(info.kind).event_text(info.state, event, reader) if info.state is not None else event["text"]
    actor = event.get("actor")
    robot = getattr(info.state, "robot", None) if info.state is not None else None
    if actor is not None and actor != robot and not text.startswith(("the robot", "player ")):
        text = f"{player_label(info, actor)} {text}"
    text = with_names(info, text)  # 'player 2 declared a building stop ...' -> 'Bob declared ...'
    if event.get("points") and any(event["points"]):
        text += " (" + ", ".join(
            f"{player_label(info, p)} +{pts}" for p, pts in enumerate(event["points"]) if pts) + ")"
    return text


def with_names(info: GameInfo, text: str) -> str:
    """'player 2 bids ...' -> 'Bob bids ...' (the engine numbers seats; mails name people)."""
    return named({p.seat: p.name for p in info.players}, text)


def named(names: dict[int, str], text: str) -> str:
    """``text`` with 'player N' replaced by the name of seat N - 1 in ``names``."""
    return re.sub(r"\b[Pp]layer (\d+)\b", lambda m: names.get(int(m.group(1)) - 1, m.group(0)), text)


def decision_number(info: GameInfo) -> int:
    """Numbers the decision the game waits for: the count of commands applied so far.

    A reply quoting an older number answers a situation that has moved on.
    """
    return info.state.moves


def asks(info: GameInfo, seat: int) -> bool:
    state = info.state
    return info.status == "active" and not state.is_terminal() and state.current_player() == seat


def subject_tag(info: GameInfo) -> str:
    return f"[{info.title} #{info.id}]"


def thread_root(info: GameInfo, domain: str) -> str:
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


# --------------------------------------------------------------------------- building one mail


class Mailer:
    """Builds the outbox rows for one change of one game."""

    def __init__(self, info: GameInfo, msgid: MakeMsgid, now: datetime, domain: str) -> None:
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
        asked: dict[str, Any] = {}
        if asks(info, seat):
            key, words = self.engine.decision_context(state)
            asked = {"decision": decision_number(info), "decision_key": key[:120],
                     "decision_words": with_names(info, words)[:255]}
            legal = state.legal_commands()
            listed = sample_commands(legal)
            notes = [with_names(info, note) for note in self.engine.decision_notes(state)]
            decision = {"number": decision_number(info), "notes": notes,
                        "commands": listed, "more": len(legal) > len(listed), "total": len(legal),
                        "due": _due_line(info.due_at, self.now) if info.due_at else ""}
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
            **asked,
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
        return self.engine.decision_subject(self.info.state)

    def result_subject(self, events: list[dict[str, Any]]) -> str | None:
        info = self.info
        for kind in self.engine.RESULT_EVENTS:
            for event in events:
                if event["kind"] != kind:
                    continue
                if kind == "game_over":
                    winners = [player_label(info, w) for w in info.state.result["winners"]]
                    return f"result: game over, {' and '.join(winners)} {'wins' if len(winners) == 1 else 'share the win'}"
                return "result: " + describe(event, info).split(" (")[0]
        return None


def _due_line(due: datetime, now: datetime) -> str:
    left = (due - now).total_seconds()
    when = f"in {format_duration(left)}" if left > 0 else f"{format_duration(-left)} ago"
    return f"Answer by {format_moment(due)} ({when})."


def _moderator_headline(what: str, reason: str) -> str:
    return f"The moderator changed the game: {what}." + (f" The moderator says: {reason}" if reason else "")


# --------------------------------------------------------------------------- the cases


def game_started(info: GameInfo, msgid: MakeMsgid, now: datetime, domain: str = "pbem.invalid") -> list[OutboxMail]:
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


def told_everybody(info: GameInfo, events: list[dict[str, Any]], turn_before: tuple[Any, ...], by: str | None) -> bool:
    """Whether everybody is mailed after a submission: when a turn ended, something public happened (an auction
    moved, somebody scored), the game ended, or the moderator or a deadline played for somebody."""
    engine = get_game(info.kind)
    return (info.state.is_terminal() or engine.turn_owner(info.state) != turn_before or by is not None
            or any(e["kind"] in engine.PUBLIC_EVENTS for e in events))


def commands_applied(
    info: GameInfo, seat: int, commands: list[str], events: list[dict[str, Any]], private: dict[int, list[str]],
    msgid: MakeMsgid, now: datetime, sender_note: list[str] | None = None, *, told: bool = True,
    earlier: list[tuple[int, str, list[str]]] = (),  # type: ignore[assignment]
    domain: str = "pbem.invalid", by: str | None = None, reason: str = "",
) -> list[OutboxMail]:
    """The mails after a player's commands were applied (``by`` the moderator or the deadline, if not by the
    player themselves). ``told``: everybody is mailed (``told_everybody``), else only the sender and whoever
    must act. ``earlier``: (seat, command, effects) of this turn's commands sent in earlier mails that only
    their sender heard of; the others now hear the whole turn."""
    mailer = Mailer(info, msgid, now, domain)
    state = info.state
    who = player_label(info, seat)
    result = mailer.result_subject(events)
    runs: list[tuple[int, list[str]]] = []  # the turn's untold commands, player by player
    for who_played, command, _ in earlier:
        if runs and runs[-1][0] == who_played:
            runs[-1][1].append(command)
        else:
            runs.append((who_played, [command]))
    before = ". ".join(f"{player_label(info, s)} played: {'; '.join(cmds)}" for s, cmds in runs)
    mails = []
    for p in info.players:
        acting = asks(info, p.seat)
        if p.seat != seat and not acting and not told:
            continue
        effects = [describe(event, info, p.seat) for event in events]
        if acting:
            subject = mailer.request_subject(p.seat)
        elif result:
            subject = result
        elif p.seat == seat:
            subject = f"info: done: {'; '.join(commands)}"[:100]
        else:
            subject = f"info: {who} played {'; '.join([*(c for s, c, _ in earlier if s == seat), *commands])}"[:100]
        played = "; ".join(commands)
        if p.seat != seat:
            effects = [effect for *_, told_later in earlier for effect in told_later] + effects
        if by == "deadline":
            whose = "Your" if p.seat == seat else f"{who}'s"
            headline = f"{whose} deadline passed, so this was played for {'you' if p.seat == seat else who}: {played}"
        elif by == "moderator":
            headline = f"The moderator played for {'you' if p.seat == seat else who}: {played}"
        elif p.seat != seat and runs and runs[-1][0] == seat:
            headline = before + "; " + played  # the turn goes on in its player's list
        else:
            headline = f"You played: {played}" if p.seat == seat else f"{who} played: {played}"
        if p.seat != seat and runs and (by or runs[-1][0] != seat):
            headline = f"{before}. {'Then: ' + headline[0].lower() + headline[1:] if by else headline}"
        if reason:
            headline += f". The moderator says: {reason}"
        note = list(sender_note or []) if p.seat == seat else []
        mails.append(mailer.mail(p.seat, subject, headline=headline, happened=effects,
                                 private=private.get(p.seat, []), note=note))
    return mails


def moderator_change(info: GameInfo, what: str, msgid: MakeMsgid, now: datetime,
                     domain: str = "pbem.invalid", reason: str = "") -> list[OutboxMail]:
    """Everybody is told what the moderator changed (``what``, in words, with player names), and why."""
    return _to_everybody(info, _moderator_headline(with_names(info, what), reason),
                         "info: the moderator changed the game", msgid, now, domain)


def commands_named(names: dict[int, str], commands: list[tuple[int, str]], limit: int = 12) -> str:
    """Commands with who played them: "Ann's 'cards orange gray' and Bob's 'pass'"."""
    return listing([f"{names.get(seat, f'seat {seat + 1}')}'s '{command}'" for seat, command in commands], limit)


def undo_words(names: dict[int, str], taken_back: list[tuple[int, str]], put_back: list[tuple[int, str]]) -> str:
    """What an undo did, in words: "took back 2 commands: Ann's 'cards orange gray' and Ann's 'move white TS'"
    (and, after an undo of an undo, the commands it put back)."""
    said = []
    if taken_back:
        said.append(f"took back {plural(len(taken_back), 'command')}: {commands_named(names, taken_back)}")
    if put_back:
        said.append(f"put back {plural(len(put_back), 'command')}: {commands_named(names, put_back)}")
    return "; ".join(said) or "took back no command (the game was already as asked)"


def commands_undone(info: GameInfo, taken_back: list[tuple[int, str]], put_back: list[tuple[int, str]],
                    msgid: MakeMsgid, now: datetime, domain: str = "pbem.invalid",
                    reason: str = "") -> list[OutboxMail]:
    """The moderator's undo: every player is told which commands were taken back and who had played them."""
    names = {p.seat: p.name for p in info.players}
    headline = (f"The moderator {undo_words(names, taken_back, put_back)}. The board below is the game as it "
                "stands now." + (f" The moderator says: {reason}" if reason else ""))
    count = len(taken_back) or len(put_back)
    subject = f"info: the moderator took back {plural(count, 'command')}" if taken_back else \
        "info: the moderator changed the game"
    return _to_everybody(info, headline, subject, msgid, now, domain)


def seat_given_away(info: GameInfo, seat: int, old_name: str, old_email: str, msgid: MakeMsgid, now: datetime,
                    reason: str = "") -> OutboxMail:
    """The player the moderator replaced is told, at their old address, that they no longer play: which game,
    who plays their seat now, and the moderator's reason. A plain mail: the board is no longer theirs to see."""
    new = player_label(info, seat)
    lines = [
        f"Hello {old_name},",
        "",
        f"you no longer play in {info.title} #{info.id}: the moderator gave your seat (seat {seat + 1}) to "
        + (f"{new}." if new != old_name else "somebody else, who plays it under the same name."),
        "",
    ]
    if reason:
        lines += [f"The moderator says: {reason}", ""]
    lines += ["Mails you send to this game are no longer read as moves, and you get no more of its mails. If "
              "this is a mistake, write to the moderator.", "", "The players now: "
              + ", ".join(p.name for p in sorted(info.players, key=lambda p: p.seat)) + "."]
    return plain_mail(old_email, f"{info.title} #{info.id}: you no longer play", lines, msgid, now, game_id=info.id)


def board_again(info: GameInfo, msgid: MakeMsgid, now: datetime, domain: str = "pbem.invalid", *,
                seats: list[int] | None = None) -> list[OutboxMail]:
    """The board as it stands (the moderator's resend), with the request to whoever must decide."""
    return _to_everybody(info, "The moderator sent the board again, as it stands now.",
                         "info: the board as it stands", msgid, now, domain, seats)


def _to_everybody(info: GameInfo, headline: str, subject: str, msgid: MakeMsgid, now: datetime, domain: str,
                  seats: list[int] | None = None) -> list[OutboxMail]:
    """One mail a player (of ``seats``, or all): the request to whoever must decide, ``subject`` to the rest."""
    mailer = Mailer(info, msgid, now, domain)
    return [mailer.mail(p.seat, mailer.request_subject(p.seat) if asks(info, p.seat) else subject, headline=headline)
            for p in info.players if seats is None or p.seat in seats]


def absence_announced(info: GameInfo, seat: int, starts: datetime, ends: datetime, msgid: MakeMsgid,
                      now: datetime, domain: str = "pbem.invalid") -> list[OutboxMail]:
    """The player at ``seat`` will be away: everybody in the game is told (the absent player as a receipt)."""
    mailer = Mailer(info, msgid, now, domain)
    who = player_label(info, seat)
    last = ends - timedelta(days=1)
    days = (ends - starts).days
    span = f"from {starts:%A %-d %B} to {last:%A %-d %B %Y}"
    mails = []
    for p in info.players:
        headline = (f"You will be away {span}." if p.seat == seat else f"{who} will be away {span}.")
        note = [f"Any deadline of {'yours' if p.seat == seat else who + chr(39) + 's'} that falls in that time moves "
                f"{days} day{'s' if days != 1 else ''} later."]
        subject = mailer.request_subject(p.seat) if asks(info, p.seat) else f"info: {who} will be away"
        mails.append(mailer.mail(p.seat, subject, headline=headline, note=note))
    return mails


def reminder(info: GameInfo, seat: int, msgid: MakeMsgid, now: datetime, domain: str = "pbem.invalid") -> OutboxMail:
    """The player who must decide is reminded, with the board and the options."""
    mailer = Mailer(info, msgid, now, domain)
    return mailer.mail(seat, f"reminder, {mailer.request_subject(seat)}",
                       headline="A reminder: the game is waiting for your decision.")


def late_notice(info: GameInfo, seat: int, late: timedelta, msgid: MakeMsgid, now: datetime,
                domain: str = "pbem.invalid") -> OutboxMail:
    """The player who missed their deadline is told (again, every day until something happens)."""
    mailer = Mailer(info, msgid, now, domain)
    passed = (f"passed {format_duration(late.total_seconds())} ago" if late >= timedelta(minutes=1)
              else "has just passed")
    return mailer.mail(seat, f"late, {mailer.request_subject(seat)}",
                       headline=f"Your deadline {passed} and the game is waiting for you. The moderator has been "
                                "told.",
                       note=["If you cannot play for a while, send 'away DATE to DATE' (for example "
                             f"'away {now:%Y-%m-%d} to {now + timedelta(days=3):%Y-%m-%d}'), or tell the moderator."])


def to_moderator(moderator: str, subject: str, lines: list[str], msgid: MakeMsgid, now: datetime, *,
                 game_id: int | None = None) -> OutboxMail:
    """A plain mail to the moderator (a timeout, a bounce, a mail that could not be sent, ...)."""
    return plain_mail(moderator, f"moderator: {subject}", lines, msgid, now, game_id=game_id)


def plain_mail(to: str, subject: str, lines: list[str], msgid: MakeMsgid, now: datetime, *,
               game_id: int | None = None) -> OutboxMail:
    """A mail of a few paragraphs, no board: ``lines`` are paragraphs, each wrapped at 72 columns."""
    import textwrap

    text = "\n".join(textwrap.fill(line, 72, break_long_words=False, break_on_hyphens=False) if line else ""
                     for line in lines).rstrip() + "\n"
    message_id = msgid()
    return OutboxMail(game_id=game_id, recipient=to, subject=f"[pbem] {subject}"[:200],
                      headers={"Message-ID": message_id, "Auto-Submitted": "auto-generated",
                               **({"X-Pbem-Game": str(game_id)} if game_id is not None else {})},
                      text_body=text, html_body=None, next_attempt_at=now, message_id=message_id, created_at=now)


def digest(email: str, sections: list[tuple[GameInfo, str]], msgid: MakeMsgid, now: datetime) -> OutboxMail:
    """One mail for a player who must act in several games: each game's reminder, one after the other."""
    games = ", ".join(f"#{info.id}" for info, _ in sections)
    subject = f"[pbem] digest: your move in {len(sections)} games ({games})"
    import textwrap

    intro = [
        f"You must decide in {len(sections)} games. Instead of a reminder for each, they come together here, "
        "once a day.",
        "Answer each game by replying to its own latest mail, or write a new mail to the game's address that "
        "starts with the line 'game N' (one game a mail).",
    ]
    parts = ["\n\n".join(textwrap.fill(paragraph, 72) for paragraph in intro)]
    for info, text in sections:
        rule = f"==== {info.title} #{info.id} "
        parts.append(rule + "=" * max(4, 72 - len(rule)) + "\n\n" + text.rstrip())
    text = "\n\n".join(parts) + "\n"
    message_id = msgid()
    return OutboxMail(game_id=None, recipient=email, subject=subject,
                      headers={"Message-ID": message_id, "Auto-Submitted": "auto-generated"},
                      text_body=text, html_body=html_part(subject, text), next_attempt_at=now,
                      message_id=message_id, created_at=now)
