"""Issue 44, point 1: any answer at most two taps away. Over random games of both engines (seeded), at every
decision the mail's links and its "More" links' mails of choices together hold every legal command: each command
is a link of the mail, or a link of the one mail of choices that a "More" link asks for (the line
``choices <words>`` that pbem answers, services.mail_in.choices_mail), which holds at most limits.CHOICES_MOST."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from pbem.games import get_game
from pbem.games.rng import Rng
from pbem.limits import CHOICES_MOST
from pbem.mail.mailto import ADDRESS_HERE
from pbem.services.mail_out.taps import MOST, Group, choice_links, choices, groups, taps
from pbem.services.offline.simulate import choose
from pbem_testing.link_shapes import read_mailto

TOKEN = "TF0bpI8ZQTjsagsUESwCzA"


def reachable(state, kind: str) -> tuple[set[str], set[str], int]:  # type: ignore[no-untyped-def]
    """(commands with a link of their own, commands reached by a More link's mail, the More links)."""
    info = SimpleNamespace(kind=kind, state=state)
    found = taps(info, state.current_player(), state.moves, "[Game #1]", TOKEN)  # type: ignore[arg-type]
    legal = state.legal_commands()
    direct, second, more = set(), set(), 0
    for link in found.links:
        to, fields = read_mailto(link["href"])
        line, ref = fields["body"].split("\r\n")
        assert to == ADDRESS_HERE and ref == f"ref {TOKEN}"
        if not link["command"].startswith("More: "):
            assert line == link["command"]
            if line not in legal:  # 'bid up to 35', a standing bid: the engine takes it
                state.clone().parse(state.current_player(), line)
            direct.add(line)
            continue
        more += 1
        group = choices(legal, line)
        assert group is not None and 0 < len(group.commands) <= CHOICES_MOST, line
        for tap in choice_links(group, "[Game #1]", state.moves, TOKEN):
            assert read_mailto(tap["href"])[1]["body"] == f"{tap['command']}\r\nref {TOKEN}"  # the same decision
            second.add(tap["command"])
    assert found.more == len(set(legal) - direct)
    return direct, second, more


@pytest.mark.parametrize("kind, players, seed", [("fifth-avenue", 2, 1), ("fifth-avenue", 3, 2), ("fifth-avenue", 4, 3),
                                                 ("manhattan", 2, 4), ("manhattan", 3, 5), ("manhattan", 4, 6)])
def test_every_legal_command_is_at_most_two_taps_away(kind: str, players: int, seed: int) -> None:
    state = get_game(kind).new_game(players=players, seed=seed)
    rng = Rng(seed)
    by_more = 0
    while not state.is_terminal():
        legal = state.legal_commands()
        direct, second, more = reachable(state, kind)
        assert set(legal) <= direct | second and second <= set(legal)
        if len(legal) <= MOST:
            assert direct == set(legal) and more == 0
        by_more += bool(second - direct)
        state.apply_action(state.current_player(), choose(state.legal_actions(), rng, "by-kind"))
    assert by_more > 0


def test_groups_cover_the_legal_commands_once_each_and_fit_a_mail() -> None:
    legal = ["pass"] + [f"bid gray {a} black {b}" for a in range(1, 9) for b in range(30)] + ["bid green 4"]
    found = groups(legal, most=100)
    assert [c for g in found for c in g.commands] == legal
    assert [(g.words, g.part, g.parts, len(g.commands)) for g in found] == [
        (("pass",), 1, 1, 1), (("bid", "gray"), 1, 3, 100), (("bid", "gray"), 2, 3, 100), (("bid", "gray"), 3, 3, 40),
        (("bid", "green"), 1, 1, 1)]
    assert found[2].line == "choices bid gray #2" and found[2].label == "More: bid gray \u2026 (2 of 3)"
    for group in found:  # the line each More link sends gives back its group
        assert choices(legal, group.line, most=100) == group


def test_a_typed_choices_line_reads_any_case_and_any_first_words() -> None:
    legal = ["A", "B perfume 34W brown", "B perfume 34E gray", "C white 34E"]
    assert choices(legal, "choices b") == Group(("B",), ("B perfume 34W brown", "B perfume 34E gray"))
    assert choices(legal, "CHOICES B perfume 34e") == Group(("B", "perfume", "34E"), ("B perfume 34E gray",))
    assert choices(legal, "choices") == Group((), tuple(legal))
    assert choices(legal, "choices D") is None and choices(legal, "choices B #2") is None
    assert choices(legal, "choices b #1") == Group(("B",), ("B perfume 34W brown", "B perfume 34E gray"))
