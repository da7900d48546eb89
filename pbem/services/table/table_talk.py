"""Talking at the table: players to each other, a player to the moderator, the moderator to players.

Every word is an event of the game (kept in its history and archive) and is relayed at once, in the game's
thread, to the players it is for, whatever their delivery setting: somebody is talking to them. The relayed
mail is short and has no board: the words, each line marked as the speaker's (``render.text.said_lines``), so
no line of them can pass for one of pbem's. A player's word to the moderator goes to the moderator's address
with the game and the player named; the moderator's reply to that mail (or ``pbem game tell``) comes back to
the player.

Talk has budgets of its own (docs/limits.md): all the ``say`` texts of one mail go out as one message, all its
``moderator`` texts as another; one mail carries at most ``MAX_TALK`` characters of talk in all, and a player
has ``TALK_AN_HOUR`` messages an hour, all games together. Talk beyond either is refused, saying when the
player may write again; the mail's commands still apply (``TalkPlan``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from sqlmodel import select

from ...render.text import said_lines, wrap
from ...store.models import Event, Seat
from ...store.uow import UnitOfWork
from ...timespans import format_moment
from ..mail_out import notices
from ..common.deadlines import aware
from ..common.errors import BadRequest, GameNotActive
from ..common.game_info import GameInfo
from ..common.ledger import PLAYER_HEADER

if TYPE_CHECKING:
    from .games import GameChanges

MAX_TALK = 4000  # characters of talk in one player's mail (all its texts together), and of one tell text
TALK_AN_HOUR = 10  # talk messages relayed for one player an hour, all games together (a mail makes one or two)
TALK_WINDOW = timedelta(hours=1)
SENT_KINDS = ("say", "to_moderator")  # the events of a player's talk: what TALK_AN_HOUR counts


@dataclass
class Refused:
    """Texts of a mail's talk that are not relayed: the first one's first line, why, and how many texts."""

    line: str
    why: str
    texts: int = 1


@dataclass
class TalkPlan:
    """What becomes of one mail's talk: the texts relayed (its say texts as one message to the other players,
    its moderator texts as one message to the moderator) and the ones refused."""

    say: list[str] = field(default_factory=list)
    moderator: list[str] = field(default_factory=list)
    refused: list[Refused] = field(default_factory=list)

    @property
    def relayed(self) -> bool:
        return bool(self.say or self.moderator)


def wrap_lines(text: str) -> list[str]:
    return wrap(text).splitlines()


QUOTED = 60  # characters of a talk text's first line quoted back in its writer's reply


def first_line(word: str, text: str) -> str:
    """The line a talk text started on, as the player wrote it (its start, when long: the reply names the text,
    it does not send it back)."""
    line = f"{word} {(text.splitlines() or [''])[0]}".strip()
    return line if len(line) <= QUOTED else line[: QUOTED - 3].rstrip() + "..."


class TableTalk:
    def __init__(self, games: GameChanges, *, moderator: str = "") -> None:
        self.games = games
        self.moderator = moderator

    def refusal(self, word: str, text: str) -> str:
        """Why ``text`` cannot be relayed by ``word`` (say, moderator, tell) whatever the budgets, or ""."""
        if not text.strip():
            return "there are no words to relay"
        if len(text) > MAX_TALK:
            return f"it is {len(text):,} characters long; at most {MAX_TALK:,} go in one message"
        if word == "moderator" and not self.moderator:
            return "this game has no moderator address configured, so nobody would read it"
        return ""

    # ------------------------------------------------------------------ a player's mail: the budgets

    def plan(self, email: str, talks: list[tuple[str, str]]) -> TalkPlan:
        """Which of a mail's talk texts (word, text) are relayed and which are refused, and why: in the mail's
        order, until its talk passes MAX_TALK characters; then as many messages as the sender has left of
        TALK_AN_HOUR."""
        plan = TalkPlan()
        used = 0
        for at, (word, text) in enumerate(talks):
            why = "there are no words to relay" if not text.strip() else (
                "this game has no moderator address configured, so nobody would read it"
                if word == "moderator" and not self.moderator else "")
            if why:
                plan.refused.append(Refused(first_line(word, text), why))
                continue
            if used + len(text) > MAX_TALK:
                rest = talks[at:]
                plan.refused.append(Refused(first_line(word, text), (
                    f"one mail carries at most {MAX_TALK:,} characters of talk, and this text would take yours to "
                    f"{used + len(text):,}; it and the talk after it were not relayed. Send the rest in another "
                    "mail, or shorten it"), len(rest)))
                break
            (plan.say if word == "say" else plan.moderator).append(text)
            used += len(text)
        self._keep_to_the_hour(email, plan)
        return plan

    def _keep_to_the_hour(self, email: str, plan: TalkPlan) -> None:
        """Refuse the messages of ``plan`` beyond what ``email`` has left of TALK_AN_HOUR."""
        wanted = [word for word, texts in (("say", plan.say), ("moderator", plan.moderator)) if texts]
        if not wanted:
            return
        now = self.games.clock()
        sent = self.sent_since(email, now - TALK_WINDOW)
        room = TALK_AN_HOUR - len(sent)
        relayed = min(max(room, 0), len(wanted))
        # One more message may go once the window holds TALK_AN_HOUR - 1: when the oldest of what it will hold
        # (the hour's messages, then this mail's, sent now) have grown an hour old.
        oldest = (sent + [now] * relayed)[len(sent) + relayed - TALK_AN_HOUR] if len(sent) + relayed >= TALK_AN_HOUR \
            else now
        frees = oldest + TALK_WINDOW
        for word in wanted[relayed:]:
            texts = plan.say if word == "say" else plan.moderator
            plan.refused.append(Refused(first_line(word, texts[0]), (
                f"pbem relays at most {TALK_AN_HOUR} messages of talk an hour for one player, and you have had "
                f"{len(sent)} in the last hour; you may write again from {format_moment(frees)}"), len(texts)))
            texts.clear()

    def sent_since(self, email: str, since: datetime) -> list[datetime]:
        """When ``email``'s talk messages of every game since ``since`` were relayed, oldest first."""
        with UnitOfWork(self.games.engine) as uow:
            games = select(Seat.game_id).where(Seat.email == email)
            rows = uow.session.exec(select(Event.created_at).where(
                Event.game_id.in_(games), Event.actor == email,  # type: ignore[attr-defined]
                Event.kind.in_(SENT_KINDS), Event.created_at >= since)  # type: ignore[attr-defined]
                .order_by(Event.created_at)).all()
        return [aware(moment) for moment in rows]

    # ------------------------------------------------------------------ relaying

    def _lines(self, word: str, text: str) -> list[str]:
        why = self.refusal(word, text)
        if why:
            raise BadRequest(why)
        return [line.rstrip() for line in text.strip().splitlines()]

    def say(self, game_id: int, email: str, texts: str | list[str]) -> int:
        """``email`` says ``texts`` (one message, however many texts) to every other player of the game.
        Returns how many were mailed."""
        lines = self._joined("say", [texts] if isinstance(texts, str) else texts)
        games = self.games
        with games.changing(game_id) as (uow, game, info):
            if game.status == "aborted":
                raise GameNotActive(f"game {game_id} was aborted")
            seat = games.seat_of(info, email)
            name = info.player(seat).name
            self._event(uow, info, email, seat, "say", lines, f"{name} says:", name)
            mails = self._relay(uow, info, seat, [p.seat for p in info.players], f"{name} says:", name, lines)
            uow.commit()
            return len(mails)

    def tell(self, game_id: int, text: str, email: str | None = None) -> int:
        """The moderator says ``text`` to one player (``email``) or to all. Returns how many were mailed."""
        lines = self._lines("tell", text)
        games = self.games
        with games.changing(game_id) as (uow, game, info):
            seats = [games.seat_of(info, email)] if email else [p.seat for p in info.players]
            to = f" to {info.player(seats[0]).name}" if email else ""
            headline = f"The moderator says{to}:"
            self._event(uow, info, "moderator", None, "tell", lines, headline, "moderator",
                        to=seats if email else None)
            mails = self._relay(uow, info, None, seats, headline, "moderator", lines)
            uow.commit()
            return len(mails)

    def to_moderator(self, game_id: int, email: str, texts: str | list[str]) -> str:
        """``email`` writes ``texts`` (one message, however many texts) to the moderator; returns the
        moderator's address."""
        lines = self._joined("moderator", [texts] if isinstance(texts, str) else texts)
        games = self.games
        with games.changing(game_id) as (uow, game, info):
            seat = games.seat_of(info, email)
            name = info.player(seat).name
            self._event(uow, info, email, seat, "to_moderator", lines, "You wrote to the moderator:", "you",
                        to=[seat])
            now = games.clock()
            body = [*wrap_lines(f"{name} <{email}> writes about {info.title} #{info.id} (seat {seat + 1}); each line "
                                f"of theirs begins with '{name} |':"), "", *said_lines(name, lines, indent=""), "",
                    *wrap_lines(f"Reply to this mail to answer {name}: pbem sends your reply on to them. Or: pbem "
                                f"game tell {info.id} --player {email} \"...\"")]
            mail = notices.to_moderator(self.moderator, f"{info.title} #{info.id}: {name} writes", body,
                                        games.new_message_id, now, game_id=info.id, headers={PLAYER_HEADER: email},
                                        verbatim=True)
            uow.session.add(mail)
            uow.commit()
            return self.moderator

    def _joined(self, word: str, texts: list[str]) -> list[str]:
        """The lines of one message made of ``texts``, one after the other."""
        lines: list[str] = []
        for text in texts:
            lines += self._lines(word, text)
        if sum(len(text) for text in texts) > MAX_TALK:
            raise BadRequest(f"at most {MAX_TALK:,} characters of talk go in one message")
        return lines

    def _relay(self, uow: UnitOfWork, info: GameInfo, speaker: int | None, readers: list[int], headline: str,
               name: str, lines: list[str]) -> list:
        """The short mails that relay the newest event's words to ``readers`` (not the speaker, not robots).
        A reader (or the speaker) told of everything before these words is now told of them too; one who was
        not hears of them again with the rest, in their next game mail."""
        games = self.games
        mails = notices.talk(info, speaker, readers, headline, name, lines, games.new_message_id, games.clock(),
                             games.mail_domain)
        uow.session.add_all(mails)
        mailed = {mail.recipient for mail in mails}
        told = {p.seat for p in info.players  # the speaker knows their own words
                if (p.email in mailed or p.seat == speaker) and p.told_seq == info.last_seq - 1}
        games.told(uow.session, info, told)
        return mails

    def _event(self, uow: UnitOfWork, info: GameInfo, actor: str, seat: int | None, kind: str, lines: list[str],
               headline: str, speaker: str, to: list[int] | None = None) -> None:
        """The words as the game's newest event; ``info`` (loaded under the game's lock) moves on to it."""
        data = {"words": headline, "speaker": speaker, "lines": lines, **({"readers": to} if to is not None else {})}
        info.last_seq += 1
        uow.session.add(Event(game_id=info.id, seq=info.last_seq, actor=actor, seat=seat, kind=kind,
                              text="\n".join(lines), source="mail" if actor != "moderator" else "cli", data=data,
                              created_at=self.games.clock()))


__all__ = ["MAX_TALK", "TALK_AN_HOUR", "Refused", "TableTalk", "TalkPlan", "first_line"]
