"""Game mails from templates: the text part and the HTML part built from it."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import jinja2

from .text import TEMPLATE_DIR, _environment


@lru_cache(maxsize=None)
def _html_environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATE_DIR),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )


def render_notice(subject: str, context: dict[str, Any]) -> tuple[str, str]:
    """(text, html) of a game mail."""
    text = _environment().get_template("mail/notice.txt.j2").render(context)
    lines = [line.rstrip() for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    text = "\n".join(lines) + "\n"
    return text, html_part(subject, text)


def html_part(subject: str, text: str) -> str:
    """The HTML part of a mail whose text is ``text``: the same text, in monospace, and nothing more."""
    return _html_environment().get_template("mail/notice.html.j2").render(subject=subject, text=text)
