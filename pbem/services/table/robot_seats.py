"""Seats played by pbem's robots: their moves when their decision is due (who they are: ``robot_names``).

A robot seat is made by giving a robot instead of an address (``--player Robo=robot``, ``robot:strong``; or
``pbem game replace-player ID EMAIL robot``). It is kept as a seat like any other, with the robot's kind in
``seats.robot`` and an address of its own under ``robots.invalid`` (RFC 2606: no mail is ever delivered
there). Nobody mails a robot: the game service queues no mail to it, and a mail that says it is from one is
ignored like automatic mail (services.mail_in.screening), so no one can play its seat by forging its address.

A robot decides as soon as its decision is due, in the worker's pass (``RobotPlayers.play_due``), from what
its player may see: the engine's ``robots`` module gets the seat's view and the legal commands, never the
state. Its moves are submitted like anybody's (``by="robot"``), so the other players are told of them as of
any move. A robot's choice is seeded by the game's seed and the number of moves made, so a game replays
identically.
"""

from __future__ import annotations

import importlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from sqlalchemy import true
from sqlmodel import select

from ...games import get_game
from ...store.db import is_transient
from ...store.models import Game, GameStatus, Seat
from ...store.uow import UnitOfWork
from ..common.deadlines import get_mark, set_mark
from ..mail_out.notices import to_moderator
from .robot_names import robot_address

if TYPE_CHECKING:
    from .games import GameChanges

# A table of robots alone plays on in the next pass, so one pass never keeps the mailbox waiting for long: at
# most this many moves, or this many seconds of deciding (a searching robot takes up to about 2 s a decision).
# Seconds of the CPU that the worker's thread spends (time.thread_time), not of the wall clock: a machine busy
# with other work makes the same moves take longer, not cost more, so which robots' moves go out with a person's
# answer does not depend on the machine's load (issue 40).
MOST_MOVES_A_PASS = 400
MOST_SECONDS_A_PASS = 20.0
# A robot that cannot play holds up its game until the moderator acts; the moderator hears of it at once, and
# again each day it lasts, not at every pass.
STUCK_NOTICE_EVERY = timedelta(days=1)


def decide(kind: str, robot: str, state: Any, seat: int, seed: int) -> str:
    """The command the robot ``robot`` plays at ``seat`` now. It gets the seat's view as plain data (what its
    player's mails show), never the state, so it cannot see another player's hand."""
    view = json.loads(json.dumps(state.view(seat)))
    robots = importlib.import_module(f"{get_game(kind).__name__}.robots")
    play = robots.strong if robot == "strong" else robots.heuristic
    return play(view, state.legal_commands(), seed)


@dataclass
class RobotMoves:
    """What ``play_due`` did: (game, seat, command) of each robot move, in order."""

    moves: list[tuple[int, int, str]] = field(default_factory=list)
    more: bool = False  # it stopped at its limit with a robot's decision still due: the next pass goes on
    failed: list[tuple[int, int, str]] = field(default_factory=list)  # (game, seat, why) of a robot that could not play

    def lines(self) -> list[str]:
        return ([f"game {game_id}: the robot at seat {seat + 1} played {command}" for game_id, seat, command in self.moves]
                + [f"game {game_id}: the robot at seat {seat + 1} could not play ({why}); the game waits for it, and "
                   "the next pass tries again" for game_id, seat, why in self.failed])


class RobotPlayers:
    """The robots' turn in a pass of the worker."""

    def __init__(self, games: GameChanges, *, clock: Callable[[], float] = time.thread_time) -> None:
        self.games = games
        self.clock = clock

    def games_with_robots(self) -> list[int]:
        """The running games that have a robot seat."""
        with UnitOfWork(self.games.engine) as uow:
            return sorted(set(uow.session.exec(
                select(Seat.game_id).join(Game, Game.id == Seat.game_id)
                .where(Seat.robot != "", Game.status == GameStatus.ACTIVE)).all()))

    def due_games(self, game_ids: list[int] | None = None) -> list[int]:
        """The running games (of ``game_ids``, default: all) where a robot must decide now: found in the index of
        ``games.robot_due``, which every change of a game keeps (``deadlines.open_clock``; the timekeeper when
        a robot takes a late player's seat), so a pass reads nothing of the games that wait for a person,
        however many they are."""
        if game_ids is not None and not game_ids:
            return []
        wanted = [] if game_ids is None else [Game.id.in_(game_ids)]  # type: ignore[attr-defined]
        with UnitOfWork(self.games.engine) as uow:
            # The mark alone, which only a running game has: with the status beside it, a database without
            # statistics may choose the index of the status and read every running game.
            return list(uow.session.exec(select(Game.id).where(Game.robot_due == true(), *wanted)
                                         .order_by(Game.id)).all())

    def play_due(self, game_ids: list[int] | None = None, *, most: int = MOST_MOVES_A_PASS,
                 seconds: float = MOST_SECONDS_A_PASS) -> RobotMoves:
        """Every robot whose decision is due plays it, game after game, until a person must decide, or until
        ``most`` moves were made or ``seconds`` spent (``more`` then says decisions are still due). Each move is a
        submission of its own, committed as a person's would be. The games are those of ``due_games``, looked up
        once: a robot that cannot play is tried once a call, and again by the next pass."""
        done = RobotMoves()
        stop_at = self.clock() + seconds
        for game_id in self.due_games(game_ids):
            first = True
            while True:
                info = self.games.get(game_id)
                seat = -1 if info.over or info.status != GameStatus.ACTIVE else info.state.current_player()
                robot = info.player(seat).robot if seat >= 0 else ""
                if not robot:
                    if first:
                        self._not_due(game_id)
                    break
                if len(done.moves) >= most or self.clock() >= stop_at:
                    done.more = True
                    return done
                try:
                    command = decide(info.kind, robot, info.state, seat, info.seed * 1_000_003 + info.state.moves)
                    self.games.submit(game_id, info.email_of(seat), command, source="robot", by="robot")
                except Exception as exc:
                    if is_transient(exc):
                        raise  # the database's failure, not the robot's: the worker's pass deals with it
                    # A robot's fault is its game's alone: the other games' robots and the mail go on.
                    done.failed.append((game_id, seat, f"{type(exc).__name__}: {exc}"[:300]))
                    break
                done.moves.append((game_id, seat, command))
                first = False
        return done

    def _not_due(self, game_id: int) -> None:
        """A game marked for its robots where no robot must decide (which no change of a game leaves behind):
        the mark goes, under the game's lock and only if still so, so no pass loads the game again for nothing."""
        with self.games.changing(game_id) as (uow, game, info):
            seat = -1 if info.over or game.status != GameStatus.ACTIVE else info.state.current_player()
            if game.robot_due and not (seat >= 0 and info.player(seat).robot):
                game.robot_due = False
                uow.session.add(game)
                uow.commit()

    def tell_moderator(self, failed: list[tuple[int, int, str]], moderator: str) -> list[str]:
        """The moderator is told of each robot that could not play (``RobotMoves.failed``): once when it
        starts, and again each day it lasts (a mark per game and seat keeps the time, across passes and
        workers). The lines of what was told, for the worker's log."""
        if not moderator or not failed:
            return []
        now = self.games.clock()
        told = []
        with UnitOfWork(self.games.engine, write=True) as uow:
            for game_id, seat, why in failed:
                mark = f"robot-stuck:{game_id}:{seat}"
                last = get_mark(uow.session, mark)
                if last is not None and now - last < STUCK_NOTICE_EVERY:
                    continue
                set_mark(uow.session, mark, now)
                name = self.games.get(game_id).player(seat).name
                uow.session.add(to_moderator(moderator, f"game {game_id}: {name} cannot play", [
                    f"The robot at seat {seat + 1} of game {game_id}, {name}, could not make its move:", "",
                    why, "",
                    "Nothing of it was applied, and the game waits for that seat. Every pass of the worker tries "
                    "again; you hear of it once a day while it lasts.", "",
                    f"To move the game on: pbem game legal {game_id} lists what the seat may do, and pbem game "
                    f"play {game_id} --as {robot_address(seat)} '<command>' plays one for it; or pbem game "
                    f"replace-player {game_id} {robot_address(seat)} <address, or the other robot> hands the "
                    "seat to somebody else.", "",
                    "This is a fault in pbem's robot: please report it with the game's export "
                    f"(pbem game export {game_id})."], self.games.new_message_id, now, game_id=game_id))
                told.append(f"game {game_id}: the moderator was told that the robot at seat {seat + 1} cannot play")
            uow.commit()
        return told


__all__ = ["RobotMoves", "RobotPlayers", "decide"]
