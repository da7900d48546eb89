"""The block that answers a game mail's question on its first screen, right under the decision.

A mail that asks for a bid shows the bids so far, the high bid, and the reader's own cards that can bid with
the most their bid can come to; the mail that ends a game shows the winner and the final scores. Other mails
need no block: their decision, deadline and example already open the mail (``notices.Mailer.mail``). The board
further down says all of it again, in full.

One block for both parts of the mail (``templates/mail/notice.txt.j2`` and ``notice.html.j2``): a heading,
rows of (name, number, words), and sentences; ``text`` holds the rows laid out for the text part, so both
parts say the same (tests/integration/test_game_mails.py, ``same_content``). Hidden information stays hidden:
the cards are the reader's, and only the reader who must bid gets them.
"""

from __future__ import annotations

from typing import Any

from ...games import get_game
from ...render.text import bid_text, bid_total, high_bidder, wrap
from ...words import listing
from ..common.game_info import GameInfo
from .chronicle import credited, player_label
from .delivery import has_auctions

NAME_WIDTH = 20  # a longer name gets a line of its own in the text part's rows ("Bob, then robot" fits)


def answer_block(info: GameInfo, seat: int, asked: bool) -> dict[str, Any] | None:
    """The block for the mail to ``seat`` (``asked``: the mail asks that seat for a decision), or None."""
    state = info.state
    if state.is_terminal():
        return _final_scores(info, seat)
    if asked and has_auctions(info.kind):
        reach = get_game(info.kind).bid_reach(state)
        if reach is not None:
            return _auction(info, seat, state.view(seat)["frames"][-1], reach)
    return None


def _name(info: GameInfo, owner: int) -> str:
    return player_label(info, owner) if owner < len(info.players) else "the robot"


def _auction(info: GameInfo, seat: int, frame: dict[str, Any], reach: dict[str, Any]) -> dict[str, Any]:
    place = info.state.board.name(frame["site"])
    holder, high = high_bidder(frame)
    rows = []
    for bidder in frame["order"]:
        bid = frame["bids"].get(str(bidder))
        notes = [*(["high bid"] if bidder == holder else []), *(["outbid, out"] if bid and bidder in frame["out"] else []),
                 *(["you, to bid"] if bidder == seat else [])]
        words = bid_text(bid) if bid else ("passed" if bidder in frame["out"] else "no bid yet")
        rows.append({"name": _name(info, bidder), "number": str(bid_total(bid)) if bid else "",
                     "words": words + (f" ({', '.join(notes)})" if notes else "")})
    cards = ", ".join(f"{color} {' '.join(str(v) for v in values)}" for color, values in reach["cards"])
    if not cards:
        mine = "You hold no card that can bid: you can only pass."
    elif reach["most"] <= high:
        mine = f"Your cards that can bid: {cards}; at most {reach['most']}, which does not beat {high}: you can only pass."
    else:
        mine = f"Your cards that can bid: {cards}; the most you can bid: {reach['most']}."
    lines = [f"High bid: {high} by {_name(info, holder)}." if holder is not None else "High bid: none yet.", mine]
    standing = orders_in_force(info, seat)
    if standing:
        lines.append(standing)
    return _block(f"Bids for {place} so far", rows, lines, mine=mine)


def orders_in_force(info: GameInfo, seat: int) -> str:
    """The reader's own orders for the auctions of the set (their view holds only theirs), in one line."""
    board, parts = info.state.board, []
    for site, order in (info.state.view(seat).get("orders") or {}).items():
        said = []
        if "limit" in order:
            said.append(f"bid up to {order['limit']}" + (f" {order['color']}" if order.get("color") else ""))
        if "build" in order:
            said.append(f"build {order['build']}" if order["build"] != "stop" else "stop")
        parts.append(f"{board.name(site)}: {', '.join(said)}")
    return f"Your orders in force: {'; '.join(parts)}." if parts else ""


def _final_scores(info: GameInfo, seat: int) -> dict[str, Any] | None:
    result = info.state.result or {}
    scores, winners = result.get("scores"), result.get("winners") or []
    if not scores:
        return None
    rows = [{"name": credited(info, s), "number": str(score),
             "words": ", ".join([*(["winner"] if s in winners else []), *(["you"] if s == seat else [])])}
            for s, score in enumerate(scores)]
    best = max(scores)
    names = listing([credited(info, w) for w in winners])
    if len(winners) > 1:
        said = f"{names} share the win with {best} points."
    else:
        tied = [s for s, score in enumerate(scores) if score == best]
        said = f"{names} wins with {best} points" + (
            f" ({listing([credited(info, s) for s in tied])} tied; the final scoring below says how the tie "
            "was broken)." if len(tied) > 1 else ".")
    return _block("Final scores", rows, [said])


def _block(heading: str, rows: list[dict[str, str]], lines: list[str], mine: str = "") -> dict[str, Any]:
    """The block with its text part: "Heading:", a row a line (the name, the number, the words), sentences."""
    width = min(NAME_WIDTH, max(len(row["name"]) for row in rows))
    text = [f"{heading}:"]
    for row in rows:
        if len(row["name"]) > width:
            text.append(f"  {row['name']}")
            text.append(wrap(f"{'':{width}} {row['number']:>3}  {row['words']}", indent="  ", hang=" " * (width + 9)))
        else:
            text.append(wrap(f"{row['name']:<{width}} {row['number']:>3}  {row['words']}", indent="  ",
                             hang=" " * (width + 9)))
    text += [wrap(line, indent="  ", hang="  ") for line in lines]
    return {"heading": heading, "rows": rows, "lines": lines, "mine": mine, "text": text}


__all__ = ["answer_block", "orders_in_force"]
