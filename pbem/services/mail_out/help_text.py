"""What a player is told about how to play by mail: the answer to ``help``, and its short form for a game's
first mail.

Pure: it reads a loaded game (``GameInfo``) and the engine's ``COMMAND_HELP`` (each engine's guide holds its
commands: shape, example, what it does, where docs/rules.md has the rule) and returns lines of at most
``WIDTH`` characters. The mail services decide where the lines go.
"""

from __future__ import annotations

import textwrap

from ...games import get_game
from ...games.base import CommandHelp
from ...store.models import GameStatus
from ..common.game_info import GameInfo
from .delivery import has_auctions
from .notices import with_names

WIDTH = 72
EXAMPLES_NOW = 3  # legal commands shown as examples of the decision now due ('legal' gives them all)

INFO_HELP = (
    ("board", "the board as you see it, with your hand"),
    ("hand", "your cards"),
    ("legal", "every command you may send now"),
    ("choices", "'choices WORDS': the commands you may send now that begin with WORDS, as links to tap"),
    ("history", "the last commands played"),
    ("help", "this help"),
)

# The words that are no game command, each with what it does. 'away' names its example: the shape is all
# there is to the other words.
OTHER_HELP = (
    ("away 2026-12-24 to 2027-01-02",
     "You are away from the first day to the last (UTC): your deadlines in those days move later by as many "
     "days, and the other players are told."),
    ("mail turns",
     "You are mailed when you must decide, and for {auctions}the moderator's changes and the end of the game; each "
     "mail starts with everything that happened since your last one. A move that asks nothing more of you gets a "
     "short receipt."),
    ("mail all", "You are mailed after everything anybody does, your own moves included."),
    ("mail digest", "One mail a day, the mails that ask you to decide, and a short mail at once when the moderator "
     "changes something."),
    ("pictures off",
     "Your game mails carry no picture of the board ('pictures on' brings it back); the board is in their text "
     "either way."),
    ("say TEXT",
     "Relayed to every other player. The lines after it, up to a line 'end', belong to it. At most 4,000 "
     "characters of talk a mail, and 10 messages an hour."),
    ("moderator TEXT", "Relayed to the moderator, whose answer comes back to you."),
    ("game N", "Which game your mail is for, on a line of its own (when you play several)."),
    ("end", "Nothing below it is read: put it above your signature."),
)

OTHER_WORDS = "Also ('help' explains them): say, moderator, mail, pictures, away."

# Tables players start by mail and games one watches (docs/signup.md): in a mail of their own, from any address.
SIGNUP_HELP = (
    ("games", "The open tables and the running games, by number."),
    ("new fifth-avenue players 3 side back deadline 2d",
     "Opens a table with you in its first seat (or 'new manhattan ...'; every word after the game may be left "
     "out), if the moderator lets players open tables."),
    ("join 3 as Ann", "Takes a free seat at table 3 ('as NAME' may be left out)."),
    ("leave 3", "Gives your seat at table 3 back before it starts."),
    ("start 3 with robots",
     "The opener starts table 3 now, robots in its free seats ('with robots' may be left out). A table starts "
     "by itself when its seats are full; every player then gets the game's first mail."),
    ("watch 12 as Dee", "You get what everybody sees of game 12, never a hand, once a day ('unwatch 12' stops "
     "it); its players read that Dee watches in their next game mail."),
    ("resign 12", "You leave game 12 for good: a robot plays your seat from then on, and everybody is told."),
    ("confirm CODE",
     "A line that changes what you have (new, join, watch, unwatch, start, the opener's leave, a resign without "
     "secret words) is done once you answer the mail we send your address with the word yes (or send this "
     "line): nobody can act for you by forging your address. A code expires after 2 days; one a mail."),
)


def _wrap(text: str, indent: str = "", more: str | None = None) -> list[str]:
    """``text`` in lines of at most WIDTH characters, the first indented by ``indent``, the rest by ``more``
    (``indent`` and two spaces unless given)."""
    return textwrap.wrap(text, width=WIDTH, initial_indent=indent,
                         subsequent_indent=indent + "  " if more is None else more,
                         break_long_words=True, break_on_hyphens=False) or [indent.rstrip()]


def _two_players(info: GameInfo) -> bool:
    return len(info.players) == 2


def _shape_and_example(entry: CommandHelp, info: GameInfo) -> tuple[str, str]:
    """The command's shape and example in this game (a two-player game may write it differently)."""
    if entry.two_players and _two_players(info):
        return entry.two_players
    return entry.shape, entry.example


def _names(info: GameInfo) -> dict[int, str]:
    return {p.seat: p.name for p in info.players}


def now_lines(info: GameInfo, seat: int | None) -> list[str]:
    """What the game waits for now: for ``seat`` what to decide, or whom the game waits for."""
    state = info.state
    engine = get_game(info.kind)
    if state is None:
        return _wrap("The game has not started yet.")
    if state.is_terminal():
        return _wrap("The game is over.")
    if info.status != GameStatus.ACTIVE:
        return _wrap(f"The game is {info.status}: nobody acts until the moderator resumes it.")
    to_act = state.current_player()
    notes = [with_names(info, note) for note in engine.decision_notes(state)]
    if to_act == seat:
        lines = _wrap(f"The game waits for you. {notes[0]}")
        for note in notes[1:]:
            lines += _wrap(note, "  ")
        examples = state.legal_commands()[:EXAMPLES_NOW]
        if examples:
            lines += _wrap("For example: " + "; ".join(examples) + " ('legal' lists everything you may send).",
                           "  ")
        return lines
    who = _names(info).get(to_act, f"player {to_act + 1}")
    waiting = with_names(info, state.view(seat)["waiting_for"])  # as the reader may know it (docs/rules.md M15)
    text = f"The game waits for {who}. {waiting[0].upper()}{waiting[1:]}"
    owed = engine.owed_this_turn(state, seat) if seat is not None else None
    if owed:
        text += f" Then you still {owed}."
    return _wrap(text)


def command_lines(info: GameInfo) -> list[str]:
    """The game's commands: each with its shape, an example and what it does."""
    engine = get_game(info.kind)
    lines = _wrap(f"The commands of {engine.TITLE}, one a line (or several, separated by ';'):")
    for entry in engine.COMMAND_HELP:
        shape, example = _shape_and_example(entry, info)
        also = f" (also {', '.join(entry.also)})" if entry.also else ""
        lines += _wrap(f"{shape}{also}", "  ", "      ")
        lines += _wrap(f"for example: {example}", "    ", "      ")
        lines += _wrap(entry.does, "    ", "    ")
    return lines


def info_lines() -> list[str]:
    lines = ["Words that answer and change nothing:"]
    width = max(len(word) for word, _ in INFO_HELP)
    for word, what in INFO_HELP:
        lines += _wrap(f"{word:<{width}}  {what}", "  ", " " * (width + 4))
    return lines


def other_lines(info: GameInfo) -> list[str]:
    auctions = "the results of auctions you bid in, " if has_auctions(info.kind) else ""
    lines = ["Other words, each on a line of its own:"]
    for shape, what in OTHER_HELP:
        lines += _wrap(shape, "  ")
        lines += _wrap(what.replace("{auctions}", auctions), "    ", "    ")
    return lines


def signup_lines() -> list[str]:
    """The signup commands (docs/signup.md): for the help and for the answer to 'games'."""
    lines = _wrap("Tables and watching, in a mail of their own (not with a game's commands):")
    for shape, what in SIGNUP_HELP:
        lines += _wrap(shape, "  ")
        lines += _wrap(what, "    ", "    ")
    return lines


def deadline_lines(info: GameInfo) -> list[str]:
    return _wrap(f"Deadlines: {info.timing.describe(auctions=has_auctions(info.kind))}.")


def moderator_lines(moderator: str) -> list[str]:
    # No full stop after an address: it would be copied with it.
    return _wrap(f"Moderator: {moderator.strip()}" if moderator.strip() else
                 "Moderator: no moderator address is configured.")


def mail_help(info: GameInfo, seat: int | None, *, moderator: str) -> list[str]:
    """The answer to 'help' by mail for the player at ``seat`` (None: somebody without a seat): what the game
    waits for now, the game's commands, the info words, the other words, the deadlines and the moderator."""
    title = f"How to play {info.title} #{info.id} by mail"
    player = next((p for p in info.players if p.seat == seat), None)
    lines = _wrap(title + (f": you are {player.name}, seat {player.seat + 1}." if player else "."))
    if player is not None and getattr(player, "delivery", ""):
        lines += _wrap(f"Your mail setting: mail {player.delivery}.")
    sections = [now_lines(info, seat), command_lines(info), info_lines(), other_lines(info), signup_lines(),
                deadline_lines(info), moderator_lines(moderator)]
    for section in sections:
        lines += ["", *section]
    return lines


def first_mail_help(info: GameInfo) -> list[str]:
    """The short help of a game's first mail: one line per command, with an example and the section of
    docs/rules.md its rule is in, then one line naming the other words."""
    engine = get_game(info.kind)
    rows = [(_shape_and_example(entry, info)[1], entry) for entry in engine.COMMAND_HELP]
    width = max(len(example) for example, _ in rows)
    lines = ["Commands ('help' explains them), each with its section of the rules:"]
    for example, entry in rows:
        line = f"  {example:<{width}}  {entry.summary} (rules {entry.section}: {entry.rule})"
        if len(line) > WIDTH:  # the columns give way before the line breaks
            line = f"  {example} {entry.summary} (rules {entry.section}: {entry.rule})"
        lines += _wrap(line, "", "    ")
    lines.append(OTHER_WORDS)
    return lines


__all__ = ["OTHER_WORDS", "SIGNUP_HELP", "WIDTH", "first_mail_help", "mail_help", "signup_lines"]
