"""The game mails: who is mailed what after a change to a game.

Each case below (a game starts, commands were applied, the moderator changed
something, a reminder is due, ...) gives every player its reasons to hear of
the change; the player's delivery setting (``services.mail_out.delivery``) says which
reasons are worth a mail now. Every mail is built for its reader from that
reader's own view of the game, so another player's hand is never in it, and
reads top to bottom:

1. one line saying what the mail wants (mail clients show it as the preview);
2. what the reader must do and by when, with one example command (or whom the game waits for);
3. the answer to the mail's question (``services.mail_out.first_screen``): the bids so far and the reader's
   cards that can bid, or the winner and the final scores;
4. what happened since the reader's last game mail (``services.mail_out.chronicle``),
   so nothing is lost by mailing less; what does not fit the first screen
   goes below the board;
5. the board and the reader's hand;
6. the commands the reader may send, as shapes, and how to answer.

All mails of a game share one subject, "[Fifth Avenue #12] Ann, Bob, Cy", and
one thread root, so every client keeps a game in one conversation. A mail that
asks for a decision records it (``OutboxMail.decision``) and says it in an
``X-Pbem-Decision`` header.

The functions are pure: they return outbox rows, and the service that calls
them stores them and moves each mailed player's ``told_seq`` on
(``mailed_seats``).

Why one module of some 540 lines: each case is a short function over the same
few builders (the subject, the thread, the first line, the reader's view), and
a reader of one case needs those beside it; the what-happened text is in
``chronicle``, the help in ``help_text``, the choice of mails in ``delivery``.
"""

from __future__ import annotations

import re
import textwrap
from datetime import datetime, timedelta, timezone
from typing import Any, Callable, Iterable

from ... import render
from ...games import get_game
from ...render.mail import html_part, render_notice
from ...render.pictures import mail as pictures
from ...mail.mailto import ref_token
from ...render.text import said_lines, wrap
from ...store.models import SUBJECT, OutboxMail
from ...store.statuses import OutboxStatus
from ...timespans import format_duration, format_moment
from ...words import listing, plural
from . import delivery
from .chronicle import Happening, board_names, credited, describe, happenings, named, player_label, with_names
from .first_screen import answer_block
from .taps import taps
from ..common.game_info import GameInfo
from ..common.ledger import AskedDecision

MakeMsgid = Callable[[], str]
FIRST_SCREEN = 45  # lines of an 80x45 terminal: the decision and the top of the board must be on them
TOP_LINES = 24  # lines above the board at most for what happened; the rest goes below it (26 let a long
# "Waiting for" line and a turn line push the top of the map past the first screen when mails had been folded)
TALK_PREVIEW = 72  # characters of a talk mail's first line: who speaks and the start of their words

__all__ = [
    "FIRST_SCREEN", "absence_announced", "asked_decision", "asks", "board_again", "commands_applied",
    "commands_named", "daily", "decision_number", "describe", "digest", "first_subject", "game_started", "game_subject",
    "last_built_city",
    "late_notice", "mailed_seats", "moderator_change", "named", "plain_mail", "player_label", "reminder",
    "seat_given_away", "sender_name", "subject_tag", "talk", "thread_root", "to_moderator", "told_everybody",
    "undo_words", "with_names",
]


# --------------------------------------------------------------------------- small helpers


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


def first_subject(title: str, game_id: int, names: list[str]) -> str:
    """A new game's subject, "[Fifth Avenue #12] Ann, Bob, Cy": its tag and its players (``names`` in seat
    order) when it was created; stored with the game (``Game.subject``) and never made anew."""
    return (f"[{title} #{game_id}] " + ", ".join(names))[:SUBJECT]


def game_subject(info: GameInfo) -> str:
    """The one subject of every mail of a game, as stored when it was created: a seat given to somebody else
    keeps the game's thread in clients that thread by subject."""
    return info.subject or first_subject(info.title, info.id, [p.name for p in sorted(info.players,
                                                                                      key=lambda p: p.seat)])


def sender_name(info: GameInfo) -> str:
    """The name the game's mails come from, so a client's list shows a game, not a cut address."""
    return f"{info.title} #{info.id} (pbem)"


def thread_root(info: GameInfo, domain: str) -> str:
    """The Message-ID every mail of a game refers to: one thread per game.

    Made of the game's number and creation time, never of its seed: the seed
    and the engine give every hand and every stack, so no player may see it.
    """
    created = info.created_at.astimezone(timezone.utc).strftime("%Y%m%d%H%M%S")
    return f"<pbem-game-{info.id}-{created}@{domain}>"


def mailed_seats(info: GameInfo, mails: Iterable[OutboxMail]) -> set[int]:
    """The seats of ``info`` that ``mails`` go to: their players have now been told of everything."""
    to = {mail.recipient for mail in mails if mail.game_id == info.id}
    return {p.seat for p in info.players if p.email in to}


def told_everybody(info: GameInfo, events: list[dict[str, Any]], turn_before: tuple[Any, ...], by: str | None) -> bool:
    """Whether something happened that everybody may care about: a turn ended, something public happened (an
    auction moved, somebody scored), the game ended, or the moderator or a deadline played for somebody. Players
    with delivery ``all`` are mailed then."""
    engine = get_game(info.kind)
    return (info.state.is_terminal() or engine.turn_owner(info.state) != turn_before or by is not None
            or any(e["kind"] in engine.PUBLIC_EVENTS for e in events))


def last_built_city(info: GameInfo) -> str | None:
    """The city of the newest ``built`` event among the events a change's mails tell of: what a Manhattan
    mail's picture marks (None when nothing was built, and always in Fifth Avenue, whose view has its mark)."""
    for row in reversed(info.recent):
        for event in reversed((row.data or {}).get("events", [])):
            if event.get("kind") == "built" and event.get("city"):
                return str(event["city"])
    return None


_TRAILING_DETAIL = re.compile(r"\s*\([^()]*\)\.?$")  # 'Ann won Times Square (3 cards)': the part in brackets at the end


def _short_due(due: datetime) -> str:
    return due.astimezone(timezone.utc).strftime("%a %-d %b %H:%M UTC")


def _due_line(due: datetime, now: datetime) -> str:
    left = (due - now).total_seconds()
    when = f"in {format_duration(left)}" if left > 0 else f"{format_duration(-left)} ago"
    return f"Answer by {format_moment(due)} ({when})."


def _example(legal: list[str]) -> str:
    """One command to show as an example: the first that does something (not 'pass', not a count of none such
    as 'build 0'), else the first. Of a command that takes a count, the largest: a player who just won an
    auction copied 'build 0' and built nothing (found playing by mail, issue 35)."""
    doing = [c for c in legal if c.split()[0] != "pass" and c.split()[-1] != "0"]
    if not doing:
        return legal[0] if legal else ""
    word = doing[0].split()[0]
    counts = [c for c in doing if c.split()[0] == word and len(c.split()) == 2 and c.split()[1].isdigit()]
    return max(counts, key=lambda c: int(c.split()[1])) if counts else doing[0]


def _unbroken(text: str, tail: str) -> str:
    """``text`` and ``tail`` filled to 72 columns, never breaking ``tail`` (an example command) over two lines."""
    glue = "\xa0"  # textwrap does not break at a no-break space
    return wrap(f"{text} {tail.replace(' ', glue)}".strip()).replace(glue, " ")


def _lines(item: Happening) -> list[str]:
    return ([wrap(item.headline, indent="* ", hang="  ")] + [wrap(d, indent="  - ", hang="    ") for d in item.details]
            + (said_lines(item.speaker, item.said) if item.speaker else []))


def _html_item(item: Happening) -> dict[str, Any]:
    """One thing that happened, for the HTML part (render.mail): talk keeps its speaker with every line."""
    return {"headline": item.headline, "details": item.details, "speaker": item.speaker, "said": item.said}


def _count(blocks: list[str]) -> int:
    return sum(block.count("\n") + 1 for block in blocks)


# --------------------------------------------------------------------------- building one mail


class Mailer:
    """Builds the outbox rows for one change of one game."""

    def __init__(self, info: GameInfo, msgid: MakeMsgid, now: datetime, domain: str) -> None:
        self.info = info
        self.msgid = msgid
        self.now = now
        self.domain = domain
        self.engine = get_game(info.kind)

    def request(self) -> str:
        """The decision now due, as its player reads it: 'Your turn: choose an action'."""
        return with_names(self.info, self.engine.decision_request(self.info.state))

    def preview_of_request(self, prefix: str = "") -> str:
        due = f", answer by {_short_due(self.info.due_at)}" if self.info.due_at else ""
        return f"{prefix}{self.request()}{due}"

    def mail(self, seat: int, *, preview: str = "", note: list[str] = (),  # type: ignore[assignment]
             extra: list[str] = ()) -> OutboxMail:  # type: ignore[assignment]
        """The mail to ``seat``: ``preview`` (default: the request when they must decide, else the newest thing
        that happened), what happened since their last mail (with what only they saw), ``note`` (about their
        own mail), their decision or whom the game waits for, the board, and ``extra`` at the end."""
        info, state = self.info, self.info.state
        player = info.player(seat)
        happened = happenings(info.recent, info, seat, after=player.told_seq)
        asked: dict[str, Any] = {}
        decision = None
        headers: dict[str, str] = {}
        if asks(info, seat):
            number = decision_number(info)
            recorded = asked_decision(info, number)
            asked = {"decision": number, "decision_key": recorded.key, "decision_words": recorded.words}
            headers["X-Pbem-Decision"] = str(number)
            legal = state.legal_commands()
            notes = [with_names(info, n) for n in self.engine.decision_notes(state)]
            due = f" {_due_line(info.due_at, self.now)}" if info.due_at else ""
            # The preview line says what is asked; the lines under it add the most useful detail (the high bid,
            # what is left of the turn), the deadline and an example; the other notes go below the board.
            shapes = self.engine.legal_shapes(state)
            example = _example(legal)
            kinds = list(dict.fromkeys(shape.split()[0] for shape in shapes))
            detail = notes[1] if len(notes) > 1 else \
                f"Commands now: {listing(kinds, conjunction='or')} (their forms are below the board)."
            if "for example" in detail.lower():
                example = ""  # the note has one already
            decision = {
                "number": number,
                "sentence": _unbroken(f"{detail}{due}".strip(), f"For example: {example}" if example else ""),
                "notes": notes[2:],
                "shapes": shapes,
            }
            preview = preview or self.preview_of_request()
        preview = preview or (happened[-1].headline if happened else "The game as it stands.")
        if happened and not happened[-1].details and happened[-1].headline == preview:
            happened.pop()  # the first line says it already
        answer = answer_block(info, seat, decision is not None)
        shown, below = self._fit(happened, _count([wrap(line) for line in note]) + _count(answer["text"] if answer else []))
        happened_items = {"happened_items": [_html_item(item) for item in shown],
                          "below_items": [_html_item(item) for item in below]}
        names = board_names(info)
        view = state.view(seat)
        # A bid's mail shows the bids at its top: its board says so rather than list them again (1.2 KB of the
        # largest mails, the bid mails, issue 44 point 5)
        bids_above = answer is not None and not state.is_terminal()
        context = {
            "preview": preview, "happened": [_lines(item) for item in shown], "below": [_lines(item) for item in below],
            "earlier": len(below), **happened_items,
            "note": [wrap(line) for line in note],
            "decision": decision, "answer": answer, "waiting": "" if decision else self._waiting(seat, view), "secret": player.secret,
            "over": state.is_terminal(),
            "board": render.board(info.kind, view, players=names, bids_above=bids_above).rstrip(),
            "bids_above": bids_above,
            "extra": [*extra, *([f"The whole game, move by move: {info.page}"] if info.page and state.is_terminal()
                                else [])],
            # what the HTML part draws its own board from (the text board above is for the text part)
            "kind": info.kind, "view": view, "players": names, "reader": seat,
        }
        drawn = pictures.recipe(info.kind, view, names, mark=last_built_city(info)) if player.pictures else None
        if drawn is not None:  # the sender draws it, once for every mail of the position that shows the same
            context["picture"] = {"cid": pictures.content_id(drawn), "alt": pictures.alt_text(drawn),
                                  "width": pictures.WIDTH, "height": None}
        subject = game_subject(info)
        message_id = self.msgid()
        if decision is not None:  # the likely answers as links to tap (issue 44), tied to this very mail
            tapped = taps(info, seat, decision["number"], subject_tag(info), ref_token(message_id), player.secret)
            context["taps"], context["taps_more"] = tapped.links, tapped.more
        text, html = render_notice(subject, context)
        root = thread_root(info, self.domain)
        return OutboxMail(
            game_id=info.id,
            recipient=player.email,
            subject=subject,
            headers={"Message-ID": message_id, "In-Reply-To": root, "References": root,
                     "Auto-Submitted": "auto-generated", "X-Pbem-Game": str(info.id), "From-Name": sender_name(info),
                     **headers},
            text_body=text,
            html_body=html,
            next_attempt_at=self.now,
            message_id=message_id,
            created_at=self.now,
            picture=drawn,
            # Nothing but the news and the game: a later mail may take its place while it waits unsent.
            told_from=None if note or extra else player.told_seq,
            **asked,
        )

    @staticmethod
    def _fit(happened: list[Happening], used: int) -> tuple[list[Happening], list[Happening]]:
        """What happened, split so that the newest items fill the lines above the board and the older ones go
        below it (the first screen keeps the decision and the top of the board)."""
        room = max(6, TOP_LINES - used)
        shown = 0
        lines = 0
        for item in reversed(happened):
            size = _count(_lines(item))
            if shown and lines + size > room:
                break
            shown += 1
            lines += size
        cut = len(happened) - shown
        return happened[cut:], happened[:cut]

    def _waiting(self, seat: int, view: dict[str, Any]) -> str:
        """Who must act, as ``seat`` may read it (its ``view``): only the player to move learns what follows
        from their own hand (docs/rules.md M15)."""
        info, state = self.info, self.info.state
        if state.is_terminal():
            return "The game is over."
        if info.status != "active":
            return f"The game is {info.status}: nobody acts until the moderator resumes it."
        owed = self.engine.owed_this_turn(state, seat)
        sentence = view["waiting_for"]
        waiting = "Waiting: " + with_names(info, sentence[0].upper() + sentence[1:])
        return waiting + (f" Then you still {owed}." if owed else "")

    def result(self, events: list[dict[str, Any]]) -> str | None:
        """The result an event of ``events`` brought, in words for a preview ('Bob won Times Square ...')."""
        info = self.info
        for kind in self.engine.RESULT_EVENTS:
            for event in events:
                if event["kind"] != kind:
                    continue
                if kind == "game_over":
                    winners = [credited(info, w) for w in info.state.result["winners"]]
                    return f"Game over: {' and '.join(winners)} {'wins' if len(winners) == 1 else 'share the win'}"
                text = _TRAILING_DETAIL.sub("", describe(event, info))  # the detail after, never a name's "(robot)"
                return text[0].upper() + text[1:]
        return None

    def to(self, reasons: dict[int, set[str]], **mail: Any) -> list[OutboxMail]:
        """A mail to every player whose delivery setting wants one for their ``reasons``."""
        return [self.mail(p.seat, **mail) for p in self.info.players
                if delivery.mailed(p.delivery, reasons.get(p.seat, set()))]


def _everybody(info: GameInfo, *reasons: str) -> dict[int, set[str]]:
    """``reasons`` for every player, and ASKED for the one who must decide."""
    given = {p.seat: set(reasons) for p in info.players}
    for seat in given:
        if asks(info, seat):
            given[seat].add(delivery.ASKED)
    return given


# --------------------------------------------------------------------------- the cases


def game_started(info: GameInfo, msgid: MakeMsgid, now: datetime, domain: str = "pbem.invalid",
                 guide: list[str] = (), length: str = "") -> list[OutboxMail]:  # type: ignore[assignment]
    """Everybody hears that the game begins, with ``guide`` (the commands in short) after the board, and how
    long such a game takes (``length``: services.common.game_length)."""
    mailer = Mailer(info, msgid, now, domain)
    names = ", ".join(p.name for p in sorted(info.players, key=lambda p: p.seat))
    begins = f"A game of {info.title} begins: {names}."
    return [mailer.mail(
        p.seat, preview="" if asks(info, p.seat) else begins,
        note=[(f"{begins} " if asks(info, p.seat) else "") + f"You play seat {p.seat + 1}. Every mail shows the "
              "board as you may see it, with your own hand."
              + (f" A game like this takes {length}." if length else "")],
        extra=list(guide)) for p in info.players]


def _bidders(events: list[dict[str, Any]]) -> set[int]:
    return {seat for event in events for seat in event.get("bidders", ())}


def _answered_by_auction(events: list[dict[str, Any]]) -> bool:
    """Whether a mail's commands were only bids in an auction that goes on: its result or the next call to bid
    answers them (decision D44)."""
    kinds = {event["kind"] for event in events}
    return bool(kinds) and kinds <= {"bid", "pass", "robot_bid", "robot_out", "forced"}


def _set_began_since(info: GameInfo, seat: int) -> bool:
    """Whether a set of auctions began after the last game mail of ``seat``: the set that runs, since a set
    begins only when the one before it is over. Their next game mail tells them the whole set (issue 43)."""
    told = info.player(seat).told_seq
    return any(event.get("kind") == "auctions" for row in info.recent if row.seq > told and row.kind == "command"
               for event in (row.data or {}).get("events", []))


def commands_applied(
    info: GameInfo, seat: int, commands: list[str], events: list[dict[str, Any]], msgid: MakeMsgid, now: datetime, sender_note: list[str] | None = None, *, turn_before: tuple[Any, ...] = (),
    domain: str = "pbem.invalid", by: str | None = None,
) -> list[OutboxMail]:
    """The mails after a player's commands were applied (``by`` the moderator or the deadline, if not by the
    player themselves)."""
    if not events and by is None and not info.state.is_terminal():
        # Nothing anybody may see happened (orders given ahead of their turn, issue 43): whoever must decide
        # still has the mail that asks them, and the sender gets a receipt (services.table.games).
        return []
    mailer = Mailer(info, msgid, now, domain)
    public = told_everybody(info, events, turn_before, by)
    # A set of auctions began (issue 43, point 3): every bidder mailed now reads the whole set and may answer it
    # all with orders; a bidder who has given orders in this game is mailed for it at once; the others read it
    # in their next game mail, their first call to bid of the set as a rule, so a player who never uses orders
    # gets no more mails (point 8).
    orders_of = getattr(mailer.engine, "set_orders", None)
    set_began = orders_of is not None and any(event["kind"] == "auctions" for event in events) \
        and not info.state.is_terminal()
    reasons: dict[int, set[str]] = {}
    for p in info.players:
        given = reasons.setdefault(p.seat, set())
        if asks(info, p.seat) or (set_began and mailer.engine.orders_wanted(info.state, p.seat)
                                  and orders_of(info.state, p.seat)):
            given.add(delivery.ASKED)
        # The sender's own move is answered by their receipt (games.submit), not a board mail, unless they want
        # every mail ('mail all') or the moderator or a deadline played for them (issue 47, point 2; D44).
        own_move = p.seat == seat and by is None and p.delivery != "all"
        if p.seat == seat and not own_move and (by is not None or sender_note or not _answered_by_auction(events)):
            given.add(delivery.ANSWER)
        if p.seat in _bidders(events) and not own_move:  # the receipt tells the result of their own last bid
            given.add(delivery.AUCTION)
        if info.state.is_terminal():
            given.add(delivery.END)
        if by == "moderator":
            given.add(delivery.MODERATOR)
        if public:
            given.add(delivery.PUBLIC)
    result = mailer.result(events)
    mails = []
    for p in info.players:
        if not delivery.mailed(p.delivery, reasons[p.seat]):
            continue
        if info.state.is_terminal():
            preview = result or ""
        elif p.seat == seat and not asks(info, p.seat) and by is None:
            preview = f"Done: {'; '.join(commands)}"
        elif result and not asks(info, p.seat):
            preview = result
        else:
            preview = ""
        told = orders_of is not None and not info.state.is_terminal() and _set_began_since(info, p.seat)
        extra = [wrap(with_names(info, line), hang="    ") for line in orders_of(info.state, p.seat)] if told else []
        if extra and set_began and not asks(info, p.seat) and p.seat != seat:
            preview = "Auctions begin: send your orders for all of them now (what you may bid is below the board)"
        mails.append(mailer.mail(p.seat, preview=preview, note=list(sender_note or []) if p.seat == seat else [],
                                 extra=extra))
    return mails


def moderator_change(info: GameInfo, msgid: MakeMsgid, now: datetime, domain: str = "pbem.invalid") -> list[OutboxMail]:
    """Everybody hears of the moderator's change, stored as the game's newest event with its words."""
    return Mailer(info, msgid, now, domain).to(_everybody(info, delivery.MODERATOR))


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


def board_again(info: GameInfo, msgid: MakeMsgid, now: datetime, domain: str = "pbem.invalid", *,
                seats: list[int] | None = None) -> list[OutboxMail]:
    """The board as it stands (the moderator's resend), with the request to whoever must decide."""
    mailer = Mailer(info, msgid, now, domain)
    return [mailer.mail(p.seat, preview="" if asks(info, p.seat) else "The board as it stands, sent again by the "
                        "moderator.") for p in info.players if seats is None or p.seat in seats]


def talk(info: GameInfo, speaker: int | None, readers: list[int], headline: str, name: str, lines: list[str],
         msgid: MakeMsgid, now: datetime, domain: str = "pbem.invalid") -> list[OutboxMail]:
    """Table talk (the newest event, already stored) to ``readers``: every player but the speaker, or those the
    moderator wrote to. A short mail in the game's thread, text only and without the board: the words, every
    line of them marked as ``name``'s, and how to answer."""
    first = (lines or [""])[0]
    preview = f"{with_names(info, headline)} {first}".strip()
    if len(preview) > TALK_PREVIEW:  # one line, never filled: a second line would not start with the speaker
        preview = preview[: TALK_PREVIEW - 3].rstrip() + "..."
    body = [preview, "", *said_lines(name, lines), "",
            wrap("To answer everybody at the table, reply with a line 'say' and your words; 'moderator' and your "
                 "words go to the moderator. Your next game mail shows the board as it stands.")]
    root = thread_root(info, domain)
    mails = []
    for seat in readers:
        if seat == speaker:
            continue
        message_id = msgid()
        mails.append(OutboxMail(
            game_id=info.id, recipient=info.player(seat).email, subject=game_subject(info),
            headers={"Message-ID": message_id, "In-Reply-To": root, "References": root,
                     "Auto-Submitted": "auto-generated", "X-Pbem-Game": str(info.id), "From-Name": sender_name(info)},
            text_body="\n".join(body) + "\n", html_body=None, next_attempt_at=now, message_id=message_id,
            created_at=now))
    return mails


def absence_announced(info: GameInfo, seat: int, starts: datetime, ends: datetime, msgid: MakeMsgid,
                      now: datetime, domain: str = "pbem.invalid") -> list[OutboxMail]:
    """The player at ``seat`` will be away (the newest event says so): they get a receipt, the others hear of it
    when their delivery setting mails them."""
    days = (ends - starts).days
    reasons = _everybody(info, delivery.PUBLIC)
    reasons[seat].add(delivery.ANSWER)
    note = {seat: [f"Any deadline of yours that falls in that time moves {plural(days, 'day')} later."]}
    mailer = Mailer(info, msgid, now, domain)
    return [mailer.mail(p.seat, note=note.get(p.seat, [])) for p in info.players
            if delivery.mailed(p.delivery, reasons[p.seat])]


def reminder(info: GameInfo, seat: int, msgid: MakeMsgid, now: datetime, domain: str = "pbem.invalid") -> OutboxMail:
    """The player who must decide is reminded, with the board and the options."""
    mailer = Mailer(info, msgid, now, domain)
    return mailer.mail(seat, preview=mailer.preview_of_request("Reminder: "))


def late_notice(info: GameInfo, seat: int, late: timedelta, msgid: MakeMsgid, now: datetime,
                domain: str = "pbem.invalid") -> OutboxMail:
    """The player who missed their deadline is told (again, every day until something happens)."""
    mailer = Mailer(info, msgid, now, domain)
    passed = (f"passed {format_duration(late.total_seconds())} ago" if late >= timedelta(minutes=1)
              else "has just passed")
    return mailer.mail(seat, preview=f"Late: {mailer.request()} (your deadline {passed})",
                       note=[f"Your deadline {passed} and the game is waiting for you. The moderator has been told.",
                             "If you cannot play for a while, send 'away DATE to DATE' (for example "
                             f"'away {now:%Y-%m-%d} to {now + timedelta(days=3):%Y-%m-%d}'), or tell the moderator "
                             "('moderator' and your words)."])


def daily(info: GameInfo, seat: int, msgid: MakeMsgid, now: datetime, domain: str = "pbem.invalid") -> OutboxMail | None:
    """The daily mail of a player with delivery ``digest``: what happened since their last mail; None when
    nothing did."""
    player = info.player(seat)
    happened = happenings(info.recent, info, seat, after=player.told_seq)
    if not happened:
        return None
    return Mailer(info, msgid, now, domain).mail(
        seat, preview=f"Your daily mail: {plural(len(happened), 'thing')} happened since your last mail")


def seat_given_away(info: GameInfo, seat: int, old_name: str, old_email: str, msgid: MakeMsgid, now: datetime,
                    reason: str = "", *, domain: str = "pbem.invalid", moderator: str = "",
                    resigned: bool = False) -> OutboxMail:
    """The player who no longer plays is told, at their old address: which game, who plays their seat now, the
    moderator's reason and address. ``resigned``: they gave the seat up themselves (``resign``), and it reads as
    their own act. A plain mail in the game's thread (under its one subject): the board is no longer theirs."""
    new = player_label(info, seat)
    given = (f"{new}." if new != old_name else "somebody else, who plays it under the same name.")
    lines = [
        f"You resigned from {info.title} #{info.id}: {new} plays your seat (seat {seat + 1}) from now on."
        if resigned else f"You no longer play in {info.title} #{info.id}: the moderator gave your seat (seat "
        f"{seat + 1}) to " + given,
        "",
    ]
    if reason:
        lines += [f"The moderator says: {reason}", ""]
    write = f"write to the moderator, {moderator}." if moderator else "write to the moderator."
    lines += [f"Mails you send to this game are no longer read as moves, and you get no more of its mails. If "
              f"this is a mistake, {write}", "", "The players now: "
              + ", ".join(p.name for p in sorted(info.players, key=lambda p: p.seat)) + "."]
    root = thread_root(info, domain)
    return plain_mail(old_email, game_subject(info), lines, msgid, now, game_id=info.id, tagged=False,
                      headers={"In-Reply-To": root, "References": root, "From-Name": sender_name(info)})


def to_moderator(moderator: str, subject: str, lines: list[str], msgid: MakeMsgid, now: datetime, *,
                 game_id: int | None = None, headers: dict[str, str] | None = None,
                 verbatim: bool = False) -> OutboxMail:
    """A plain mail to the moderator (a timeout, a bounce, a mail that could not be sent, a player's words...).
    It is held until the moderator's hourly budget lets it go (services.mail_out.moderator_mail)."""
    mail = plain_mail(moderator, f"moderator: {subject}", lines, msgid, now, game_id=game_id, headers=headers,
                      verbatim=verbatim)
    mail.status = OutboxStatus.HELD
    return mail


def plain_mail(to: str, subject: str, lines: list[str], msgid: MakeMsgid, now: datetime, *,
               game_id: int | None = None, tagged: bool = True, headers: dict[str, str] | None = None,
               verbatim: bool = False) -> OutboxMail:
    """A mail of a few paragraphs, no board: ``lines`` are paragraphs, each wrapped at 72 columns (with
    ``verbatim``, lines already laid out). ``tagged``: the subject starts with [pbem]."""
    text = "\n".join(line if verbatim else textwrap.fill(line, 72, break_long_words=False, break_on_hyphens=False)
                     for line in lines).rstrip() + "\n"
    message_id = msgid()
    return OutboxMail(game_id=game_id, recipient=to, subject=(f"[pbem] {subject}" if tagged else subject)[:200],
                      headers={"Message-ID": message_id, "Auto-Submitted": "auto-generated",
                               **({"X-Pbem-Game": str(game_id)} if game_id is not None else {}), **(headers or {})},
                      text_body=text, html_body=None, next_attempt_at=now, message_id=message_id, created_at=now)


def digest(email: str, sections: list[tuple[GameInfo, str]], msgid: MakeMsgid, now: datetime) -> OutboxMail:
    """One mail for a player who must act in several games: each game's reminder, one after the other."""
    games = ", ".join(f"#{info.id}" for info, _ in sections)
    subject = f"[pbem] digest: your move in {len(sections)} games ({games})"
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


def asked_decision(info: GameInfo, number: int) -> AskedDecision:
    """Decision ``number`` of the game as a mail that asks it records it on its outbox row (what a Reply to that
    mail answers): the engine's context key and its words with the players' names, cut to their columns."""
    key, words = get_game(info.kind).decision_context(info.state)
    return AskedDecision(info.id, number, key[:120], with_names(info, words)[:255])
