"""Issue 44, points 2 and 3, through the real worker on Dovecot, on SQLite and PostgreSQL: in a game with secret
words, the answer links of each game mail, decoded as RFC 6068 says, sent as Gmail, Apple Mail and Outlook send
a tapped link (a new mail, no In-Reply-To, a signature below, HTML only for Outlook), each apply their command
once, to the decision of the mail they came from. A link tapped twice gets the stale answer and changes
nothing; a link forwarded to another player or to a stranger is refused as a forged mail is."""

from __future__ import annotations

from datetime import datetime, timezone
from email.message import EmailMessage

from pbem.mail.mailto import ref_token
from pbem.services.table.service import GameService
from pbem.store.db import make_engine
from pbem.worker import MailWorker
from pbem_testing.clock import StoppedClock
from pbem_testing.link_shapes import LINK_SHAPES, link_mail, links, read_mailto

from test_worker_mail import GAME, PLAYERS, inbox, mail_config, send  # noqa: F401, I001


def html_of(mail: EmailMessage) -> str:
    body = mail.get_body(("html",))
    return body.get_content() if body is not None else ""


def text_of(mail: EmailMessage) -> str:
    return mail.get_body(("plain",)).get_content().replace("\r\n", "\n")


def test_links_apply_once_to_their_own_decision(dovecot, smtp_server, mail_config, database_url: str) -> None:
    engine = make_engine(database_url)
    clock = StoppedClock(datetime.now(timezone.utc))
    games = GameService(engine, mail_domain="example.test", clock=clock)
    game_id = games.create_game("fifth-avenue", PLAYERS, seed=44, secret_words=True)
    worker = MailWorker(engine, mail_config, clock=clock)
    worker.run_once()
    words = {p.email: p.secret for p in games.get(game_id).players}

    def mail_in(message: EmailMessage) -> str:
        send(smtp_server, message)
        (outcome,) = [found for _, _, found in worker.run_once().processed]
        return outcome

    def newest_links() -> tuple[str, EmailMessage, dict[str, str]]:
        info = games.get(game_id)
        email = PLAYERS[info.state.current_player()][1]
        newest = [mail for mail in inbox(dovecot, email.split("@")[0]) if links(html_of(mail))][-1]
        assert newest["X-Pbem-Decision"] == str(info.state.moves)  # the mail that asks the decision now open
        return email, newest, links(html_of(newest))

    # Six decisions, each answered by a link of the player's newest mail, the three clients in turn.
    for step in range(6):
        email, newest, found = newest_links()
        assert found and "The HTML part has buttons for the likely answers." in text_of(newest)
        command, url = next(iter(found.items()))
        to, fields = read_mailto(url)
        assert to == GAME and fields["subject"] == f"[Fifth Avenue #{game_id}]"
        assert fields["body"] == f"{command}\r\nref {ref_token(str(newest['Message-ID']))}"  # the seat's word is not needed: the ref proves it
        assert all(word not in url for word in words.values())
        before = games.get(game_id).state.moves
        assert mail_in(link_mail(LINK_SHAPES[step % 3], url, email)) == "applied", (step, command)
        info = games.get(game_id)
        assert info.state.moves == before + 1 and games.history(game_id)[-1].text == command

    # Tapped twice: the second mail (a new Message-ID, the same link) changes nothing and says the decision is over.
    email, newest, found = newest_links()
    command, url = next(iter(found.items()))
    assert mail_in(link_mail("apple", url, email)) == "applied"
    moves = games.get(game_id).state.moves
    assert mail_in(link_mail("gmail", url, email)) == "stale"
    assert games.get(game_id).state.moves == moves
    answer = text_of(inbox(dovecot, email.split("@")[0])[-1])
    assert "which is over" in answer and "Nothing of your mail was applied" in answer

    # Forwarded: the current player's link sent by another player, and by a stranger, is refused; nothing moves.
    email, newest, found = newest_links()
    command, url = next(iter(found.items()))
    other = next(p[1] for p in PLAYERS if p[1] != email)
    assert mail_in(link_mail("outlook", url, other)) == "impersonation"
    assert mail_in(link_mail("gmail", url, "eve@elsewhere.test")) == "impersonation"
    assert games.get(game_id).state.moves == moves
    # ... and the player's own tap still plays.
    assert mail_in(link_mail("outlook", url, email)) == "applied"
    assert games.get(game_id).state.moves == moves + 1
    engine.dispose()


_TAPS = """
return [...document.querySelectorAll('.taps a')].map(a => {
  const r = a.getBoundingClientRect();
  return {text: a.textContent, href: a.href, height: r.height, right: r.right};
});
"""


def test_a_whole_game_answered_only_by_links_on_a_phone(dovecot, smtp_server, mail_config, sqlite_url: str,
                                                         browser) -> None:
    """Issue 44, point 6: Ann plays a whole Fifth Avenue game against two robots by tapping links only. Each
    decision mail of hers is opened in Chromium at 390 px; she taps the link of the command she wants when there
    is one (as the bench's players choose: by kind of command), else the first link of that kind, else the first;
    the mail her client sends (Gmail's, Apple Mail's, Outlook's shape in turn) goes through Dovecot to the real
    worker. Two taps a decision (the link, then Send); printed: the decisions, and those where the command she
    wanted had no link (she would have typed it)."""
    from pbem.games.rng import Rng
    from pbem.services.offline.simulate import choose
    from pbem_testing.browser import PHONE_WIDTH, mail_html

    engine = make_engine(sqlite_url)
    clock = StoppedClock(datetime.now(timezone.utc))
    games = GameService(engine, mail_domain="example.test", clock=clock)
    ann = PLAYERS[0]
    game_id = games.create_game("fifth-avenue", [("Robo", "robot"), ann, ("Maxi", "robot")], seed=6,
                                secret_words=True)
    worker = MailWorker(engine, mail_config, clock=clock)
    worker.run_once()
    rng = Rng(6)
    decisions, typed, kinds = 0, [], {}
    while True:
        for _ in range(20):  # the robots play in the worker's passes
            info = games.get(game_id)
            if info.over or info.players[info.state.current_player()].email == ann[1]:
                break
            worker.run_once()
        if info.over:
            break
        assert info.players[info.state.current_player()].email == ann[1]
        asking = [m for m in inbox(dovecot, "ann") if m["X-Pbem-Decision"] == str(info.state.moves)]
        assert asking, f"no mail asks Ann decision {info.state.moves}"
        page = browser.open(mail_html(asking[-1]), width=PHONE_WIDTH)
        taps = page.js(_TAPS)
        assert taps and all(t["height"] >= 44 and t["right"] <= PHONE_WIDTH for t in taps), taps
        shown = {t["text"]: t["href"] for t in taps}
        wanted = str(choose(info.state.legal_actions(), rng, "by-kind"))
        kind = wanted.split()[0]
        kinds[kind] = kinds.get(kind, 0) + 1
        if wanted not in shown:
            typed.append(wanted)
        command = wanted if wanted in shown else next((c for c in shown if c.split()[0] == kind), next(iter(shown)))
        before = info.state.moves
        send(smtp_server, link_mail(LINK_SHAPES[decisions % 3], shown[command], ann[1]))
        outcomes = [found for _, _, found in worker.run_once().processed]
        assert outcomes == ["applied"], (command, outcomes)
        assert games.get(game_id).state.moves > before
        decisions += 1
    print(f"Ann's decisions by links: {decisions} at 2 taps each; the command wanted had no link in {len(typed)} "
          f"({', '.join(sorted(set(w.split()[0] for w in typed)))}); by kind {kinds}")
    assert decisions >= 20
    engine.dispose()
