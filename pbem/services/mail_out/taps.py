"""The answers a game mail offers as links to tap (issue 44): which commands, and the ``mailto:`` URL of each.

A mail that asks a decision shows, under its first screen, the likely answers as links (``templates/mail/
notice.html.j2``). Each opens a new mail to the game's address with the game's tag for its subject,
the command, and the ``ref`` line naming this very mail (``pbem.mail.mailto``: what ties the
answer to the decision and proves the seat). Every legal command when there are at most ``MOST``; else, for a
bid, pass, the least raise and the standing bid up to the most the reader can bid (``bid up to N``, D48); for
other decisions ``CHOSEN`` of them, each kind of command in turn (by first word, in the engine's order) so that
every kind has a link; and a line saying how many others there are and where their forms are.

The game's address is not known where the mail is made (the sender knows it): the URL says ``ADDRESS_HERE``,
which ``adapters.outbox_sender`` writes over as it builds the mail. Hidden information stays hidden: a mail's
links hold only commands its reader may send now, written from their own hand, and a token of their own mail.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...games import get_game
from ...games.errors import CommandError
from ...mail.mailto import ADDRESS_HERE, mailto, ref_line
from ..common.game_info import GameInfo
from .delivery import has_auctions

MOST = 12  # links a mail shows at most: every legal command when there are no more
CHOSEN = 8  # links of a mail whose legal commands are more than MOST: a dozen cost 2.3 KB a mail (issue 44, point 5)


@dataclass(frozen=True)
class Taps:
    links: list[dict[str, str]]  # {"command", "href"}
    more: int  # legal commands not shown as links


def taps(info: GameInfo, seat: int, number: int, tag: str, token: str, secret: str = "") -> Taps:
    """The links of the mail to ``seat`` that asks decision ``number`` in the game of subject tag ``tag``;
    ``token`` names the mail (``mailto.ref_token``). The ``ref`` line proves the seat as a Reply does, so the
    seat's secret word (``secret``, "" for none) goes into a link only when the mail has no token to name."""
    commands, more = tap_commands(info, seat)
    tail = f"\n{ref_line(token)}" if token else (f"\nsecret {secret}" if secret else "")
    # A link's subject is the game's tag ('[Manhattan #4]'), as the thread's subject starts: the body's ``ref``
    # line ties the answer to its decision, and the whole subject (the players' names, up to 200 characters)
    # with a '(decision N)' in each of a dozen links would cost up to 2.6 KB a mail (issue 44, point 5).
    link_subject = tag if token else f"{tag} (decision {number})"
    links = [{"command": command, "href": mailto(ADDRESS_HERE, link_subject, command + tail)} for command in commands]
    return Taps(links, more)


def tap_commands(info: GameInfo, seat: int) -> tuple[list[str], int]:
    """The commands to show as links to ``seat``, who must decide now, and how many legal ones are not shown."""
    state = info.state
    legal = state.legal_commands()
    if len(legal) <= MOST:
        return list(legal), 0
    reach = get_game(info.kind).bid_reach(state) if has_auctions(info.kind) else None
    chosen = _bids(state, seat, legal, reach) if reach is not None else _each_kind_in_turn(legal, CHOSEN)
    shown = set(chosen)
    return chosen, sum(1 for command in legal if command not in shown)


def _total(command: str) -> int:
    return sum(int(word) for word in command.split() if word.isdigit())


def _bids(state: Any, seat: int, legal: list[str], reach: dict[str, Any]) -> list[str]:
    """Pass, the least raise (the fewest cards of the least total that beats the high bid), and the standing bid
    up to the most the reader's cards can bid (checked by the engine): bid for me while my cards can. A bid mail
    was the largest mail before the links (44.4 KB as sent, 0.6 KB under the 45 KB of issue 44): no more."""
    chosen = [command for command in legal if command == "pass"]
    bids = sorted((c for c in legal if c.split()[0] == "bid"), key=lambda c: (_total(c), len(c.split())))
    if not bids:
        return chosen
    least = _total(bids[0])
    chosen.append(bids[0])
    most = int(reach["most"])
    if most > least:
        command = f"bid up to {most}"
        try:
            state.parse(seat, command)
            chosen.append(command)
        except CommandError:
            pass
    return chosen


def _each_kind_in_turn(commands: list[str], room: int) -> list[str]:
    """Up to ``room`` of ``commands``: the first of each first word, then the second of each, and so on."""
    kinds: dict[str, list[str]] = {}
    for command in commands:
        kinds.setdefault(command.split()[0], []).append(command)
    chosen: list[str] = []
    depth = 0
    while len(chosen) < room and any(depth < len(group) for group in kinds.values()):
        chosen += [group[depth] for group in kinds.values() if depth < len(group)][: room - len(chosen)]
        depth += 1
    return chosen


__all__ = ["CHOSEN", "MOST", "Taps", "tap_commands", "taps"]
