"""The moderator's side of tables players start by mail (docs/signup.md): open a table from the CLI, start or
close one, approve one opened by mail, list the tables, list and remove a game's watchers. ``SignupAdmin`` is
the signup service (services.table.signup) with these calls, each one unit of work; `pbem game open`,
`start`, `close`, `approve`, `tables`, `watchers` and `unwatch` call it.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import func
from sqlmodel import select

from ...limits import MAX_GAME_ID

from ...store.models import SignupTable, Watcher
from ...store.uow import UnitOfWork
from ..common.deadlines import aware
from ..common.errors import BadRequest
from ..common.input_checks import checked_address
from ..mail_out import notices
from .signup import CLOSED, OPEN, WAITING, Signup, SignupRefused
from .signup_words import TableInfo, table_words


TABLES_A_PAGE = 50  # tables `pbem game tables` lists a page


class SignupAdmin(Signup):
    def open_by_moderator(self, kind: str, *, players: int | None = None, back_side: bool = False,
                          deadline: int | None = None) -> int:
        """``pbem game open``: a table nobody sits at yet, open to join whatever ``[signup] new`` says."""
        with UnitOfWork(self.games.engine, write=True) as uow:
            table = self.open_table(uow.session, "moderator", kind, players=players, back_side=back_side,
                                    deadline=deadline)
            uow.commit()
            return table.id or 0

    def start_by_moderator(self, table_id: int, *, robots: bool = False) -> int:
        """``pbem game start``: start a table now with the players it has (robots in its free seats with
        ``robots``), whoever opened it; returns the game's number."""
        with UnitOfWork(self.games.engine, write=True) as uow:
            uow.serialize("signup")
            s = uow.session
            line = f"start {table_id}" + (" with robots" if robots else "")
            table = self._table(s, table_id, line)
            if table.status not in (OPEN, WAITING):
                raise SignupRefused(line, f"table {table_id} is {table.status}"
                                    + (f", as game {table.game_id}" if table.game_id else ""))
            game_id = self._begin(uow, s, table, robots=robots, line=line)
            uow.commit()
            return game_id

    def close(self, table_id: int) -> list[str]:
        """``pbem game close``: a table that has not started will not; its players are mailed so. Returns
        their addresses."""
        with UnitOfWork(self.games.engine, write=True) as uow:
            uow.serialize("signup")
            s = uow.session
            table = self._table(s, table_id, f"close {table_id}")
            if table.status not in (OPEN, WAITING):
                raise SignupRefused(f"close {table_id}", f"table {table_id} is {table.status}")
            table.status = CLOSED
            s.add(table)
            seated = [seat.email for seat in self._seats(s, table_id)]
            for email in seated:
                s.add(notices.plain_mail(email, f"table {table_id} is closed", [
                    f"The moderator closed table {table_id} ({table_words(table)}): it will not start. Send 'games' "
                    "for the other open tables."], self.games.new_message_id, self.games.clock()))
            uow.commit()
            return seated

    def approve(self, table_id: int) -> str:
        """``pbem game approve``: a table opened by mail may be joined; its opener is told."""
        with UnitOfWork(self.games.engine, write=True) as uow:
            s = uow.session
            table = self._table(s, table_id, f"approve {table_id}")
            if table.status != WAITING:
                raise SignupRefused(f"approve {table_id}", f"table {table_id} is {table.status}, it waits for no "
                                    "approval")
            table.status = OPEN
            s.add(table)
            s.add(notices.plain_mail(table.opener, f"table {table.id} is open", [
                f"The moderator approved your table {table.id} ({table_words(table)}): others may join it now with "
                f"'join {table.id}', and you start it with 'start {table.id}'."], self.games.new_message_id,
                self.games.clock()))
            words = table_words(table)
            uow.commit()
            return words

    def tables(self, status: str | None = None, *, page: int = 1, limit: int = TABLES_A_PAGE) -> tuple[
            list[TableInfo], int]:
        """``pbem game tables``: page ``page`` of the tables (or those of ``status``), ``limit`` a page, the newest
        first, with the names and addresses seated; and how many there are in all."""
        if page < 1 or limit < 1:
            raise BadRequest(f"the page and the limit are at least 1, not {page} and {limit}")
        with UnitOfWork(self.games.engine) as uow:
            query = select(SignupTable)
            counted = select(func.count()).select_from(SignupTable)
            if status:
                query, counted = query.where(SignupTable.status == status), counted.where(SignupTable.status == status)
            found = uow.session.exec(query.order_by(SignupTable.id.desc())  # type: ignore[union-attr]
                                     .offset(min((page - 1) * limit, MAX_GAME_ID)).limit(limit)).all()
            return [TableInfo(table.id or 0, table.kind, table_words(table), table.seats, table.opener, table.status,
                              table.game_id, aware(table.created_at),
                              [(seat.name, seat.email) for seat in self._seats(uow.session, table.id or 0)])
                    for table in found], uow.session.exec(counted).one()

    def watchers(self, game_id: int) -> list[tuple[str, datetime]]:
        """``pbem game watchers``: (address, since) of who watches the game, in the order they began."""
        with UnitOfWork(self.games.engine) as uow:
            self.games._game(uow.session, game_id)
            return [(w.email, aware(w.since)) for w in uow.session.exec(
                select(Watcher).where(Watcher.game_id == game_id).order_by(Watcher.id)).all()]

    def remove_watcher(self, game_id: int, email: str) -> None:
        """``pbem game unwatch``: the moderator stops a watcher's mails."""
        email = checked_address(email)
        with UnitOfWork(self.games.engine, write=True) as uow:
            watcher = uow.session.exec(select(Watcher).where(Watcher.game_id == game_id,
                                                             Watcher.email == email)).first()
            if watcher is None:
                raise SignupRefused(f"unwatch {game_id}", f"{email} does not watch game {game_id}")
            uow.session.delete(watcher)
            uow.commit()



__all__ = ["TABLES_A_PAGE", "SignupAdmin"]
