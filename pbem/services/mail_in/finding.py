"""Finding what a player's mail is for: the game (a line 'game 12', the subject's tag, the mail of ours it
answers, the sender's only game), the sender's seat in it, the seat's secret word, and the decision answered.
A mail that cannot be placed gets its refusal here."""

from __future__ import annotations

from email.message import EmailMessage

from ...games import get_game
from ...mail.message import decision, game_tag, references
from ..common.errors import GameNotFound
from ..common.game_info import GameInfo
from ..common.input_checks import proves_seat
from ..common.ledger import AskedDecision, MailLedger
from ..mail_out.notices import with_names
from ..table.service import GameService
from .report import MailReport
from .reply import Replies, wrap


class GameFinder:
    """Places mail among the games of ``games``, looking up our past mails in ``ledger``."""

    def __init__(self, games: GameService, ledger: MailLedger, replies: Replies) -> None:
        self.games = games
        self.ledger = ledger
        self.replies = replies

    def game(self, msg: EmailMessage, report: MailReport, named: int | None) -> GameInfo | None:
        """The game the mail is for, loaded; None after replying that it cannot be told."""
        candidates = (
            ("game line", lambda: named),
            ("subject", lambda: game_tag(report.subject)),
            ("reply to our mail", lambda: self.ledger.game_of_messages(answered_ids(msg, report))),
        )
        for how, find in candidates:  # in this order, looking no further than needed
            game_id = find()
            if game_id is None:
                continue
            try:
                info = self.games.get(game_id)
            except GameNotFound:
                report.outcome = "unknown-game"
                self.replies.reply(report, [wrap(f"There is no game {game_id}.")] + self.replies.your_games(report))
                return None
            report.matched_by = how
            return info
        active = [g for g in self.games.games_of(report.sender or "") if g[2] in ("active", "paused")]
        if len(active) == 1:
            report.matched_by = "only active game"
            return self.games.get(active[0][0])
        report.outcome = "unknown-game"
        why = "You play in several games, and your mail does not say which one." if active else \
            "We could not tell which game your mail is for."
        self.replies.reply(report, [wrap(why)] + self.replies.your_games(report))
        return None

    def seat(self, msg: EmailMessage, report: MailReport, info: GameInfo) -> bool:
        """Whether the sender plays in the game (``report.seat`` set); else the mail is refused, saying why.
        A mail from a link (``report.linked``) made for another seat's mail is refused even from a player: its
        body is what we wrote for that seat, and sent by somebody else it was forwarded, never their own move."""
        game_id = info.id
        seats = {p.email for p in info.players}
        linked_to = [to for gid, to in self.ledger.recipients_of(report.linked) if gid == game_id and to in seats]
        try:
            report.seat = next(p.seat for p in info.players if p.email == report.sender)
            if not any(to != report.sender for to in linked_to):
                return True
        except StopIteration:
            pass
        claimed = [to for to in linked_to if to != report.sender] or [
            to for gid, to in self.ledger.recipients_of(references(msg)) if gid == game_id and to in seats]
        if claimed:
            # An answer to a mail we sent to one seat, from another address: never applied. The seat's own
            # address hears of it in its next digest of refused mail, with the moderator (services.mail_in.refusals).
            owner = claimed[0]
            report.seat = None
            report.outcome = "impersonation"
            report.seat_email = owner
            self.replies.reply(report, [wrap(
                f"A mail answering our mail to {owner} in game {game_id} came from another address, "
                f"{report.sender}. It was not applied: only mail from {owner} plays that seat; {owner} and the "
                "moderator hear of it.")])
            return False
        report.outcome = "not-a-player"
        self.replies.reply(report, [wrap(f"You ({report.sender}) do not play in game {game_id}.")]
                           + self.replies.your_games(report))
        return False

    def proven(self, msg: EmailMessage, report: MailReport, info: GameInfo, given: list[str]) -> bool:
        """Whether the mail proves its seat, when the game asks for proof: it answers a mail of ours to the
        sender's address (its In-Reply-To or References name one: our Message-IDs are random and seen only by
        their recipient, docs/signup.md), or it has the seat's secret word among ``given``. Else it is refused:
        answered at once, calmly, when it has no word (the seat's own slip, most likely), told in the seat's
        hourly digest when it has a wrong one."""
        secret = next(p.secret for p in info.players if p.seat == report.seat)
        if proves_seat(secret, given) or self.answers_ours(msg, report):
            return True
        report.seat_email = report.sender or ""
        if given:
            # A wrong word is somebody guessing, or a player's typo: the seat's address and the moderator hear
            # of it in the next digest of refused mail, never once a forged mail (services.mail_in.refusals).
            report.outcome = "wrong-secret"
            self.replies.reply(report, [wrap(
                f"Game {info.id} asks for the seat's secret word in every mail that does not answer one of its "
                "mails, and this mail did not have the right one, so nothing in it was applied or answered.")])
            return False
        report.outcome = "no-secret"  # answered (services.mail_in.mail_commands: UNPROVEN_ANSWERS an hour)
        self.replies.reply(report, unproven_answer(info.id))
        return False

    def answers_ours(self, msg: EmailMessage, report: MailReport) -> bool:
        """Whether ``msg`` answers (In-Reply-To, References, or the ``ref`` line of a link: ``report.linked``)
        a mail we sent to its sender."""
        address = report.sender or ""
        return any(to == address for _, to in self.ledger.recipients_of(answered_ids(msg, report)))

    def answered(self, msg: EmailMessage, report: MailReport, info: GameInfo) -> AskedDecision | None:
        """The decision the mail answers: the one our mail it replies to asked for, else the one a tag in its
        subject or quoted text names. A reply to a mail of ours that asked for nothing (or to another game's
        mail) answers none: its quoted text is that other mail's, not a decision of this game."""
        key, words = get_game(info.kind).decision_context(info.state)
        report.open_now = with_names(info, words)
        linked = self.ledger.asked_in_reply(report.linked) if report.linked else None
        report.by_link = linked is not None and linked.game_id == info.id and linked.number is not None
        replied = linked if linked is not None else self.ledger.asked_in_reply(references(msg))
        if replied is not None:
            answered = replied if replied.game_id == info.id and replied.number is not None else None
        else:
            number = decision(report.subject, report.text.body)
            answered = None if number is None else self.ledger.asked(info.id, number) or AskedDecision(info.id, number)
        if answered is not None:
            report.decision = answered.number
            report.answered = answered.words or f"decision {answered.number}"
        return answered


def answered_ids(msg: EmailMessage, report: MailReport) -> list[str]:
    """The Message-IDs of ours the mail answers: those its link's ``ref`` lines name (``report.linked``: a mail
    opened from a link carries no In-Reply-To), then its In-Reply-To and References."""
    return [*report.linked, *(mid for mid in references(msg) if mid not in report.linked)]


def unproven_answer(game_id: int) -> list[str]:
    """The answer to a mail from a seat's address that did not prove it came from there: the fix first."""
    return [
        wrap("Please send your lines again as a Reply to this mail (above the quoted text), and they will apply."),
        "",
        wrap(f"Your mail came from your address, but it did not answer one of game {game_id}'s mails, and a "
             "From line is easy to forge, so nothing in it was applied. A Reply to any mail of the game shows it "
             "is you: it names that mail, which only you received. A new mail works too with the line "
             "'secret <your word>' (your word is near the end of every mail of the game)."),
        "",
        wrap("If you did not write it, somebody else used your address; nothing of theirs was applied."),
    ]


__all__ = ["GameFinder", "answered_ids", "unproven_answer"]
