"""Game mails from templates: the text part, and an HTML part that renders the same content for phones and webmail.

The text part (``templates/mail/notice.txt.j2``) is for terminal clients and quoting: 72 columns, the board
drawn in monospace. The HTML part (``templates/mail/notice.html.j2``) says the same things in the same order,
with headings, the decision in bold, the commands one to a line, and the board drawn from the reader's own
view (``render.html``) in tables and colours; it fits a 390 px wide phone without images, scripts or external
CSS. Its style sheet (``templates/mail/style.css``) stays one <style> block in the head, the elements named by
class (``style_sheet``): Gmail, Apple Mail, Outlook and the webmails read it. Inlined into every element's
style attribute it was three quarters of the part's bytes (29 KB a mail, issue 35). The colour swatches take
their colours from it too, a class a colour (``render.html.SWATCH_CSS``): each swatch writes its colour's name,
so a client that drops the block loses the paint, not the word. What must survive such a client is inline:
the picture's width; the rest is headings, lists, tables and bold in the reader's default style, and still
fits a phone (tests/e2e/test_mails_in_a_browser.py looks at it so).

``html_part(subject, text)`` is the HTML part of a mail that has only text (plain mails, digests): its
paragraphs as paragraphs, drawn blocks in a <pre> that wraps rather than grow wider than the screen.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from markupsafe import Markup

from .html import SWATCH_CSS, html_environment, render_board_html
from .text import TEMPLATE_DIR, _environment

EXAMPLE = "For example: "


_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_SPACE = re.compile(r"\s*([{};:,>])\s*|\s+")


@lru_cache(maxsize=1)
def style_sheet() -> str:
    """templates/mail/style.css without its comments and spaces (a fifth of its bytes), then the swatches'
    colours (``SWATCH_CSS``), a rule a line."""
    css = (TEMPLATE_DIR / "mail" / "style.css").read_text(encoding="utf-8")
    css = _SPACE.sub(lambda m: m.group(1) or " ", _COMMENT.sub("", css)).replace(";}", "}")
    # a rule a line: a mail's lines stay under its limit of 998 characters
    css = css.replace("only screen and(", "only screen and (").replace("}", "}\n").strip()
    return css + "\n" + SWATCH_CSS


_RULE_OR_BLOCK = re.compile(r"(@[^{]+\{)|([^{}@]+)\{([^{}]*)\}|\}")
_CLASS = re.compile(r"\.([\w-]+)")
_TAG = re.compile(r"^([a-z][a-z0-9]*)")
_CLASS_ATTRIBUTE = re.compile(r'class="([^"]*)"')
_OPENED_TAG = re.compile(r"<([a-z][a-z0-9]*)")


def used_style_sheet(css: str, body: str) -> str:
    """The rules of ``css`` that some element of ``body`` may take: a selector whose classes and element names all
    occur in ``body`` (an over-estimate that never drops a rule in use). A board mail uses about half the sheet:
    a Fifth Avenue mail has no Manhattan city and most mails no secret or supply to mark."""
    classes = frozenset(name for value in _CLASS_ATTRIBUTE.findall(body) for name in value.split())
    return _rules_for(css, classes, frozenset(_OPENED_TAG.findall(body)))


@lru_cache(maxsize=256)
def _rules_for(css: str, classes: frozenset[str], tags: frozenset[str]) -> str:
    """The rules of ``css`` for elements of these classes and names. Mails of one kind use the same few sets:
    a worker works this out once for each (it was a tenth of the CPU of rendering a mail)."""

    def applies(selector: str) -> bool:
        for compound in selector.replace(">", " ").split():
            tag = _TAG.match(compound)
            if tag and tag.group(1) not in tags or not set(_CLASS.findall(compound)) <= classes:
                return False
        return True

    kept: list[str] = []
    for block, selectors, declarations in _parsed(css):
        if block:
            kept.append(block.strip())
        elif selectors is None:  # the end of a block: dropped with the block when no rule of it is kept
            if kept and kept[-1].startswith("@"):
                kept.pop()
            else:
                kept.append("}")
        else:
            chosen = [s.strip() for s in selectors.split(",") if applies(s.strip())]
            if chosen:
                kept.append(",".join(chosen) + "{" + declarations + "}")
    return "\n".join(kept).replace("{\n", "{")


@lru_cache(maxsize=8)
def _parsed(css: str) -> tuple[tuple[str | None, str | None, str | None], ...]:
    return tuple(m.groups() for m in _RULE_OR_BLOCK.finditer(css))


_STYLE_SHEET_HERE = Markup("/*the style sheet*/")


def _with_style_sheet(html: str) -> str:
    """``html`` rendered with ``_STYLE_SHEET_HERE`` for its style sheet, with the rules its elements use there."""
    return html.replace(_STYLE_SHEET_HERE, used_style_sheet(style_sheet(), html), 1)


_BETWEEN_TAGS = re.compile(r">\n+<")


def tidy(html: str) -> str:
    """``html`` without the template's blank lines between tags (a line break stays: clients and the mail's
    line length limit both want short lines)."""
    return _BETWEEN_TAGS.sub(">\n<", html).strip() + "\n"


def render_notice(subject: str, context: dict[str, Any]) -> tuple[str, str]:
    """(text, html) of a game mail. ``context`` is ``services.mail_out.notices.Mailer.mail``'s: the HTML part draws its
    board from ``kind``, ``view`` and ``players``; without them it falls back to ``html_part`` of the text."""
    text = _environment().get_template("mail/notice.txt.j2").render(context)
    lines = [line.rstrip() for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    text = "\n".join(lines) + "\n"
    if not all(key in context for key in ("kind", "view", "players")):
        return text, html_part(subject, text)
    return text, notice_html(subject, context)


def notice_html(subject: str, context: dict[str, Any]) -> str:
    """The HTML part of a game mail from the same context as its text part."""
    decision = context.get("decision")
    board = render_board_html(context["kind"], context["view"], players=context["players"],
                              bids_above=context.get("bids_above", False))
    html = html_environment().get_template("mail/notice.html.j2").render(
        subject=subject,
        css=_STYLE_SHEET_HERE,
        preview=context["preview"],
        happened=context.get("happened_items") or [_item(block) for block in context.get("happened") or []],
        below=context.get("below_items") or [_item(block) for block in context.get("below") or []],
        earlier=context.get("earlier", 0),
        note=[_unwrap(paragraph) for paragraph in context.get("note") or []],
        decision=_decision(decision) if decision else None,
        answer=context.get("answer"),
        waiting=_unwrap(context.get("waiting") or ""),
        over=context.get("over", False),
        board=board,
        picture=context.get("picture"),
        extra=_guide(context.get("extra") or []),
        secret=context.get("secret") or "",
        taps=context.get("taps") or [],
        taps_more=context.get("taps_more", 0),
    )
    return tidy(_with_style_sheet(html))


# =========================================================================== the text's pieces, unwrapped


def _unwrap(text: str) -> str:
    """A paragraph filled to 72 columns, as one line again (HTML fills it to the screen)."""
    return " ".join(text.split())


def _item(block: list[str]) -> dict[str, Any]:
    """One thing that happened, as ``services.mail_out.notices`` wraps it ("* headline", then "  - detail" each), as
    {headline, details}."""
    head, *details = block
    return {"headline": _unwrap(head.strip().removeprefix("* ")),
            "details": [_unwrap(d.strip().removeprefix("- ")) for d in details], "speaker": "", "said": []}


def _decision(decision: dict[str, Any]) -> dict[str, Any]:
    """The decision's sentence in bold, its example (the command after "For example: ") as a command."""
    sentence = _unwrap(decision["sentence"])
    example = ""
    if EXAMPLE in sentence:
        sentence, example = (part.strip() for part in sentence.rsplit(EXAMPLE, 1))
    return {"number": decision["number"], "text": sentence, "example": example,
            "notes": [_unwrap(n) for n in decision.get("notes", [])], "shapes": list(decision["shapes"])}


_GUIDE_ROW = re.compile(r"^  (\S.*?) {2,}(\S.*)$")


def _guide(lines: list[str]) -> list[dict[str, Any]]:
    """The short help of a game's first mail (``help_text.first_mail_help``): rows "  EXAMPLE  summary" become
    a command and its words; a row's continuation ("    ...") joins it; other lines are paragraphs."""
    result: list[dict[str, Any]] = []
    for line in lines:
        row = _GUIDE_ROW.match(line)
        if line.startswith("    ") and result:
            result[-1]["text"] += " " + line.strip()
        elif row:
            result.append({"command": row.group(1), "text": row.group(2)})
        elif line.startswith("  "):
            result.append({"command": "", "text": line.strip()})
        else:
            result.append({"text": line.strip()})
    return result


# =========================================================================== mails that are only text


_RULE = re.compile(r"^={3,} (.+?) =+$")
_DRAWN = re.compile(r"[+|]-|-[+|]|\|\s|\S {2,}\S")  # box borders, or columns lined up with spaces


def html_part(subject: str, text: str) -> str:
    """The HTML part of a mail that is only text (a plain mail, a digest): each paragraph of ``text`` as a
    paragraph, a "==== title ====" rule as a heading, lists as lines, and a drawn block (a board, a table) in
    a <pre> that wraps its lines rather than grow wider than a phone."""
    blocks: list[dict[str, Any]] = []
    for paragraph in re.split(r"\n\s*\n", text.strip("\n")):
        lines = paragraph.split("\n")
        rule = _RULE.match(lines[0])
        if rule:
            blocks.append({"kind": "heading", "text": rule.group(1)})
            lines = lines[1:]
        if not lines:
            continue
        if any(_DRAWN.search(line) for line in lines):
            blocks.append({"kind": "pre", "text": "\n".join(lines)})
        elif len(lines) > 1 and any(re.match(r"^\s*[-*] ", line) for line in lines):
            logical: list[str] = []
            for line in lines:
                if logical and not re.match(r"^\s*[-*] ", line) and line.startswith(" "):
                    logical[-1] += " " + line.strip()
                else:
                    logical.append(line.strip())
            blocks.append({"kind": "lines", "lines": logical})
        else:
            blocks.append({"kind": "paragraph", "text": _unwrap(" ".join(lines))})
    html = html_environment().get_template("mail/plain.html.j2").render(subject=subject, blocks=blocks,
                                                                                css=_STYLE_SHEET_HERE)
    return tidy(_with_style_sheet(html))


def choices_html(subject: str, head: str, links: list[dict[str, str]]) -> str:
    """The HTML part of a mail of choices (issue 44): ``head``, then ``links`` ({command, href}) to tap, as a game
    mail shows its answers (``services.mail_out.taps``)."""
    html = html_environment().get_template("mail/choices.html.j2").render(subject=subject, head=head, taps=links,
                                                                          css=_STYLE_SHEET_HERE)
    return tidy(_with_style_sheet(html))


__all__ = ["choices_html", "html_part", "notice_html", "render_notice", "style_sheet", "tidy", "used_style_sheet"]
