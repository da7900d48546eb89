"""Telling a command from prose in a player's line (docs/rules.md D42), and a subject's own words."""

from __future__ import annotations

import pytest

from pbem.games.errors import InvalidCommandError
from pbem.games.fifth_avenue import VOCABULARY as FIFTH_AVENUE
from pbem.games.fifth_avenue import new_game as new_fifth_avenue
from pbem.games.manhattan import VOCABULARY as MANHATTAN
from pbem.games.vocabulary import near
from pbem.mail.commands import own_subject, read_line

# Sign-offs and chatter that start with a command word of one of the games, in several languages.
PROSE = [
    "Take care,", "Take it easy", "take care of yourselves!", "Pass my regards to everyone", "Pass the salt",
    "Move fast and build things", "Move on, nothing to see", "Stop by anytime", "Stop sending me these",
    "A bientôt,", "A plus tard", "A la prochaine !", "A très vite", "A presto,", "A domani", "A dopo",
    "A pronto,", "A la orden", "A gente se vê", "A quick question: can I bid twice?", "Add me on Signal",
    "Raise a glass!", "Place your bets, folks", "Cards on the table:", "Build something great", "C u soon",
    "C ya,", "B careful out there", "D'accord, merci", "Bid farewell to 34th Street!", "Bid adieu", "Play nice, everyone",
    "Play on, Bob!", "Play well!", "Choose wisely,", "I'd rather not pass", "Why did Bob bid brown 4 6?",
    "pass thanks", "Pass a message to Cy", "B.", "C.", "Move on", "B, C and D: see you",
    "CP: I think I'll pass", "TS: nice move", "42W is mine", "Rest assured, I pass on this one",
    "The rest: see you Monday",
]

# (line, the commands read from it, what is left of it)
COMMANDS = [
    ("bid brown 4 6", ["bid brown 4 6"], []),
    ("Hi all, bid brown 4 6", ["bid brown 4 6"], ["Hi all"]),
    ("bid brown 4 6 thanks!", ["bid brown 4 6"], ["thanks!"]),
    ("Ok. bid brown 4 6. Good luck everyone", ["bid brown 4 6"], ["Ok.", "Good luck everyone"]),
    ("bid brown 4 6 -- Ann", ["bid brown 4 6"], ["Ann"]),
    ("pass", ["pass"], []),
    ("Pass.", ["Pass"], []),
    ("PASS!!!", ["PASS"], []),
    ("Pass, sorry!", ["Pass"], ["sorry!"]),
    ("Sorry, pass - no cards", ["pass"], ["Sorry", "no cards"]),
    ("Great game! Pass.", ["Pass"], ["Great game!"]),
    ("A; cards orange gray", ["A", "cards orange gray"], []),
    ("cards orange gray, move white 34W", ["cards orange gray", "move white 34W"], []),
    ("Cards: orange gray", ["Cards orange gray"], []),
    ("bid: brown 4 6", ["bid brown 4 6"], []),
    ("move white to 42E please", ["move white to 42E"], ["please"]),
    ("C white 34th st. west", ["C white 34th st. west"], []),
    ("bid brown 4 6. Green is nice", ["bid brown 4 6"], ["Green is nice"]),
    ("bid gray 4+5 black 6", ["bid gray 4+5 black 6"], []),
    ("bid gray 4,5", ["bid gray 4,5"], []),
    ("stop building", ["stop building"], []),
    ("action A", ["action A"], []),
    ("A.", ["A"], []),
    ("D", ["D"], []),
    ("B boutique 34W orange", ["B boutique 34W orange"], []),
    # Orders under the auction they are for (issue 43): the label's colon is dropped, its command word kept.
    ("42W: up to 12 gray; TS: pass; CP: up to 8", ["42W up to 12 gray", "TS pass", "CP up to 8"], []),
    ("Hi, 42W: build max. Thanks!", ["42W build max"], ["Hi", "Thanks!"]),
    ("TS: stop", ["TS stop"], []),
    ("CP: cancel", ["CP cancel"], []),
    ("TS: pas", ["TS pas"], []),  # a typo after the label: the parser names it
    ("Times Square: pass; Central Park: up to 8", ["Times Square pass", "Central Park up to 8"], []),
    ("34th Street West: build max", ["34th Street West build max"], []),
    ("42W: up to 5; rest: pass", ["42W up to 5", "rest pass"], []),
    # A label the game does not know is still a label: its order is refused, never a pass of its own (issue 43).
    ("42X: pass", ["42X pass"], []),
    ("XY: up to 5", ["XY up to 5"], []),
    ("43W: up to 12 gray", ["43W up to 12 gray"], []),
    ("Tims Square: pass", ["Tims Square pass"], []),
    ("Sorry: pass", ["pass"], ["Sorry:"]),
]

# Real typos: still commands, so that the parser answers them ("did you mean ...?").
TYPOS = [
    ("bid brwn 4", "brown"), ("bid borwn 4 6", "brown"), ("bid bronw 4", "brown"), ("cards orang gray", "orange"),
    ("cards ornage green", "orange"), ("cards orange gary", "gray"), ("cards violett gray", "violet"),
    ("cards gren orange", "green"), ("move whte 34E", "white"), ("move wihte 34E", "white"),
    ("C beig CP", "beige"), ("place TS violte", "violet"), ("B boutiqe 34W orange", "boutique"),
    ("B jewler 34W orange", "jeweler"), ("B galery 34W orange", "gallery"), ("B perfum 34W orange", "perfume"),
]
MANHATTAN_TYPOS = [("play 5 sidney 2", "sydney"), ("play 5 frnkfurt 2", "frankfurt"), ("play 5 hongkog 1", "hongkong"),
                   ("play 5 cario 1", "cairo"), ("choose bleu 1 1 2 3", "blue")]


@pytest.mark.parametrize("line", PROSE)
def test_a_line_of_prose_is_not_a_command(line: str) -> None:
    for vocabulary in (FIFTH_AVENUE, MANHATTAN):
        reading = read_line(line, vocabulary)
        assert reading.commands == [], (line, reading)
        assert reading.left == [line.strip(" ,")], "the whole line is reported as not read"


@pytest.mark.parametrize("line, commands, left", COMMANDS)
def test_the_command_is_found_where_the_player_put_it(line: str, commands: list[str], left: list[str]) -> None:
    reading = read_line(line, FIFTH_AVENUE)
    assert reading.commands == commands
    assert reading.left == left
    assert reading.whole == (not left)


@pytest.mark.parametrize("line, meant", TYPOS)
def test_a_typo_of_a_game_word_keeps_the_line_a_command_and_the_parser_names_the_word(line: str, meant: str) -> None:
    assert read_line(line, FIFTH_AVENUE).commands == [line]
    state = new_fifth_avenue(3, seed=1)
    with pytest.raises(InvalidCommandError, match=rf"did you mean {meant}\?"):
        state.parse(state.current_player(), line)


@pytest.mark.parametrize("line, meant", MANHATTAN_TYPOS)
def test_manhattan_typos_are_commands(line: str, meant: str) -> None:
    assert read_line(line, MANHATTAN).commands == [line]
    assert near(line.split()[-2] if line.startswith("play") else line.split()[1], MANHATTAN.words) == meant


def test_manhattan_lines_with_filler_words_and_counts() -> None:
    assert read_line("play card 5 in cairo, 1 story", MANHATTAN).commands == ["play card 5 in cairo, 1 story"]
    assert read_line("choose 2x1 3 4 :)", MANHATTAN).commands == ["choose 2x1 3 4"]
    assert read_line("choose 2 x 1 3 4", MANHATTAN).commands == ["choose 2 x 1 3 4"]


@pytest.mark.parametrize("word, found", [
    ("brwn", "brown"), ("grey", None), ("care", None), ("fast", None), ("my", None), ("sq", None), ("4", None),
    ("rown", None),  # the first letter is kept by typos
    ("violett", "violet"), ("gallerie", "galerie"), ("bluee", None),
])
def test_what_counts_as_a_typo(word: str, found: str | None) -> None:
    assert near(word, FIFTH_AVENUE.words) == found


def test_own_subject_drops_prefixes_our_subject_and_tags() -> None:
    ours = ["[Manhattan #2] your turn: play a card (decision 7)"]
    assert own_subject("Re: [Manhattan #2] your turn: play a card (decision 7) play 5 cairo 1", ours) == "play 5 cairo 1"
    assert own_subject("AW: RE: [Manhattan #2] your turn: play a card (decision 7)", ours) == ""
    assert own_subject("[Fifth Avenue #3] pass", []) == "pass"
    assert own_subject("pass", []) == "pass"
    # a reply to a mail whose subject we do not know: its words may be ours, so none is the player's
    assert own_subject("Re: [Fifth Avenue #3] your turn: bid or pass (decision 4)", ours) == ""


def test_reading_stops_at_the_most_commands_asked_for_and_leaves_the_rest() -> None:
    # Issue 41: a mail of more commands than it may have is refused whatever they are, so they are not all read.
    reading = read_line("pass; " * 5 + "bid brown 4", FIFTH_AVENUE, most=3)
    assert reading.commands == ["pass"] * 3
    assert reading.left == ["pass; pass; bid brown 4"]
    assert read_line("pass, " * 5, FIFTH_AVENUE, most=2).commands == ["pass", "pass"]


def test_a_mail_is_read_for_commands_up_to_its_word_budget() -> None:
    from pbem.services.mail_in.lines import MAX_WORDS_READ, sort_lines

    long = "A, " * (MAX_WORDS_READ + 1)  # one line of too many words: listed, never read word by word
    found = sort_lines(["bid brown 4", long, "pass"], FIFTH_AVENUE)
    assert [r.commands for r in found.readings] == [["bid brown 4"]]
    assert found.ignored == [long, "pass"]  # the budget is the mail's: what comes after is not read either


def test_a_signup_mail_looks_for_a_move_within_the_word_budget() -> None:
    from pbem.services.mail_in.lines import MAX_WORDS_READ
    from pbem.services.mail_in.signup_mail import holds_a_move

    assert holds_a_move(["Hi all,", "pass"])
    assert not holds_a_move(["Hi all,", "see you"])
    assert not holds_a_move(["A, " * MAX_WORDS_READ, "pass"])  # past the budget nothing is read: 'games' stays signup


@pytest.mark.parametrize("line, place", [("42X: pass", "42x"), ("Tims Square: pass", "tims"), ("XY: up to 5", "xy")])
def test_an_order_under_an_unknown_auction_is_refused_not_read_as_a_pass(line: str, place: str) -> None:
    """'42X: pass' was read as 'pass' (the '42X:' left as prose), a pass in the auction that runs (issue 43)."""
    state = new_fifth_avenue(3, seed=1)
    [command] = read_line(line, FIFTH_AVENUE).commands
    with pytest.raises(InvalidCommandError, match=rf"'{place}' is not an auction's district or CP"):
        state.parse(state.current_player(), command)
