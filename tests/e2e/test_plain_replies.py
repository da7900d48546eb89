"""Issue 47, point 1, through the real worker on Dovecot: in a game with secret words, a plain Reply in NeoMutt's,
Gmail's, Outlook's or an HTML-only phone's shape plays its seat without the word; a new mail from the seat's
address without it is answered at once, each time, with the fix on its first line, and a Reply to that answer
plays; a mail forged under a player's From (naming the forger's own mail, or none) applies nothing; a Reply
'resign N' resigns."""

from __future__ import annotations

from datetime import datetime, timezone
from email.message import EmailMessage
from email.utils import make_msgid

from pbem.services.table.service import GameService
from pbem.store.db import make_engine
from pbem.worker import MailWorker
from pbem_testing.clock import StoppedClock
from pbem_testing.reply_shapes import SHAPES, shaped_reply

from test_worker_mail import GAME, PLAYERS, inbox, mail_config, send  # noqa: F401, I001


def text_of(mail: EmailMessage) -> str:
    return mail.get_body(("plain",)).get_content().replace("\r\n", "\n")


def test_a_plain_reply_plays_and_a_slip_is_answered_with_the_fix(dovecot, smtp_server, mail_config,
                                                                 database_url: str) -> None:
    engine = make_engine(database_url)
    clock = StoppedClock(datetime.now(timezone.utc))
    games = GameService(engine, mail_domain="example.test", clock=clock)
    game_id = games.create_game("fifth-avenue", PLAYERS, seed=47, secret_words=True)
    worker = MailWorker(engine, mail_config, clock=clock)
    worker.run_once()  # the first mails go out
    words = [p.secret for p in games.get(game_id).players]

    def mail_in(message: EmailMessage, outcome: str) -> None:
        send(smtp_server, message)
        assert [found for _, _, found in worker.run_once().processed] == [outcome]

    def now_playing() -> tuple[str, str, str]:
        info = games.get(game_id)
        name, email = PLAYERS[info.state.current_player()]
        return email, email.split("@")[0], info.state.legal_commands()[0]

    # Eight decisions, each a plain Reply to the player's newest mail, the four clients in turn: no word typed.
    for step in range(8):
        email, user, command = now_playing()
        before = games.get(game_id).state.moves
        mail_in(shaped_reply(SHAPES[step % 4], inbox(dovecot, user)[-1], email, f"Hi all,\n{command}\nCheers"),
                "applied")
        assert games.get(game_id).state.moves > before

    # Two slips within the hour: a new mail from the seat's own address, no word. Each is answered, the fix first.
    email, user, command = now_playing()
    before = games.get(game_id).state.moves
    for attempt in range(2):
        slip = EmailMessage()
        slip["From"], slip["To"], slip["Subject"] = email, GAME, "my move"
        slip["Message-ID"] = make_msgid(domain="client.example.test")
        slip.set_content(command)
        mail_in(slip, "no-secret")
        answer = inbox(dovecot, user)[-1]
        assert text_of(answer).startswith("Please send your lines again as a Reply to this mail"), attempt
        assert not any(word in text_of(answer) for word in words)
    assert games.get(game_id).state.moves == before
    # Forged under the player's From by another player: naming the forger's own mail, or a made-up Message-ID.
    other = next(p for p in PLAYERS if p[1] != email)
    theirs = inbox(dovecot, other[1].split("@")[0])[-1]
    forged = shaped_reply("gmail", theirs, email, command)
    mail_in(forged, "no-secret")
    guessed = shaped_reply("neomutt", answer, email, command)
    guessed.replace_header("In-Reply-To", "<0123456789abcdef0123456789abcdef@example.test>")
    guessed.replace_header("References", "<0123456789abcdef0123456789abcdef@example.test>")
    mail_in(guessed, "no-secret")
    assert games.get(game_id).state.moves == before
    # The player answers the answer, from a phone: it plays.
    mail_in(shaped_reply("html-only", answer, email, command), "applied")
    assert games.get(game_id).state.moves > before
    # Resigning by a plain Reply needs no word either: the Reply proves the seat, as for a move.
    leaving = other[1]
    mail_in(shaped_reply("outlook", inbox(dovecot, leaving.split("@")[0])[-1], leaving, f"resign {game_id}"), "signup")
    assert leaving not in [p.email for p in games.get(game_id).players]
    engine.dispose()
