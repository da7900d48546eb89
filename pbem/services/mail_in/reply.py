"""The reply to a player's mail: what was done, what was not (the line, why, what is legal instead), what was
ignored, and the answers to help, board, hand, legal and history; the words the sender's confirmation adds."""

from __future__ import annotations

import textwrap

from ... import render
from ...games import get_game
from ..common.game_info import GameInfo
from ..mail_out.help_text import mail_help
from ..mail_out.notices import game_subject
from ..mail_out.delivery import has_auctions
from ..mail_out.receipts import next_mail_words, waiting_words
from ..table.service import GameService
from ..table.table_talk import TalkPlan, first_line
from ...words import QUOTED, cut as quoted, listing, plural
from .lines import setting
from .report import LineReport, MailReport, read_from_words

AUCTION_WORDS = "results of auctions you bid in, "
DELIVERY_WORDS = {
    "turns": f"a mail when you must decide, answers to your mails, {AUCTION_WORDS}the moderator's "
             "changes and the end, each starting with all that happened since your last mail",
    "all": "a mail whenever anything public happens",
    "digest": "one mail a day with all that happened, the mails that ask you to decide, and a short mail at once "
              "when the moderator changes something",
}
TALK_HINT = ("To talk to the other players, start a line with 'say'; to write to the moderator, with "
             "'moderator' (a line 'end' closes a text of several lines).")
MAX_LISTED = 5  # lines of a mail quoted back in the reply (what was ignored), each cut to QUOTED; the rest counted
HISTORY_LINES = 20


def wrap(text: str, indent: str = "") -> str:
    return textwrap.fill(text, width=72, initial_indent=indent, subsequent_indent=indent + "  ")


def and_more(count: int) -> list[str]:
    return [f"  ... and {count - MAX_LISTED} more lines"] if count > MAX_LISTED else []


def more_texts(count: int, how: str = "and") -> str:
    """' (with 3 more texts)': what a line of the reply stands for when a mail had several texts of talk."""
    if count <= 1:
        return ""
    return f" ({how} {plural(count - 1, 'more text')})" if how == "with" else f" ({plural(count - 1, 'more text')} with it)"


def setting_words(name: str, value: str, auctions: bool = True) -> str:
    """What a setting by mail does from now on; without ``auctions`` (Manhattan) nothing of bids."""
    if name == "mail":
        words = DELIVERY_WORDS[value] if auctions else DELIVERY_WORDS[value].replace(AUCTION_WORDS, "")
        return f"from now on you get the mails of 'mail {value}': {words}"
    return ("from now on your game mails carry a picture of the board" if value == "on" else
            "from now on your game mails carry no picture (the board is in their text)")


def yours(report: MailReport, info: GameInfo, words: str) -> str:
    """'Ann's turn' as Ann reads it: 'your turn'."""
    name = next((p.name for p in info.players if p.seat == report.seat), None)
    return f"your{words[len(name) + 2:]}" if name and words.startswith(f"{name}'s") else words


def note_for_sender(ignored: list[str], taken: list[tuple[str, str]], cut: list[str]) -> list[str]:
    """What the sender's confirmation says of their mail besides the commands: where a command was read from
    a longer line (``taken``: command, line), a command line that followed an 'On ... wrote:' on its line
    (``cut``), and the lines that were not commands."""
    notes = [f"{command} {read_from_words(line)}" for command, line in taken]
    notes += [f"{line} (read from after the 'On ... wrote:' on the same line)" for line in cut]
    if ignored:
        notes += (["Lines of your mail that were not commands (ignored):"]
                  + [f"  {quoted(line)}" for line in ignored[:MAX_LISTED]]
                  + and_more(len(ignored)) + [TALK_HINT])
    return notes


def line_as_read(r: LineReport) -> list[str]:
    """A command of the mail, and under it where it was read when that was not a whole line of its own."""
    return [wrap(quoted(r.line), "  ")] + (
        [wrap(quoted(r.read_from_words(), 2 * QUOTED), "      ")] if r.read_from else [])


class Replies:
    """The texts of replies to mail about the games of ``games``; ``moderator``: the address talk goes to."""

    def __init__(self, games: GameService, *, moderator: str = "") -> None:
        self.games = games
        self.moderator = moderator

    def reply(self, report: MailReport, body: list[str]) -> None:
        """``body`` as the mail's reply, under the game's one subject when the mail's game is known."""
        base = report.subject if report.subject.lower().startswith("re:") else f"Re: {report.subject}".strip()
        if report.game_id is not None:  # the game's one subject: its mails stay in one conversation
            base = f"Re: {game_subject(self.games.get(report.game_id))}"
        report.reply_subject = base if base != "Re:" else "Re: your mail"
        report.reply_body = "\n".join(body).strip() + "\n"

    def your_games(self, report: MailReport) -> list[str]:
        games = self.games.games_of(report.sender or "")
        if not games:
            return ["", wrap("You play in no game here. Send a mail with the line 'games' for the tables you may "
                             "join, or ask the moderator to add you to one.")]
        lines = ["", "Your games:"] + [f"  #{gid} {title} ({status})" for gid, title, status in games]
        example = games[0][0]
        lines += ["", wrap(f"Name the game on a line of its own, for example 'game {example}', or reply to a mail "
                           f"of that game (its subject carries [... #{example}]).")]
        return lines

    def talk_notes(self, info: GameInfo, report: MailReport, talk: TalkPlan,
                   settings: list[str]) -> list[tuple[str, str]]:
        """(line, what is done with it) for the mail's talk and settings, for the sender's confirmation."""
        others = [p.name for p in info.players if p.seat != report.seat]
        notes = [(first_line("say", talk.say[0]), f"relayed to {listing(others)}{more_texts(len(talk.say), 'with')}")
                 ] if talk.say else []
        notes += [(first_line("moderator", talk.moderator[0]), f"relayed to the moderator, {self.moderator}"
                   f"{more_texts(len(talk.moderator), 'with')}")] if talk.moderator else []
        notes += [(refused.line, f"not relayed: {refused.why}.{more_texts(refused.texts)}") for refused in talk.refused]
        notes += [(line, setting_words(*setting(line), auctions=has_auctions(info.kind))) for line in settings]
        return notes

    def summary(self, report: MailReport, info: GameInfo) -> list[str]:
        lines: list[str] = []
        if report.outcome == "stale":
            lines += [wrap(f"Your mail answered {yours(report, info, report.answered)} (decision "
                           f"{report.decision}), which is over: the game now waits for "
                           f"{yours(report, info, report.open_now)} (decision {report.current_decision}). "
                           "Nothing of your mail was applied. The game as it stands is below; answer this mail "
                           "to play now."), ""]
        elif report.outcome == "rejected":
            wrong = sum(1 for r in report.lines if r.status == "not done" and not r.note.startswith("fine,"))
            lines += [wrap(f"Nothing of your mail was applied: {'one line was' if wrong == 1 else f'{wrong} lines were'} "
                           "refused, and a mail applies all of its commands or none. Each line was checked as "
                           "if the good ones before it had been applied."), ""]
        elif report.outcome == "inactive":
            lines += [wrap(f"Game {info.id} is {info.status}: no commands are accepted now."), ""]
        elif report.outcome == "no-commands":
            # The first line says what became of the mail; what was ignored and the help follow.
            lines += [wrap(f"Your mail changed nothing: pbem found no command in it for game {info.id}. "
                           "Answer with a command on a line of its own, above the quoted mail."), ""]
        done = [r for r in report.lines if r.status == "done"]
        not_done = [r for r in report.lines if r.status == "not done"]
        if done:
            lines.append("Done:")
            for r in done:
                lines += line_as_read(r)
            lines += [wrap(effect, "    - ") for effect in report.effects]
        if not_done:
            lines.append("Not done:")
            for r in not_done:
                lines += line_as_read(r) + [wrap(r.note, "      ")]
        ignored = [r for r in report.lines if r.status == "ignored"] + [
            LineReport(x, "ignored") for x in report.text.unread]  # not quotes, signatures, our board: noise to them
        if ignored:
            lines.append("Ignored:")
            lines += [wrap(quoted(r.line), "  ") for r in ignored[:MAX_LISTED]] + and_more(len(ignored))
            if any(r.status == "ignored" for r in report.lines):
                lines.append(wrap(TALK_HINT))
        if report.outcome in ("stale", "rejected") and report.seat == info.state.current_player():
            lines += ["", *self.answer("legal", info, report)]
        if report.outcome == "stale":
            lines += ["", *self.answer("board", info, report)]  # the situation now, not the one answered
        return lines

    @staticmethod
    def next_steps(report: MailReport, info: GameInfo) -> list[str]:
        """Whom the game waits for and when the sender hears from it next: the end of a receipt."""
        if report.seat is None:
            return []
        return [wrap(waiting_words(info, report.seat)), next_mail_words(info, report.seat)]

    def answer(self, word: str, info: GameInfo, report: MailReport) -> list[str]:
        """The answer to a line ``help``, ``board``, ``hand``, ``legal`` or ``history``, for the sender's seat."""
        seat = report.seat
        state = info.state
        names = [p.name for p in sorted(info.players, key=lambda p: p.seat)]
        to_act = None if state.is_terminal() else state.current_player()
        if word == "board":
            return ["Board:", render.board(info.kind, state.view(seat), players=names).rstrip()]
        if word == "hand":
            return [wrap(f"Your hand: {get_game(info.kind).hand_text(state.view(seat))}.")]
        if word == "legal":
            if to_act is None:
                return ["The game is over."]
            if to_act != seat:
                return [wrap(f"It is not your turn: waiting for {names[to_act]}.")]
            shapes = get_game(info.kind).legal_shapes(state)
            return ["You may send now (<a|b> means a or b):"] + [wrap(shape, "  ") for shape in shapes]
        if word == "history":
            entries = [h for h in self.games.history(info.id) if h.kind == "command"][-HISTORY_LINES:]
            page = [wrap(f"Every move, with the board after it: {info.page}")] if info.page else []
            return ["The last commands:"] + [
                wrap(f"#{h.seq} {names[h.seat]}: {h.data.get('command', h.text)}", "  ") for h in entries] + page
        return mail_help(info, seat, moderator=self.moderator)


__all__ = ["DELIVERY_WORDS", "HISTORY_LINES", "MAX_LISTED", "TALK_HINT", "Replies", "and_more", "line_as_read",
           "more_texts", "note_for_sender", "setting_words", "wrap", "yours"]
