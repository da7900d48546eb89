"""Talking at the table: players to each other, a player to the moderator, the moderator to players.

Every word is an event of the game (kept in its history and archive) and is
relayed at once, in the game's thread, to the players it is for, whatever
their delivery setting: somebody is talking to them. A player's word to the
moderator goes to the moderator's address with the game and the player named;
the moderator's reply to that mail (or ``pbem game tell``) comes back to the
player.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..store.models import Event
from ..store.uow import UnitOfWork
from . import notices
from .ledger import PLAYER_HEADER
from .game_info import GameInfo
from .errors import BadRequest, GameNotActive

if TYPE_CHECKING:
    from .games import GameService

MAX_TALK = 4000  # characters of one say, moderator or tell text


class TableTalk:
    def __init__(self, games: GameService, *, moderator: str = "") -> None:
        self.games = games
        self.moderator = moderator

    def refusal(self, word: str, text: str) -> str:
        """Why ``text`` cannot be relayed by ``word`` (say, moderator, tell), or "" when it can."""
        if not text.strip():
            return "there are no words to relay"
        if len(text) > MAX_TALK:
            return f"it is {len(text)} characters long; at most {MAX_TALK} go in one message"
        if word == "moderator" and not self.moderator:
            return "this game has no moderator address configured, so nobody would read it"
        return ""

    def _lines(self, word: str, text: str) -> list[str]:
        why = self.refusal(word, text)
        if why:
            raise BadRequest(why)
        return [line.rstrip() for line in text.strip().splitlines()]

    def say(self, game_id: int, email: str, text: str) -> int:
        """``email`` says ``text`` to every other player of the game. Returns how many were mailed."""
        lines = self._lines("say", text)
        games = self.games
        with games.changing(game_id) as (uow, game, info):
            if game.status == "aborted":
                raise GameNotActive(f"game {game_id} was aborted")
            seat = games.seat_of(info, email)
            name = info.player(seat).name
            words = f"{name} says: {lines[0]}"
            self._event(uow, info, email, seat, "say", lines, words)
            now = games.clock()
            mails = games.post(uow.session, info, lambda info: notices.talk(
                info, seat, [p.seat for p in info.players], words, games.new_message_id, now, games.mail_domain))
            uow.commit()
            return len(mails)

    def tell(self, game_id: int, text: str, email: str | None = None) -> int:
        """The moderator says ``text`` to one player (``email``) or to all. Returns how many were mailed."""
        lines = self._lines("tell", text)
        games = self.games
        with games.changing(game_id) as (uow, game, info):
            seats = [games.seat_of(info, email)] if email else [p.seat for p in info.players]
            to = f" to {info.player(seats[0]).name}" if email else ""
            words = f"The moderator says{to}: {lines[0]}"
            self._event(uow, info, "moderator", None, "tell", lines, words, to=seats if email else None)
            now = games.clock()
            mails = games.post(uow.session, info, lambda info: notices.talk(
                info, None, seats, words, games.new_message_id, now, games.mail_domain))
            uow.commit()
            return len(mails)

    def to_moderator(self, game_id: int, email: str, text: str) -> str:
        """``email`` writes ``text`` to the moderator; returns the moderator's address."""
        lines = self._lines("moderator", text)
        games = self.games
        with games.changing(game_id) as (uow, game, info):
            seat = games.seat_of(info, email)
            name = info.player(seat).name
            self._event(uow, info, email, seat, "to_moderator", lines, f"You wrote to the moderator: {lines[0]}",
                        to=[seat])
            now = games.clock()
            body = [f"{name} <{email}> writes about {info.title} #{info.id} (seat {seat + 1}):", "",
                    *lines, "",
                    f"Reply to this mail to answer {name}: pbem sends your reply on to them. Or: pbem game tell "
                    f"{info.id} --player {email} \"...\""]
            mail = notices.to_moderator(self.moderator, f"{info.title} #{info.id}: {name} writes", body,
                                        games.new_message_id, now, game_id=info.id, headers={PLAYER_HEADER: email})
            uow.session.add(mail)
            uow.commit()
            return self.moderator

    def _event(self, uow: UnitOfWork, info: GameInfo, actor: str, seat: int | None, kind: str, lines: list[str],
               words: str, to: list[int] | None = None) -> None:
        """The words as the game's newest event; ``info`` (loaded under the game's lock) moves on to it."""
        data = {"words": words, "lines": lines[1:], **({"readers": to} if to is not None else {})}
        info.last_seq += 1
        uow.session.add(Event(game_id=info.id, seq=info.last_seq, actor=actor, seat=seat, kind=kind,
                              text="\n".join(lines), source="mail" if actor != "moderator" else "cli", data=data,
                              created_at=self.games.clock()))


__all__ = ["MAX_TALK", "TableTalk"]
