"""Issue 44, points 2 and 3, through the real worker on Dovecot, on SQLite and PostgreSQL: in a game with secret
words, the answer links of each game mail, decoded as RFC 6068 says, sent as Gmail, Apple Mail and Outlook send
a tapped link (a new mail, no In-Reply-To, a signature below, HTML only for Outlook), each apply their command
once, to the decision of the mail they came from. A link tapped twice gets the stale answer and changes
nothing; a link forwarded to another player or to a stranger is refused as a forged mail is."""

from __future__ import annotations

from datetime import datetime, timezone
from email.message import EmailMessage

from sqlalchemy import Engine

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


def opened(url: str, mail_config) -> tuple[Engine, GameService, int, MailWorker]:
    """A Fifth Avenue of PLAYERS with secret words on a stopped clock, its first mails sent by the worker."""
    engine = make_engine(url)
    clock = StoppedClock(datetime.now(timezone.utc))
    games = GameService(engine, mail_domain="example.test", clock=clock)
    game_id = games.create_game("fifth-avenue", PLAYERS, seed=44, secret_words=True)
    worker = MailWorker(engine, mail_config, clock=clock)
    worker.run_once()
    return engine, games, game_id, worker


def test_links_apply_once_to_their_own_decision(dovecot, smtp_server, mail_config, database_url: str) -> None:
    engine, games, game_id, worker = opened(database_url, mail_config)
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


def test_a_more_link_mails_the_choices_and_one_of_them_answers_the_decision(dovecot, smtp_server, mail_config,
                                                                           database_url: str) -> None:
    """Issue 44, point 1: any answer two taps away. A decision with more legal commands than links shows a "More"
    link for each group of the others; tapped (Gmail's shape), pbem answers at once with a mail to that player only
    listing the group's commands as links with the decision mail's own ref line; one of them tapped (Outlook's
    shape) applies once. Asking changes nothing and asking again gives the same list; once the decision is over,
    the More link and the command get the stale answer."""
    engine, games, game_id, worker = opened(database_url, mail_config)

    def mail_in(message: EmailMessage) -> str:
        send(smtp_server, message)
        (outcome,) = [found for _, _, found in worker.run_once().processed]
        return outcome

    for _ in range(40):  # the first links until a mail has a More link
        info = games.get(game_id)
        email = PLAYERS[info.state.current_player()][1]
        newest = [mail for mail in inbox(dovecot, email.split("@")[0]) if links(html_of(mail))][-1]
        found = links(html_of(newest))
        more = [label for label in found if label.startswith("More: ")]
        if more:
            break
        assert mail_in(link_mail("apple", next(iter(found.values())), email)) == "applied"
    assert more, "no decision mail with a More link"
    legal = info.state.legal_commands()
    token = ref_token(str(newest["Message-ID"]))
    user = email.split("@")[0]
    others = {p[1]: len(inbox(dovecot, p[1].split("@")[0])) for p in PLAYERS if p[1] != email}
    moves = info.state.moves
    lists = []
    for _ in range(2):  # asked twice: the same list, nothing moves
        had = len(inbox(dovecot, user))
        assert mail_in(link_mail("gmail", found[more[0]], email)) == "choices"
        assert games.get(game_id).state.moves == moves
        (answer,) = inbox(dovecot, user)[had:]
        choices = links(html_of(answer))
        assert choices and set(choices) <= set(legal) and not set(choices) <= set(found)
        assert all(read_mailto(url)[1]["body"] == f"{command}\r\nref {token}" for command, url in choices.items())
        assert all(command in text_of(answer) for command in choices)  # typed from the text part too
        lists.append(list(choices))
    assert lists[0] == lists[1]
    assert {p: len(inbox(dovecot, p.split("@")[0])) for p in others} == others  # to the asking seat only
    wanted = next(command for command in choices if command not in found)
    assert mail_in(link_mail("outlook", choices[wanted], email)) == "applied"
    assert games.get(game_id).state.moves == moves + 1 and games.history(game_id)[-1].text == wanted
    assert mail_in(link_mail("apple", choices[wanted], email)) == "stale"
    assert mail_in(link_mail("gmail", found[more[0]], email)) == "stale"
    assert "which is over" in text_of(inbox(dovecot, user)[-1])
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
    """Issue 44, points 1 and 6: Ann plays a whole Fifth Avenue game against two robots by tapping links only.
    Each decision mail of hers is opened in Chromium at 390 px; she wants a command as the bench's players choose
    (by kind of command) and taps its link when the mail has one, else the More link of its group, whose mail of
    choices (opened in Chromium too) has it; the mails her client sends (Gmail's, Apple Mail's, Outlook's shape in
    turn) go through Dovecot to the real worker. Every command she wanted is one or two links away, none typed;
    printed: the decisions answered with one link, with two."""
    from pbem.games.rng import Rng
    from pbem.services.mail_out.taps import choices
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
    decisions, kinds, two = 0, {}, []
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
        before = info.state.moves
        if wanted not in shown:  # the More link of its group, then the command in the mail of choices
            legal = info.state.legal_commands()
            more = next(url for text, url in shown.items() if text.startswith("More: ")
                        and wanted in choices(legal, read_mailto(url)[1]["body"].split("\r\n")[0]).commands)
            had = len(inbox(dovecot, "ann"))
            send(smtp_server, link_mail(LINK_SHAPES[decisions % 3], more, ann[1]))
            assert [found for _, _, found in worker.run_once().processed] == ["choices"]
            (listed,) = inbox(dovecot, "ann")[had:]
            taps = browser.open(mail_html(listed), width=PHONE_WIDTH).js(_TAPS)
            assert taps and all(t["height"] >= 44 and t["right"] <= PHONE_WIDTH for t in taps), taps
            shown = {t["text"]: t["href"] for t in taps}
            two.append(wanted)
        send(smtp_server, link_mail(LINK_SHAPES[decisions % 3], shown[wanted], ann[1]))
        outcomes = [found for _, _, found in worker.run_once().processed]
        assert outcomes == ["applied"], (wanted, outcomes)
        assert games.get(game_id).state.moves > before
        decisions += 1
    print(f"Ann's decisions by links: {decisions}, {decisions - len(two)} with one link (then Send), {len(two)} with "
          f"two (a More link, then the command in the mail of choices: "
          f"{', '.join(sorted(set(w.split()[0] for w in two)))}), none typed; by kind {kinds}")
    assert decisions >= 20
    engine.dispose()
