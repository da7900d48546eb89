"""The tables the commands print for people: they fit the terminal, an 80-column one included, and cut nothing.

Rich shrinks a table that is wider than the terminal, and a cell narrower than its text loses the rest behind
an ellipsis ("mail-wo…"). Here every cell wraps at spaces and folds a word longer than its column onto the
next line, so every character a moderator may need (an address, a token, a time) is printed; the columns a
moderator looks at less are left out unless they ask for them (``--wide``), so the rest stay readable at 80
columns. ``--json`` prints every field whatever the width.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import typer

if TYPE_CHECKING:
    from rich.table import Table

WIDE_HELP = "Show every column (the table is wider; at 80 columns its cells wrap)."


def wide_option() -> Any:
    return typer.Option(False, "--wide", help=WIDE_HELP)


@dataclass(frozen=True)
class Column:
    name: str
    only: Literal["", "wide", "narrow"] = ""  # shown only with --wide, or only without it (a shorter form)
    whole: bool = False  # a short value that stays on one line (a number); the other columns give way
    justify: Literal["left", "right"] = "left"


def people_table(title: str | None, columns: Sequence[Column], rows: Iterable[Sequence[str]], *,
                 wide: bool = False, **options: object) -> Table:
    """A table of ``rows`` (one text per column, in ``columns``' order), with the columns of the width asked
    for; a cell's text is printed as written, never read as Rich markup (names and addresses are
    people's text)."""
    from rich.markup import escape
    from rich.table import Table

    shown = [index for index, column in enumerate(columns) if column.only != ("narrow" if wide else "wide")]
    table = Table(title=title, **options)  # type: ignore[arg-type]
    for index in shown:
        column = columns[index]
        table.add_column(column.name, justify=column.justify, no_wrap=column.whole, overflow="fold")
    for row in rows:
        table.add_row(*(escape(row[index]) for index in shown))
    return table


__all__ = ["Column", "WIDE_HELP", "people_table", "wide_option"]
