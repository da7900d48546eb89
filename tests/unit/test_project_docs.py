"""The README's commands, CI and the CLI documentation stay in step."""

from __future__ import annotations

import re
from pathlib import Path

import typer.main

from pbem.cli import app

ROOT = Path(__file__).resolve().parents[2]


def readme_commands() -> list[str]:
    blocks = re.findall(r"```sh\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    return [block.strip() for block in blocks]


def test_readme_has_the_two_commands_and_ci_runs_the_test_command() -> None:
    commands = readme_commands()
    assert len(commands) >= 2
    setup_and_run, test_command = commands[0], commands[1]
    assert "pip install" in setup_and_run and "pbem " in setup_and_run
    assert test_command.endswith("python -m pytest")
    ci_lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert test_command in ci_lines


def all_commands() -> list[tuple[str, object]]:
    group = typer.main.get_command(app)
    found = []

    def walk(prefix: str, cmd) -> None:
        subcommands = getattr(cmd, "commands", None)
        if subcommands:
            for name, sub in subcommands.items():
                walk(f"{prefix} {name}".strip(), sub)
        else:
            found.append((prefix, cmd))

    walk("", group)
    return found


def test_every_command_has_help_with_an_example_and_is_in_docs_cli() -> None:
    docs = (ROOT / "docs" / "cli.md").read_text()
    commands = all_commands()
    assert commands
    for name, cmd in commands:
        assert cmd.help and "Example" in cmd.help, name
        assert f"`pbem {name}`" in docs, name
        for param in cmd.params:
            if param.name != "help" and hasattr(param, "help"):
                assert param.help, f"{name} --{param.name} has no help"
