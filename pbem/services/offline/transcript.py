"""Plain-text transcripts of a game: the commands played and what each one did.

A transcript is both a record a moderator can read and a regression test: the
header and the ``>`` lines are enough to replay the game, and replaying must
give the same text again.
"""

from __future__ import annotations

from typing import Any

from ...games import get_game
from ..mail_out.notices import named

HEADER_KEYS = ("game", "players", "seed", "back_side")


def describe_event(event: dict[str, Any], robot: int | None) -> list[str]:
    actor = event.get("actor")
    text = event["text"]
    if actor is not None and actor != robot and not text.startswith(("the robot", "player ")):
        text = f"player {actor + 1} {text}"
    lines = [text]
    if "points" in event and any(event["points"]):
        lines.append("points: " + ", ".join(f"player {p + 1} +{pts}" for p, pts in enumerate(event["points"]) if pts))
    for seat, secret in sorted(event.get("private", {}).items()):
        lines.append(f"[only player {int(seat) + 1} sees] {secret.strip()}")
    return lines


def render(game: str, players: int, seed: int, commands: list[tuple[int, str]], **options: Any) -> str:
    engine = get_game(game)
    state = engine.new_game(players=players, seed=seed, **options)
    out = [
        "# pbem transcript: replayable, regenerate with PBEM_UPDATE_GOLDEN=1",
        f"game: {engine.NAME}",
        f"players: {players}",
        f"seed: {seed}",
        f"back_side: {str(bool(options.get('back_side'))).lower()}",
        "",
    ]
    for player, command in commands:
        out.append(f"> {player + 1}: {command}")
        for event in state.apply_command(player, command):
            out.extend("  " + line for line in describe_event(event, state.robot))
    out.append("")
    if state.is_terminal():
        result = state.result
        out.append(f"= game over ({result['reason'].replace('_', ' ')})")
        out.append("scores: " + " / ".join(str(s) for s in result["scores"]))
        out.append("cards in hand: " + " / ".join(str(c) for c in result["cards_in_hand"]))
        out.append("winners: " + ", ".join(f"player {w + 1}" for w in result["winners"]))
    else:
        out.append(f"= game goes on: player {state.current_player() + 1} to act")
    return "\n".join(out) + "\n"


def parse(text: str) -> tuple[dict[str, Any], list[tuple[int, str]]]:
    """The header and the commands of a transcript."""
    header: dict[str, Any] = {}
    commands: list[tuple[int, str]] = []
    for line in text.splitlines():
        if line.startswith("> "):
            seat, command = line[2:].split(":", 1)
            commands.append((int(seat) - 1, command.strip()))
        elif ":" in line and line.split(":", 1)[0] in HEADER_KEYS:
            key, value = (part.strip() for part in line.split(":", 1))
            header[key] = value
    return {
        "game": header["game"],
        "players": int(header["players"]),
        "seed": int(header["seed"]),
        "back_side": header.get("back_side") == "true",
    }, commands


def export_text(doc: dict[str, Any]) -> str:
    """A game export (see GameService.export) as text for people: players by name, with the moderator's
    reasons."""
    game = doc["game"]
    names = {p["seat"]: f"{p['name']} <{p['email']}>" for p in doc["players"]}
    people = {p["seat"]: p["name"] for p in doc["players"]}
    by_email = {p["email"]: p["name"] for p in doc["players"]}
    out = [
        f"# pbem game {game['id']}: {game['kind']} ({game['variant']}), {game['status']}",
        f"seed: {game['seed']}",
        f"settings: {game['settings']}",
        f"created: {game['created_at']}",
        "",
    ]
    out += [f"seat {seat + 1}: {name}" for seat, name in sorted(names.items())]
    out.append("")
    for e in doc["events"]:
        head = f"#{e['seq']} {e['time'][:19]} [{e['source']}] {e['actor']}"
        reason = e["data"].get("reason")
        why = f"    the moderator's reason: {reason}" if reason else ""
        if e["kind"] == "command":
            by = {"moderator": " (by the moderator)", "deadline": " (at the deadline)"}.get(e["data"].get("by"), "")
            who = people.get(e["seat"], f"seat {e['seat'] + 1}")
            out.append(f"{head} as {who}{by}: {e['text']}")
            out.extend(f"    {named(people, effect)}" for effect in e["data"].get("effects", []))
        else:
            out.append(f"{head} {e['kind']} {e['text']}".rstrip())
        out.extend([why] if why else [])
    out.append("")
    final = doc["final"]
    out.append("final scores: " + ", ".join(f"{by_email.get(email, email)} <{email}> {score}"
                                            for email, score in final["scores"].items())
               + ("" if final["over"] else " (game not over)"))
    if final["winners"]:
        out.append("winners: " + ", ".join(f"{by_email.get(email, email)} <{email}>" for email in final["winners"]))
    return "\n".join(out) + "\n"
