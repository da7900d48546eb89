"""Saved playthroughs replayed and compared as text.

Each file under tests/data/transcripts is a whole game: its seed, every command
and every announced effect. Replaying the commands must print the identical
text. With PBEM_UPDATE_GOLDEN=1 the files are (re)written from seeded random
games instead; review the diff before committing it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pbem.services.offline import transcript
from pbem.services.offline.simulate import play_random_game

DATA = Path(__file__).parent.parent / "data" / "transcripts"
CASES = {
    "fifth_avenue_2p_front_seed4.txt": dict(players=2, seed=4, back_side=False),
    "fifth_avenue_3p_back_seed9.txt": dict(players=3, seed=9, back_side=True),
    "fifth_avenue_4p_front_seed17.txt": dict(players=4, seed=17, back_side=False),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_transcript_replays_to_the_same_text(name: str) -> None:
    path = DATA / name
    case = CASES[name]
    if os.environ.get("PBEM_UPDATE_GOLDEN"):
        _, log = play_random_game("fifth-avenue", case["players"], case["seed"], policy="by-kind",
                                  keep_log=True, back_side=case["back_side"])
        commands = [(int(line.split(":", 1)[0]), line.split(":", 1)[1].strip()) for line in log]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(transcript.render("fifth-avenue", case["players"], case["seed"], commands,
                                          back_side=case["back_side"]))
    saved = path.read_text()
    header, commands = transcript.parse(saved)
    assert header == {"game": "fifth-avenue", **case}
    assert commands, "a transcript holds commands"
    again = transcript.render(header["game"], header["players"], header["seed"], commands, back_side=header["back_side"])
    assert again == saved
