"""Issue 44, point 1: over complete games of both games, every mail that asks a decision has the likely answers
as links under its first screen, and no other mail has any. Every link is a command its reader may send now
(the engine takes it), with the ``ref`` line of its own mail and nothing of another player's; every legal command
when there are at most 12, else four (for a bid: pass, the least raise and standing bids), a More link for
every group of the others (each group's line gives back every command not shown) and a line that counts them;
the text part says in one line that the HTML part has them."""

from __future__ import annotations

import pytest

from test_game_mails import NAMES, Table, sqlite_engine  # noqa: F401

from pbem.games.errors import CommandError
from pbem.games.fifth_avenue import bid_reach
from pbem.games.rng import Rng
from pbem.mail.mailto import ADDRESS_HERE, ref_token
from pbem.services.mail_out.taps import CHOSEN, MOST, choices
from pbem.services.offline.simulate import choose
from pbem.store.models import OutboxMail
from pbem_testing.link_shapes import links, read_mailto

__all__ = ["sqlite_engine"]

LINE = "The HTML part has buttons for the likely answers."


def _total(command: str) -> int:
    return sum(int(word) for word in command.split() if word.isdigit())


def others(count: int) -> str:
    return f"<p>Tap one, then Send (a More link mails you the other {count} to tap):</p>"


def check_links(mail: OutboxMail, state, seat: int, secrets: dict[int, str], tag: str) -> dict[str, str]:  # type: ignore[no-untyped-def]
    found = links(mail.html_body)
    legal = state.legal_commands()
    assert found and LINE in mail.text_body.splitlines()
    html = mail.html_body
    assert html.index('class="decision"') < html.index('class="taps"') < html.index("<h3")  # under the first screen
    more: set[str] = set()
    for command, url in found.items():
        to, fields = read_mailto(url)
        assert to == ADDRESS_HERE and fields["subject"] == tag
        assert not any(word and word in url for s, word in secrets.items())
        line, ref = fields["body"].split("\r\n")
        assert ref == f"ref {ref_token(mail.message_id)}"
        if command.startswith("More: "):
            group = choices(legal, line)
            assert group is not None and line.startswith("choices ")
            more |= set(group.commands)
            continue
        assert line == command
        try:
            state.clone().parse(seat, command)
        except CommandError as exc:  # pragma: no cover - the assertion says which
            raise AssertionError(f"link {command!r} is refused: {exc}") from exc
    found = {command: url for command, url in found.items() if not command.startswith("More: ")}
    assert set(legal) - set(found) <= more  # every other legal command a More link away
    bids = [c for c in legal if c.split()[0] == "bid"]
    if len(legal) <= MOST:
        assert not more
        assert list(found) == legal
        assert "<p>Tap one, then Send:</p>" in html
    elif bids and "pass" in legal:
        least = min(_total(c) for c in bids)
        assert list(found)[:2] == ["pass", min((c for c in bids if _total(c) == least), key=lambda c: len(c.split()))]
        assert list(found)[2:] in ([], [f"bid up to {bid_reach(state)['most']}"])
        assert others(len(legal) - 2) in html
    else:
        assert len(found) == CHOSEN and set(found) <= set(legal)
        kinds = {c.split()[0] for c in legal}
        assert len({c.split()[0] for c in found}) == min(len(kinds), CHOSEN)  # each kind of command in turn
        assert others(len(legal) - CHOSEN) in html
    return found


@pytest.mark.parametrize("kind, players, seed", [("fifth-avenue", 3, 0), ("fifth-avenue", 2, 5), ("manhattan", 2, 11),
                                                 ("manhattan", 4, 12)])
def test_every_decision_mail_has_its_answers_as_links(sqlite_engine, kind, players, seed) -> None:
    table = Table(sqlite_engine, players, seed=seed, kind=kind)
    rng = Rng(seed)
    mails = table.new_mails()
    asked = 0
    standing = 0
    while True:
        info = table.service.get(table.game)
        state = info.state
        secrets = {p.seat: p.secret for p in info.players}
        for mail in mails:
            seat = next(p.seat for p in info.players if p.email == mail.recipient)
            if mail.decision is not None and mail.decision == state.moves:
                found = check_links(mail, state, seat, {s: w for s, w in secrets.items() if s != seat},
                                    f"[{info.title} #{info.id}]")
                standing += sum(1 for c in found if c.startswith("bid up to"))
                asked += 1
            else:
                assert 'class="taps"' not in (mail.html_body or "") and LINE not in mail.text_body
        if state.is_terminal():
            break
        table.submit(state.current_player(), str(choose(state.legal_actions(), rng, "by-kind")))
        mails = table.new_mails()
    assert asked >= state.moves // 2
    assert standing > 0 or kind == "manhattan"


def test_a_link_answers_its_own_decision_and_never_a_later_one_of_the_same_turn(db_engine) -> None:
    """A Fifth Avenue turn is one context of several decisions (an action, cards, a move): a Reply to the turn's
    first mail may still play its later decisions, a link may not. Tapped after its decision, a link changes
    nothing and gets the stale answer; sent from another player's address it is refused as a forgery."""
    from sqlmodel import Session, select

    from pbem.services.mail_in.mail_commands import MailCommands
    from pbem.services.table.service import GameService
    from pbem_testing.link_shapes import link_mail

    games = GameService(db_engine, mail_domain="example.test")
    game_id = games.create_game("fifth-avenue", NAMES[:3], seed=41)
    processor = MailCommands(games)

    def asking() -> OutboxMail:
        with Session(db_engine) as s:
            return s.exec(select(OutboxMail).where(OutboxMail.decision == games.get(game_id).state.moves)
                          .order_by(OutboxMail.id.desc())).first()

    while games.get(game_id).state.frames[-1]["kind"] != "turn":  # the starting placements
        info = games.get(game_id)
        games.submit(game_id, info.players[info.state.current_player()].email, info.state.legal_commands()[0])
    first = asking()
    email = first.recipient
    found = links(first.html_body)
    turn_key = first.decision_key
    action = next(iter(found))
    tapped = processor.handle(bytes(link_mail("gmail", found[action], email)))
    assert tapped.outcome == "applied" and tapped.decision == first.decision
    now = games.get(game_id)
    assert now.state.moves == first.decision + 1 and asking().decision_key == turn_key  # the same turn goes on
    for command, url in found.items():  # every other link of that mail, tapped late: stale, nothing applied
        late = processor.handle(bytes(link_mail("apple", url, email)))
        assert late.outcome == "stale" and "which is over" in late.reply_body, (command, late.outcome)
    assert games.get(game_id).state.moves == now.state.moves
    second = asking()
    other = next(p.email for p in now.players if p.email != email)
    for sender in (other, "eve@elsewhere.test"):
        forged = processor.handle(bytes(link_mail("outlook", next(iter(links(second.html_body).values())), sender)))
        assert forged.outcome == "impersonation" and email in forged.reply_body, sender
    assert games.get(game_id).state.moves == now.state.moves
