"""The demo's robot players turn the command shapes a game mail lists into one command (pbem.demo.players):
over 200 positions of random games of both games, the command a robot chooses is always legal."""

from __future__ import annotations

from collections import Counter

from pbem.demo.players import (
    CHOOSE_TAIL, choose_command, command_of, listed_commands, listed_shapes, parts_left, pick,
)
from pbem.games import get_game
from pbem.games.rng import Rng
from pbem.render.text import wrap

POSITIONS = 100  # of each game
DRAWS = 4  # choices made in every position, each from another seed


def request_text(engine, state) -> str:
    """The end of the mail that asks for the decision, as templates/mail/notice.txt.j2 writes it: the notes,
    then the shapes, each on a line indented by two spaces and continued on lines indented by six."""
    lines = [f"WHAT YOU MAY SEND NOW (decision {state.moves})"]
    lines += [wrap(note, indent="  ", hang="  ") for note in engine.decision_notes(state)[1:]]
    lines.append("Commands you may send now (<a|b> means a or b):")
    lines += [wrap(shape, indent="  ", hang="      ") for shape in engine.legal_shapes(state)]
    lines.append(wrap("Reply to this mail with your commands, one per line (a whole turn may share a mail)."))
    return "\n".join(lines) + "\n"


def positions(kind: str):
    """States of random games of ``kind`` (2 to 4 players), each with a decision to make: every third one,
    and every one that asks for a bid or a choice of parts (the shapes that are not plain slots)."""
    engine = get_game(kind)
    found = 0
    seed = 0
    while True:
        seed += 1
        state = engine.new_game(players=2 + seed % 3, seed=seed)
        rng = Rng(seed * 7919)
        while not state.is_terminal():
            shapes = engine.legal_shapes(state)
            special = any(s.startswith(("bid ", "choose ")) for s in shapes)
            if special or state.moves % 3 == 0:
                yield engine, state
                found += 1
                if found == POSITIONS:
                    return
            legal = state.legal_commands()
            kinds: dict[str, list[str]] = {}
            for command in legal:  # a kind of command first, so auctions and scoring come often
                kinds.setdefault(command.split()[0], []).append(command)
            group = kinds[sorted(kinds)[rng.below(len(kinds))]]
            state.apply_command(state.current_player(), group[rng.below(len(group))])


def test_the_robots_choice_is_always_a_legal_command() -> None:
    seen: Counter[str] = Counter()
    for kind in ("fifth-avenue", "manhattan"):
        for engine, state in positions(kind):
            legal = set(state.legal_commands())
            shapes = engine.legal_shapes(state)
            text = request_text(engine, state)
            assert listed_shapes(text) == shapes  # continuation lines joined back
            assert set(listed_commands(text)) <= legal, (shapes, listed_commands(text))
            for draw in range(DRAWS):
                rng = Rng(state.moves * 31 + draw)
                command = choose_command(text, rng)
                assert command in legal, (kind, shapes, parts_left(text), command)
                seen[command.split()[0]] += 1
                for shape in shapes:
                    one = command_of(shape, rng, left=parts_left(text))
                    assert one is None or one in legal, (kind, shape, parts_left(text), one)
                    if shape.startswith("bid ") and "worth more than" in shape:
                        seen["bid above a high bid" if one else "bid that cannot beat"] += 1
                    if shape.startswith("choose <") and not shape.split()[1][1].isdigit():
                        seen["choose of two colors"] += 1
                # From the shapes alone, without the parts left the mail tells: still legal, except a choice of
                # parts while two colors are open (its slots mix both colors).
                if not any(s.startswith("choose <") and not s.split()[1][1].isdigit() for s in shapes):
                    assert pick(shapes, rng) in legal, (kind, shapes)
    # The positions held every kind of shape: plain slots, bids against a high bid, both kinds of choices.
    assert {"place", "B", "C", "cards", "move", "bid", "pass", "play", "choose"} <= set(seen), seen
    assert seen["bid above a high bid"] >= 10 and seen["choose of two colors"] >= 4, seen


def test_the_same_seed_chooses_the_same_commands() -> None:
    engine = get_game("manhattan")
    state = engine.new_game(players=2, seed=5)
    text = request_text(engine, state)
    first, again = Rng(9), Rng(9)
    assert [choose_command(text, first) for _ in range(20)] == [choose_command(text, again) for _ in range(20)]


def test_a_bid_beats_the_high_bid_or_gives_way_to_another_shape() -> None:
    shape = "bid orange <some of 4 5 5> [black <some of 4 6>], worth more than 9 in all"
    for seed in range(50):
        words = command_of(shape, Rng(seed)).split()
        assert words[:2] == ["bid", "orange"]
        values = [int(w) for w in words[2:] if w != "black"]
        assert sum(values) > 9 and words[2] != "black"
    # Only the biggest bid beats 23: it is taken after a few random misses.
    assert command_of("bid orange <some of 4 5 5> [black <some of 4 6>], worth more than 23 in all",
                      Rng(1)) == "bid orange 4 5 5 black 4 6"
    # Nothing beats 24: the robot passes.
    hopeless = "bid orange <some of 4 5 5> [black <some of 4 6>], worth more than 24 in all"
    assert command_of(hopeless, Rng(1)) is None
    assert pick([hopeless, "pass"], Rng(1)) == "pass"


def test_a_choice_of_parts_keeps_to_the_parts_left() -> None:
    shape = "choose <1|2> <1|2|3> <2|3> <3|4>" + CHOOSE_TAIL  # parts left: 1 2 3 4 once or more, never 4 4
    for seed in range(50):
        sizes = [int(w) for w in command_of(shape, Rng(seed)).split()[1:]]
        assert sizes == sorted(sizes) and len(sizes) == 4 and sizes.count(4) <= 1, sizes
    told = "Your green parts left in the box: 2 of 1 story, 1 of 3 stories; choose 3 of them, for example"
    assert parts_left(told) == {"green": [2, 0, 1, 0]}
    mixed = "choose <blue|green> <1|3> <1|4> <3|4>" + CHOOSE_TAIL
    left = {"blue": [0, 0, 1, 2], "green": [2, 0, 1, 0]}
    assert {command_of(mixed, Rng(seed), left=left) for seed in range(20)} == {
        "choose blue 3 4 4", "choose green 1 1 3"}
