"""Fifth Avenue commands: one small value type per decision, and their text form.

``str(action)`` is the canonical command line; ``parse_command`` reads any
accepted spelling back into the same value. Parsing only checks form; whether a
command is allowed now is decided by :mod:`.rules`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import InvalidCommandError
from ..vocabulary import Vocabulary, did_you_mean, did_you_mean_command
from .board import BLACK, CENTRAL_PARK, VALUES, Board

Counts = tuple[int, int, int]  # how many cards of value 4, 5 and 6
COMMAND_WORDS = frozenset(
    {"place", "a", "b", "c", "d", "action", "cards", "card", "take", "move", "bid", "raise", "add", "pass", "build", "stop"}
)


def counts_values(counts: Counts) -> list[int]:
    return [v for v, k in zip(VALUES, counts) for _ in range(k)]


@dataclass(frozen=True)
class Place:
    """Initial skyscraper placement."""

    district: str
    color: str

    def __str__(self) -> str:
        return f"place {self.district} {self.color}"


@dataclass(frozen=True)
class TakeSkyscrapers:
    """Action A."""

    def __str__(self) -> str:
        return "A"


@dataclass(frozen=True)
class PlaceBusiness:
    """Action B."""

    business: str
    district: str
    plot: str

    def __str__(self) -> str:
        return f"B {self.business} {self.district} {self.plot}"


@dataclass(frozen=True)
class BlackCardAndMove:
    """Action C: draw a black card, then move a commissioner."""

    commissioner: str
    destination: str

    def __str__(self) -> str:
        return f"C {self.commissioner} {self.destination}"


@dataclass(frozen=True)
class ScoreDistrict:
    """Action D."""

    district: str

    def __str__(self) -> str:
        return f"D {self.district}"


@dataclass(frozen=True)
class TakeCards:
    """Second phase of A, B and C: colored cards of different colors."""

    colors: tuple[str, ...]

    def __str__(self) -> str:
        return "cards " + " ".join(self.colors)


@dataclass(frozen=True)
class Move:
    """Third phase: move a commissioner."""

    commissioner: str
    destination: str

    def __str__(self) -> str:
        return f"move {self.commissioner} {self.destination}"


@dataclass(frozen=True)
class Bid:
    """Cards added to the bidder's cards on the table.

    ``color`` is the colored cards' color, or None when only black cards are
    added.
    """

    color: str | None
    colored: Counts
    black: Counts

    def __str__(self) -> str:
        parts = ["bid"]
        if self.color is not None and sum(self.colored):
            parts.append(self.color)
            parts.extend(str(v) for v in counts_values(self.colored))
        if sum(self.black):
            parts.append(BLACK)
            parts.extend(str(v) for v in counts_values(self.black))
        return " ".join(parts)

    @property
    def total(self) -> int:
        return sum(v * k for v, k in zip(VALUES, self.colored)) + sum(v * k for v, k in zip(VALUES, self.black))


@dataclass(frozen=True)
class StandingBid:
    """An order for an auction of the set that runs (``site``; None: the one running now): whenever it is the
    player's turn there, bid the least that beats the high bid while their whole bid stays at most ``limit``,
    else pass (:mod:`.orders`); a limit of 0 passes. ``color``: the colour to open with."""

    limit: int
    color: str | None = None
    site: str | None = None
    secret = True  # its limit is for its player alone: the others see the bids it makes (services.table.games)

    def __str__(self) -> str:
        return f"bid {self.site + ' ' if self.site else ''}up to {self.limit}" + (f" {self.color}" if self.color else "")

    @property
    def order_key(self) -> tuple[str, str | None]:
        """What it decides and where: two orders of one mail with one key contradict each other."""
        return ("bid", self.site)


@dataclass(frozen=True)
class CancelStandingBid:
    """The player's orders for an auction of the set end (its standing bid and build); they are asked there."""

    site: str | None = None
    secret = True

    def __str__(self) -> str:
        return f"bid {self.site + ' ' if self.site else ''}cancel"

    @property
    def order_key(self) -> tuple[str, str | None]:
        return ("bid", self.site)


@dataclass(frozen=True)
class BuildOrder:
    """What the player builds if they win the auction for ``site`` (None: the one running now): ``count``
    skyscrapers, None for as many as they may, or a building stop (``stop``) where one is allowed."""

    site: str | None
    count: int | None = None
    stop: bool = False
    secret = True

    def __str__(self) -> str:
        where = f" {self.site}" if self.site else ""
        if self.stop:
            return f"stop{where}"
        return f"build{where} {'max' if self.count is None else self.count}"

    @property
    def order_key(self) -> tuple[str, str | None]:
        return ("build", self.site)


@dataclass(frozen=True)
class PassRest:
    """A standing pass in every auction of the set that runs for which the player has no standing bid yet (the
    issue's 'pass for the rest'): read at its line, so an order of a later line replaces it there."""

    secret = True

    def __str__(self) -> str:
        return "rest: pass"

    @property
    def order_key(self) -> tuple[str, str | None]:
        return ("bid", "rest")


@dataclass(frozen=True)
class SetMails:
    """'orders on': a mail of its own at the start of every set of auctions, the game's first included, to
    answer the whole set with orders at once; 'orders off': none (D48). A player's own choice, in turn or not."""

    on: bool
    secret = True

    def __str__(self) -> str:
        return f"orders {'on' if self.on else 'off'}"


@dataclass(frozen=True)
class Pass:
    def __str__(self) -> str:
        return "pass"


@dataclass(frozen=True)
class Build:
    """After winning an auction: build this many skyscrapers (0 allowed)."""

    count: int

    def __str__(self) -> str:
        return f"build {self.count}"


@dataclass(frozen=True)
class Stop:
    """After winning an auction in a full district: declare a building stop."""

    def __str__(self) -> str:
        return "stop"


Action = (
    Place | TakeSkyscrapers | PlaceBusiness | BlackCardAndMove | ScoreDistrict | TakeCards | Move | Bid | Pass | Build | Stop
    | StandingBid | CancelStandingBid | BuildOrder | PassRest | SetMails
)


@dataclass(frozen=True)
class PartialMove:
    """A move whose commissioner or destination was left out.

    The rules fill the gap when only one move fits, or raise an ambiguity.
    """

    kind: str  # "move" or "C"
    commissioner: str | None
    destination: str | None


# --------------------------------------------------------------------------- parsing

HELP = (
    "Commands: place <district> <color>; A; B <business> <district> <color>; C <commissioner> <destination>; "
    "D <district>; cards <color> <color>; move <commissioner> <destination>; bid <color> <value>... [black <value>...]; "
    "bid up to <total> [<color>]; bid cancel; pass; build <n>; stop; <district>: up to <total> [<color>] (or pass, "
    "build max, build <n>, stop, cancel); orders on|off"
)

_SPLIT = re.compile(r"[\s,+:]+")  # ':' too: '42W: up to 12 gray' is the order 'bid 42W up to 12 gray'
ORDER_WORDS = frozenset({"up", "pass", "cancel", "build", "stop", "bid"})  # what may follow '42W:' in an order
REST = ("rest", "the rest", "others", "the others")  # 'rest: pass': every auction of the set not ordered yet


def split_commands(line: str) -> list[str]:
    """Several commands may share a line, separated by ';'."""
    return [part.strip() for part in line.split(";") if part.strip()]


def _tokens(text: str) -> list[str]:
    text = text.strip().lower().replace(".", " ")
    return [t for t in _SPLIT.split(text) if t]


class _Reader:
    def __init__(self, board: Board, text: str) -> None:
        self.board = board
        self.text = text
        self.toks = _tokens(text)
        self.i = 0

    def error(self, why: str) -> InvalidCommandError:
        return InvalidCommandError(f"Cannot read '{self.text.strip()}': {why}. {HELP}")

    def more(self) -> bool:
        return self.i < len(self.toks)

    def peek(self) -> str | None:
        return self.toks[self.i] if self.more() else None

    def next(self, what: str) -> str:
        if not self.more():
            raise self.error(f"{what} is missing")
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def _longest(self, table: dict[str, str], max_words: int = 4) -> str | None:
        for n in range(min(max_words, len(self.toks) - self.i), 0, -1):
            key = " ".join(self.toks[self.i : self.i + n])
            if key in table:
                self.i += n
                return table[key]
        return None

    def place(self, what: str = "a district") -> str:
        if not self.more():
            raise self.error(f"{what} is missing")
        code = self._longest(_place_table(self.board))
        if code is None:
            raise self.error(
                f"'{self.peek()}' is not {what}{self.guess(_place_words(self.board))} (use a code: CH, "
                + ", ".join(self.board.district_codes) + ", CP)"
            )
        return code

    def guess(self, words: dict[str, str]) -> str:
        """' (did you mean brown?)' when the next token is a small typo of one of ``words`` (word -> its name)."""
        return did_you_mean(self.peek() or "", words, spell=words.get)

    def at_place(self) -> bool:
        """Whether a place (a district, CH or CP) comes next; reads nothing."""
        start = self.i
        found = self._longest(_place_table(self.board)) is not None
        self.i = start
        return found

    def plot(self) -> str:
        if not self.more():
            raise self.error("a plot color is missing")
        table = {c: c for c in self.board.plot_colors}
        table.update(self.board.color_aliases)
        if self.board.sixth_plot:
            for alias in self.board.sixth_plot_aliases:
                table[alias] = self.board.sixth_plot
        color = self._longest(table, 2)
        if color is None:
            raise self.error(f"'{self.peek()}' is not a plot color{self.guess(table)} "
                             f"({', '.join(self.board.plot_colors)})")
        return color

    def color(self) -> str | None:
        """A card color, black included; None if the next token is not a color."""
        tok = self.peek()
        if tok is None:
            return None
        if tok == BLACK:
            self.i += 1
            return BLACK
        color = self.board.color_aliases.get(tok, tok)
        if color in self.board.plot_colors:
            self.i += 1
            return color
        return None

    def business(self) -> str:
        table = {b: b for b in self.board.business_types}
        table.update(self.board.business_aliases)
        table.update({b + "s": b for b in self.board.business_types})
        if not self.more():
            raise self.error("a business is missing")
        business = self._longest(table, 2)
        if business is None:
            raise self.error(f"'{self.peek()}' is not a business{self.guess(table)} "
                             f"({', '.join(self.board.business_types)})")
        return business

    def commissioner(self, required: bool) -> str | None:
        tok = self.peek()
        if tok in self.board.commissioners:
            self.i += 1
            return tok
        if required:
            raise self.error(f"a commissioner ({' or '.join(self.board.commissioners)}) is missing")
        return None

    def done(self) -> None:
        if self.more():
            raise self.error(f"unexpected '{' '.join(self.toks[self.i:])}' at the end")


_PLACE_TABLES: dict[bool, dict[str, str]] = {}


def _card_colors(board: Board) -> dict[str, str]:
    """The colored cards' colors and their aliases, each -> its color."""
    return {**{c: c for c in board.plot_colors}, **board.color_aliases}


def _place_words(board: Board) -> dict[str, str]:
    """The one-word names of places (codes, aliases) -> the place's code, for a typo's suggestion."""
    return {alias: code for alias, code in _place_table(board).items() if " " not in alias}


def vocabulary(boards: tuple[Board, ...]) -> Vocabulary:
    """The words of Fifth Avenue's commands on these boards (the front and the back side), for the mail reader."""
    words: set[str] = {BLACK, "up", "cancel", "max"}  # bid up to 12; bid cancel; build 42W max
    for board in boards:
        words.update(_card_colors(board), board.commissioners, *(name.split() for name in _place_table(board)))
        for business in (*board.business_types, *board.business_aliases):
            words.update(_tokens(business), [] if " " in business else [business + "s"])
        for alias in board.sixth_plot_aliases:
            words.update(_tokens(alias))
    labels = {name for board in boards for name, code in _place_table(board).items()  # '42W:', 'Times Square:'
              if code in (*board.district_codes, CENTRAL_PARK)} | set(REST)
    return Vocabulary(commands=COMMAND_WORDS, words=frozenset(words), fillers=frozenset({"a", "b", "c", "d", "building", "to", "in"}),
                      alone=frozenset({"a", "d", "pass", "stop", "action"}),  # "action" as in "action A"
                      labels=frozenset(labels))


def _place_table(board: Board) -> dict[str, str]:
    table = _PLACE_TABLES.get(board.back_side)
    if table is None:
        table = {" ".join(_tokens(alias)): code for alias, code in board.place_aliases.items()}
        _PLACE_TABLES[board.back_side] = table
    return table


def parse_command(board: Board, text: str) -> Action | PartialMove:
    """Read one command. Raises InvalidCommandError when the text is not a command."""
    r = _Reader(board, text)
    if not r.more():
        raise r.error("the command is empty")
    if r.peek() not in COMMAND_WORDS and r.peek() not in REST and " ".join(r.toks[:2]) not in REST and (r.at_place() or any(
            tok in ORDER_WORDS for tok in r.toks[1:5])):  # '42W: up to 12 gray; TS: pass' (issue 43); '42X: pass'
        # names no place: the mail reader took '42X:' for a mistyped label, and the order is refused, not a pass
        return _parse_labelled_order(r)
    if " ".join(r.toks[:2]) in REST or r.peek() in REST:  # 'rest: pass'
        r.i = 2 if " ".join(r.toks[:2]) in REST else 1
        if r.peek() != "pass":
            raise r.error("for the rest of the set's auctions the order is 'rest: pass'")
        r.i += 1
        r.done()
        return PassRest()
    word = r.next("a command")
    if word == "orders":  # 'orders on|off' (D48): read as a line of its own by the mail reader, like a setting
        value = r.next("'on' or 'off'")
        if value not in ("on", "off"):
            raise r.error(f"'{value}' is neither 'on' nor 'off': 'orders on' mails you at every set's start")
        r.done()
        return SetMails(value == "on")
    if word == "action":
        word = r.next("the action letter")
    if word == "place":
        district = r.place()
        color = r.plot()
        r.done()
        return Place(district, color)
    if word == "a":
        r.done()
        return TakeSkyscrapers()
    if word == "b":
        business = r.business()
        district = r.place()
        plot = r.plot()
        r.done()
        return PlaceBusiness(business, district, plot)
    if word in ("c", "move"):
        commissioner = r.commissioner(required=False)
        if commissioner is None and r.more() and not r.at_place():
            who = " or ".join(board.commissioners)
            if len(r.toks) - r.i > 1:  # 'move whte 34E': a word where the commissioner goes
                raise r.error(f"'{r.peek()}' is not a commissioner{r.guess({c: c for c in board.commissioners})} "
                              f"(the commissioners are {' and '.join(board.commissioners)})")
            raise r.error(f"'{r.peek()}' is neither a commissioner ({who}) nor a destination (CH, "
                          + ", ".join(board.district_codes) + ", CP)")
        if r.peek() == "to":  # 'move white to 42E' reads naturally
            r.i += 1
        destination = r.place("a destination") if r.more() else None
        r.done()
        if commissioner is None or destination is None:
            if commissioner is None and destination is None:
                raise r.error("say which commissioner moves where")
            return PartialMove("C" if word == "c" else "move", commissioner, destination)
        return BlackCardAndMove(commissioner, destination) if word == "c" else Move(commissioner, destination)
    if word == "d":
        if not r.more():
            return PartialMove("D", None, None)
        district = r.place()
        r.done()
        return ScoreDistrict(district)
    if word in ("cards", "card", "take"):
        colors = []
        while r.more():
            color = r.color()
            if color is None or color == BLACK:
                word = r.peek() if color is None else BLACK
                raise r.error(f"'{word}' is not a colored card stack{r.guess(_card_colors(board)) if color is None else ''}")
            colors.append(color)
        if not colors:
            raise r.error("name the colors of the two cards you take")
        return TakeCards(tuple(colors))
    if word == "bid" and (r.peek() in ("up", "cancel") or _names_a_place(r)):
        return _parse_standing_bid(r)
    if word in ("bid", "raise", "add"):
        return _parse_bid(r)
    if word == "pass":
        r.done()
        return Pass()
    if word == "build":
        return _parse_build(r)
    if word == "stop":
        if r.peek() == "building":  # "stop building" reads naturally too
            r.i += 1
        site = _order_site(r)
        r.done()
        return Stop() if site is None else BuildOrder(site, stop=True)
    raise r.error(f"'{word}' is not a command{did_you_mean_command(word, COMMAND_WORDS)}")


def _names_a_place(r: _Reader) -> bool:
    """Whether a place comes next and is not a card colour (no colour names a place); reads nothing."""
    return r.more() and r.peek() not in _card_colors(r.board) and r.peek() != BLACK and r.at_place()


def _order_site(r: _Reader) -> str | None:
    """The auction an order names ('bid 42W up to 12'), or None: the one running."""
    if r.peek() not in ("up", "cancel", "max") and not (r.peek() or "").isdigit() and _names_a_place(r):
        return r.place("an auction's district or CP")
    return None


def _parse_labelled_order(r: _Reader) -> StandingBid | CancelStandingBid | BuildOrder:
    """An order written after the auction it is for: '42W: up to 12 gray', 'TS: pass', 'CP: cancel',
    '42W: build max', '42W: build 2', '42W: stop' (the ':' may be left out)."""
    site = r.place("an auction's district or CP")
    word = r.peek()
    if word not in ORDER_WORDS:
        raise r.error(f"after '{site}:' write an order for its auction: 'up to <total> [<color>]', 'pass', "
                      "'cancel', 'build max', 'build <n>' or 'stop'" + (f", not '{word}'" if word else ""))
    r.i += 1
    if word == "pass":
        r.done()
        return StandingBid(0, None, site)  # a standing pass: 0 bids nothing there
    if word == "stop":
        if r.peek() == "building":
            r.i += 1
        r.done()
        return BuildOrder(site, stop=True)
    if word == "build":
        tok = r.next("the number of skyscrapers (or 'max')")
        if tok != "max" and not tok.isdigit():
            raise r.error(f"'{tok}' is not a number (or 'max')")
        r.done()
        return BuildOrder(site, None if tok == "max" else int(tok[:3]))
    if word == "bid":  # '42W: bid up to 12' says 'bid' twice over; read it as meant
        word = r.next("'up to'")
    if word == "cancel":
        r.done()
        return CancelStandingBid(site)
    if word != "up":
        raise r.error(f"write a standing bid as '{site}: up to <total> [<color>]', for example '{site}: up to 12 gray'")
    r.i -= 1
    return _parse_standing_bid(r, site)


def _parse_standing_bid(r: _Reader, site: str | None = None) -> StandingBid | CancelStandingBid:
    site = site or _order_site(r)
    if r.next("'up to'") == "cancel":
        r.done()
        return CancelStandingBid(site)
    if r.peek() != "to":
        raise r.error("write a standing bid as 'bid [<district>] up to <total> [<color>]', for example "
                      "'bid up to 12 gray' or 'bid 42W up to 12 gray'")
    r.i += 1
    tok = r.next("the most your bid may come to")
    if not tok.isdigit() or len(tok) > 4:
        raise r.error(f"'{tok[:8]}' is not a total from 0 to 9999 (0 passes; 'bid cancel' ends a standing bid)")
    if r.peek() == "in":  # 'bid up to 12 in gray' reads naturally
        r.i += 1
    color = r.color() if r.more() else None
    if r.more() or color == BLACK:
        word = r.peek() if r.more() else BLACK
        raise r.error(f"'{word}' is not a colored card{r.guess(_card_colors(r.board))}: a bid opens with a "
                      "colored card")
    return StandingBid(int(tok), color, site)


def _parse_build(r: _Reader) -> Build | BuildOrder:
    site = _order_site(r)
    tok = r.next("the number of skyscrapers")
    if tok != "max" and not tok.isdigit():
        raise r.error(f"'{tok}' is not a number (or 'max')")
    r.done()
    if site is None and tok != "max":
        return Build(int(tok))
    return BuildOrder(site, None if tok == "max" else int(tok[:3]))


def _parse_bid(r: _Reader) -> Bid:
    colored_color: str | None = None
    colored = [0, 0, 0]
    black = [0, 0, 0]
    current: str | None = None
    if not r.more():
        raise r.error("say which cards you bid, for example 'bid gray 4 4 black 5'")
    while r.more():
        color = r.color()
        if color is not None:
            if color != BLACK:
                if colored_color is not None and colored_color != color:
                    raise r.error("a bid uses one color (and black cards)")
                colored_color = color
            current = color
            continue
        guess = r.guess({**_card_colors(r.board), BLACK: BLACK})
        tok = r.next("a card value")
        if not tok.isdigit() or int(tok) not in VALUES:
            raise r.error(f"'{tok}' is neither a color{guess} nor a card value (4, 5 or 6)")
        if current is None:
            raise r.error("name the color before the values, for example 'bid gray 4 4 black 5'")
        target = black if current == BLACK else colored
        target[int(tok) - VALUES[0]] += 1
    if sum(colored) == 0 and sum(black) == 0:
        raise r.error("no card values given")
    if colored_color is not None and sum(colored) == 0:
        raise r.error(f"no {colored_color} card values given")
    return Bid(colored_color if sum(colored) else None, tuple(colored), tuple(black))  # type: ignore[arg-type]
