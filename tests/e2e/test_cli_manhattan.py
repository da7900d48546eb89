"""Manhattan through the same moderator's CLI as Fifth Avenue: nothing in the CLI names a game."""

from __future__ import annotations

import json
from pathlib import Path

ANN, BOB, CY = "ann@example.org", "bob@example.org", "cy@example.org"


def test_manhattan_is_created_played_shown_exported_and_imported_like_any_game(tmp_path: Path, pbem,
                                                                               one_line_error) -> None:
    url = f"sqlite:///{tmp_path / 'manhattan.sqlite3'}"
    pbem(url, "db", "upgrade")
    sims = json.loads(pbem(url, "sim", "manhattan", "--players", "2", "--games", "2", "--seed", "4", "--json").stdout)
    assert sims["game"] == "manhattan" and len(sims["games"]) == 2 and all(g["winners"] for g in sims["games"])
    one_line_error(pbem(url, "sim", "manhattan", "--back-side", check=False), "Manhattan: ")
    one_line_error(pbem(url, "game", "new", "manhattan", "-p", f"Ann={ANN}", "-p", f"Bob={BOB}", "--back-side",
                        check=False), "Manhattan: ")

    assert pbem(url, "game", "new", "manhattan", "-p", f"Ann={ANN}", "-p", f"Bob={BOB}", "-p", f"Cy={CY}",
                "--seed", "6").stdout.strip() == "1"
    for _ in range(5):  # everybody chooses, then the first building turns
        (email, commands), = json.loads(pbem(url, "game", "legal", "1", "--json").stdout)["to_act"].items()
        pbem(url, "game", "play", "1", "--as", email, commands[-1], "--reason", "testing")
    listed = json.loads(pbem(url, "game", "list", "--json").stdout)
    assert listed[0]["kind"] == "manhattan" and listed[0]["events"] == 6
    moderator = pbem(url, "game", "show", "1").stdout
    assert "Moderator's board: every hand is shown." in moderator and "HANDS" in moderator
    as_bob = pbem(url, "game", "show", "1", "--as", BOB).stdout
    assert "Board for Bob (player 2), seen from your side (west)." in as_bob and "HANDS" not in as_bob
    shown = json.loads(pbem(url, "game", "show", "1", "--as", BOB, "--json").stdout)
    assert "hand" in shown["state"] and "hands" not in shown["state"]
    one_line_error(pbem(url, "game", "play", "1", "--as", ANN, "play 1 atlantis 1", check=False), "atlantis")

    exported = tmp_path / "game1.json"
    pbem(url, "game", "export", "1", "-o", str(exported))
    assert pbem(url, "game", "import", str(exported)).stdout.strip() == "2"
    first = json.loads(pbem(url, "game", "show", "1", "--json").stdout)["state"]
    second = json.loads(pbem(url, "game", "show", "2", "--json").stdout)["state"]
    assert first == second
    assert pbem(url, "game", "undo", "2", "--steps", "2").returncode == 0
    assert json.loads(pbem(url, "game", "show", "2", "--json").stdout)["state"]["moves"] == 3
