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


PYTHON_TYPE = re.compile(r"<(?:bool|str|int|float|path|datetime|list\[[^\]]*\]|[a-z]+ range)>")


def all_groups() -> list[str]:
    group = typer.main.get_command(app)
    return [""] + [name for name, sub in group.commands.items() if getattr(sub, "commands", None)]


def test_help_shows_no_python_types_and_no_value_for_a_flag() -> None:
    """`--help` of pbem, of every group and of every command: a flag such as --json or --help takes no value,
    so none is shown, and a value is named as Click names it (TEXT, INTEGER), never '<bool>' or '<list[str]>'."""
    from typer.testing import CliRunner

    runner = CliRunner()
    names = all_groups() + [name for name, _ in all_commands()]
    assert "game new" in names and "game" in names and "" in names
    for name in names:
        result = runner.invoke(app, [*name.split(), "--help"], env={"COLUMNS": "200", "NO_COLOR": "1"},
                               terminal_width=200)
        shown = result.output
        assert result.exit_code == 0 and "--help" in shown, (name, shown)
        assert not PYTHON_TYPE.search(shown), f"pbem {name} --help: {PYTHON_TYPE.search(shown).group(0)}\n{shown}"
        for line in shown.splitlines():
            if re.search(r"--(help|json|version|back-side|secret-words)\b", line) and "Usage" not in line:
                flag = re.search(r"--[a-z-]+", line).group(0)
                after = line.split(flag, 1)[1].strip(" │")
                assert not re.match(r"(TEXT|BOOLEAN|INTEGER)\b", after), f"pbem {name}: {line}"


NOT_YET_SINGULAR = {"pbem/games/manhattan/rules.py"}  # "part(s)": Manhattan's own texts, fixed with its engine


def test_counts_are_written_singular_or_plural_never_with_parentheses() -> None:
    """'1 command', '2 commands': no text says 'command(s)' or 'mail(s)' (pbem.words.plural writes either)."""
    from pbem.words import listing, plural

    assert (plural(1, "command"), plural(2, "command"), plural(0, "mail")) == ("1 command", "2 commands", "0 mails")
    assert plural(1, "unsent mail") == "1 unsent mail" and plural(3, "story", "stories") == "3 stories"
    assert (listing(["a"]), listing(["a", "b", "c"]), listing(["a", "b", "c"], limit=1)) == ("a", "a, b and c",
                                                                                         "a and 2 more")
    import io
    import tokenize

    found = []
    for path in sorted((ROOT / "pbem").rglob("*.py")):
        if path.relative_to(ROOT).as_posix() in NOT_YET_SINGULAR:
            continue
        for token in tokenize.generate_tokens(io.StringIO(path.read_text()).readline):
            if token.type == tokenize.STRING and re.search(r"[a-z]\(s\)", token.string):
                found.append(f"{path.relative_to(ROOT)}:{token.start[0]}: {token.string}")
    for path in sorted((ROOT / "templates").rglob("*.j2")):
        found += [f"{path.relative_to(ROOT)}:{n}" for n, line in enumerate(path.read_text().splitlines(), start=1)
                  if re.search(r"[a-z]\(s\)", line)]
    assert not found, "\n".join(found)
