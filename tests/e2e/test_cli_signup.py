"""The moderator's side of tables players start by mail (issue 36, point 4 and 6): `pbem game open`, `tables`,
`start`, `approve`, `watchers` and `unwatch`, run as a moderator would, on both databases."""

from __future__ import annotations

import json

from pbem.config import SignupConfig
from pbem.services.table.service import GameService
from pbem.services.table.signup_admin import SignupAdmin
from pbem.services.table.signup_words import code_in, read_signup_line
from pbem.store.db import make_engine

ANN, BOB, DEE = "ann@example.org", "bob@example.org", "dee@example.org"


def by_mail(service: SignupAdmin, email: str, line: str) -> None:
    """``line`` and its confirmation, as the signup service gets them from the mail side."""
    from sqlmodel import Session, select

    from pbem.store.models import OutboxMail

    service.apply(email, [read_signup_line(line)])
    with Session(service.games.engine) as s:
        subject = s.exec(select(OutboxMail.subject).where(OutboxMail.recipient == email)
                         .order_by(OutboxMail.id.desc())).first()
    service.apply(email, [read_signup_line(f"confirm {code_in(subject)}")])


def test_open_list_approve_and_watchers(database_url: str, pbem, one_line_error) -> None:
    url = database_url
    assert pbem(url, "game", "open", "fifth-avenue", "--players", "3", "--deadline", "2d").stdout.strip() == "1"
    (table,) = json.loads(pbem(url, "game", "tables", "--json").stdout)
    assert (table["table"], table["kind"], table["status"], table["seats"], table["seated"]) == (
        1, "fifth-avenue", "open", 3, [])
    assert table["words"] == "Fifth Avenue for 3 players, 2 days a decision"
    one_line_error(pbem(url, "game", "open", "chess", check=False), "pbem hosts no game called 'chess'")
    one_line_error(pbem(url, "game", "start", "1", check=False), "Fifth Avenue needs at least 2 players")
    one_line_error(pbem(url, "game", "open", "manhattan", "--players", "7", check=False), "Manhattan is for 2, 3, 4")

    engine = make_engine(url)
    games = GameService(engine, mail_domain="example.org")
    signup = SignupAdmin(games, SignupConfig(new="anyone", approve=True))
    by_mail(signup, ANN, "new manhattan players 2")
    waiting = json.loads(pbem(url, "game", "tables", "--status", "waiting", "--json").stdout)
    assert [(t["table"], t["opener"], [s["name"] for s in t["seated"]]) for t in waiting] == [(2, ANN, ["Ann"])]
    assert "table 2 is open: Manhattan for 2 players" in pbem(url, "game", "approve", "2").stdout
    one_line_error(pbem(url, "game", "approve", "2", check=False), "table 2 is open, it waits for no approval")
    one_line_error(pbem(url, "game", "approve", "99", check=False), "there is no table 99")
    listed = pbem(url, "game", "tables").stdout
    assert "Manhattan for 2 players" in listed and "ann@" not in listed  # addresses only with --wide
    assert ANN in pbem(url, "game", "tables", "--wide").stdout

    by_mail(signup, BOB, "join 2")  # full: it starts as game 1
    assert {t["table"]: t["game"] for t in json.loads(pbem(url, "game", "tables", "--json").stdout)}[2] == 1
    # The moderator's own table 1, with one player by mail, started with a robot in its free seats: game 2.
    by_mail(SignupAdmin(games, SignupConfig()), DEE, "join 1")
    assert pbem(url, "game", "start", "1", "--with-robots").stdout.strip() == "2"
    names = [p["name"] for p in json.loads(pbem(url, "game", "show", "2", "--json").stdout)["players"]]
    assert names[0] == "Dee" and len(names) == 3 and all(name.endswith("(robot)") for name in names[1:])
    one_line_error(pbem(url, "game", "start", "1", check=False), "table 1 is started, as game 2")
    # A table closed by the moderator: its player is told, nobody joins it any more.
    assert pbem(url, "game", "open", "manhattan").stdout.strip() == "3"
    by_mail(SignupAdmin(games, SignupConfig()), BOB, "join 3")
    assert pbem(url, "game", "close", "3").stdout.strip() == f"table 3 is closed; told: {BOB}"
    one_line_error(pbem(url, "game", "close", "3", check=False), "table 3 is closed")
    from pbem.services.table.signup import SignupRefused
    try:
        signup.apply(DEE, [read_signup_line("join 3")])
        raise AssertionError("joined a closed table")
    except SignupRefused as refused:
        assert refused.why == "table 3 is closed"
    by_mail(signup, DEE, "watch 1")
    watchers = json.loads(pbem(url, "game", "watchers", "1", "--json").stdout)
    assert watchers["game"] == 1 and [w["email"] for w in watchers["watchers"]] == [DEE]
    assert DEE in pbem(url, "game", "watchers", "1").stdout
    assert pbem(url, "game", "unwatch", "1", DEE).stdout.strip() == f"{DEE} no longer watches game 1"
    assert "Nobody watches game 1." in pbem(url, "game", "watchers", "1").stdout
    one_line_error(pbem(url, "game", "unwatch", "1", DEE, check=False), f"{DEE} does not watch game 1")
    one_line_error(pbem(url, "game", "watchers", "5", check=False), "there is no game 5")
    # The list pages (issue 42), the newest first: tables 3, 2, 1 by twos.
    assert [t["table"] for t in json.loads(pbem(url, "game", "tables", "--limit", "2", "--json").stdout)] == [3, 2]
    assert [t["table"] for t in json.loads(pbem(url, "game", "tables", "--limit", "2", "--page", "2",
                                                "--json").stdout)] == [1]
    assert "3 tables; page 1 shows 2: --page 2 for more." in pbem(url, "game", "tables", "--limit", "2").stdout
    assert "No tables on page 9." in pbem(url, "game", "tables", "--page", "9").stdout
    engine.dispose()


def test_the_help_shows_the_config_sections_it_names(database_url: str, pbem) -> None:
    """Issue 42: Rich markup took '[signup]' in a command's help for a tag and printed nothing of it."""
    assert "whatever [signup] new says" in " ".join(pbem(database_url, "game", "open", "--help").stdout.split())
    assert "([signup] approve = yes, or true)" in " ".join(pbem(database_url, "game", "approve", "--help").stdout.split())
