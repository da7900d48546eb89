"""Reading the lines of a signup mail (issue 36, docs/signup.md): what each reads as, what is no signup line at
all, and what a line that starts like one but cannot be read says is wrong and what to send instead."""

from __future__ import annotations

import pytest

from pbem.services.table.signup import name_of
from pbem.services.table.signup_words import SignupLine, SignupLineError, code_in, read_signup_line


@pytest.mark.parametrize("line,read", [
    ("games", SignupLine("games", "games")),
    ("new fifth-avenue", SignupLine("new fifth-avenue", "new", kind="fifth-avenue")),
    ("New Fifth Avenue players 3 side back deadline 2d",
     SignupLine("New Fifth Avenue players 3 side back deadline 2d", "new", kind="fifth-avenue", players=3,
                back_side=True, deadline=2 * 86400)),
    ("new manhattan players 2 as Ann Lee", SignupLine("new manhattan players 2 as Ann Lee", "new", kind="manhattan",
                                                      players=2, name="Ann Lee")),
    ("join 3", SignupLine("join 3", "join", number=3)),
    ("join #3 as Bob", SignupLine("join #3 as Bob", "join", number=3, name="Bob")),
    ("leave 3", SignupLine("leave 3", "leave", number=3)),
    ("start", SignupLine("start", "start")),
    ("start 3 with robots", SignupLine("start 3 with robots", "start", number=3, robots=True)),
    ("start with robots", SignupLine("start with robots", "start", robots=True)),
    ("watch 12", SignupLine("watch 12", "watch", number=12)),
    ("unwatch 12.", SignupLine("unwatch 12.", "unwatch", number=12)),
    ("resign 12", SignupLine("resign 12", "resign", number=12)),
    ("confirm Buddy-Output", SignupLine("confirm Buddy-Output", "confirm", code="buddy-output")),
])
def test_each_command_reads_as_it_says(line: str, read: SignupLine) -> None:
    assert read_signup_line(line) == read


@pytest.mark.parametrize("line", ["bid gray 4", "Hi all,", "games are fun", "", "place 34W orange"])
def test_other_lines_are_no_signup_lines(line: str) -> None:
    assert read_signup_line(line) is None


@pytest.mark.parametrize("line,why,instead", [
    ("new chess", "pbem hosts no game called 'chess'", "new fifth-avenue or new manhattan"),
    ("new", "it names no game", "new fifth-avenue or new manhattan"),
    ("new fifth-avenue players 5", "Fifth Avenue is for 2, 3, 4 players, not '5'", "new fifth-avenue players 4"),
    ("new manhattan side back", "Manhattan's board has one side", "new manhattan"),
    ("new fifth-avenue deadline soon", "'soon' is not a length of time", "new fifth-avenue deadline 2d"),
    ("new fifth-avenue deadline 90d", "a deadline is at most 30 days", "new fifth-avenue deadline 3d"),
    ("new fifth-avenue colour red", "'colour' is not an option of new", "new fifth-avenue players 3"),
    ("join", "it names no table", "join 3"),
    ("join it", "'it' is not the number of a table", "join 3"),
    ("join 3 as <ann@example.org>", "is not a name", "join 3 as Ann"),
    ("watch 0", "'0' is not the number of a game", "watch 3"),
    ("resign 12 now", "'resign' takes the number of a game alone", "resign 12"),
    ("start 3 with friends", "'with friends' is not 'with robots'", "start 3 with robots"),
    ("confirm", "it has no code", "confirm word-word"),
])
def test_a_line_that_cannot_be_read_says_why_and_what_instead(line: str, why: str, instead: str) -> None:
    with pytest.raises(SignupLineError) as refused:
        read_signup_line(line)
    assert why in refused.value.why and instead in refused.value.instead


def test_the_code_is_found_in_the_subject_of_an_answer() -> None:
    assert code_in("Re: [pbem] confirm code buddy-output: join 3") == "buddy-output"
    assert code_in("Re: [pbem] confirm code buddy-output: join 3 as Ann Lee-Smith") == "buddy-output"
    assert code_in("Re: [Fifth Avenue #3] Ann, Bob") == ""


def test_a_name_never_shows_an_address() -> None:
    assert [name_of(a) for a in ("ann.lee@example.org", "42@example.org", "zoë_x@example.org")] == ["Ann", "Player",
                                                                                                  "Zoë"]


def test_every_signup_example_of_the_help_reads_as_its_command() -> None:
    """The help mail (services.mail_out.help_text) shows each signup command with an example: each is read as that
    command, and every command has one."""
    from pbem.services.mail_out.help_text import SIGNUP_HELP, signup_lines
    from pbem.services.table.signup_words import WORDS

    examples = [shape for shape, _ in SIGNUP_HELP if shape != "confirm CODE"]
    read = [read_signup_line(example) for example in examples]
    assert [line.action for line in read] == ["games", "new", "join", "leave", "start", "watch", "resign"]
    assert set(WORDS) - {line.action for line in read} == {"unwatch", "confirm"}  # told in watch's and its own line
    assert all(len(line) <= 72 for line in signup_lines())


@pytest.mark.parametrize("name,why", [
    ("The moderator", "'moderator'"), ("MODERATOR", "'moderator'"), ("M0derat0r", "'moderator'"),
    ("\u039coderator", "one script"),  # a Greek capital Mu among Latin letters
    ("pbem", "'pbem'"), ("Robot Fan", "'robot'"), ("r0b0t", "'robot'"), ("Robo1", "Robo"), ("Robo", "Robo"),
    ("\u0410nn", "one script"), ("B\u043eb", "one script"),  # a Cyrillic A, a Cyrillic o
])
def test_names_that_pass_for_the_moderator_a_robot_or_another_script_are_refused(name: str, why: str) -> None:
    from pbem.services.table.player_names import why_not

    assert why in why_not(name)


@pytest.mark.parametrize("name", ["Ann", "Zoë O'Neil", "José", "Ann-Marie", "Robin", "Roberta", "Вера", "Δημήτρης"])
def test_ordinary_names_pass(name: str) -> None:
    from pbem.services.table.player_names import why_not

    assert why_not(name) == ""


def test_names_clash_when_they_look_alike() -> None:
    from pbem.services.table.player_names import same_name, shown

    assert shown("\uff21nn") == "Ann" and same_name("\uff21NN", "ann")
    assert same_name("\u0410\u0441\u0435", "Ace")  # all Cyrillic, every letter a Latin look-alike
    assert same_name("B0b", "Bob") and not same_name("Bob", "Rob")
    assert read_signup_line("join 3 as \uff21nn").name == "Ann"
    with pytest.raises(SignupLineError, match="may not be a player's name"):
        read_signup_line("join 3 as The moderator")
    assert name_of("moderator@example.org") == "Player" and name_of("robot.fan@example.org") == "Player"
