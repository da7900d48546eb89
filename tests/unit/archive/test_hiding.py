"""What the archive says of a hidden player in people's words (``history._Cast.said``), and how keys are made.

A hidden player's name and its first word are replaced in any case, as whole words only; another player's own
name that begins with the same first word is left as written; addresses become names.
"""

from __future__ import annotations

import hashlib
import hmac

import pytest

from pbem.archive.history import OLD_KEY_SALT, _Cast, _Hiding, hidden_name, key_of
from pbem.store.models import Seat

SECRET = bytes(range(32))
ZOE = ("Zoë Lefèvre", "zoe@example.org")
OTHERS = [("Zoë Martin", "martin@example.org"), ("Bob", "bob@example.org")]


def cast(*hidden: str, secret: bytes = SECRET) -> _Cast:
    seats = [Seat(game_id=1, seat=n, name=name, email=email) for n, (name, email) in enumerate([ZOE, *OTHERS])]
    return _Cast.of(seats, _Hiding(secret, frozenset(key_of(secret, email) for email in hidden)))


def shown(email: str) -> str:
    return hidden_name(key_of(SECRET, email))


@pytest.mark.parametrize("text, expected", [
    ("Zoë Lefèvre wins", "{z} wins"),
    ("well played, zoë!", "well played, {z}!"),
    ("ZOË, ZOË LEFÈVRE and zOë", "{z}, {z} and {z}"),
    ("Zoe\u0308 wrote it", "{z} wrote it"),  # the same name in decomposed form
    ("Zoë's move", "{z}'s move"),
    ("Zoëlle and Zoëtrope and ZoëZoë stay", "Zoëlle and Zoëtrope and ZoëZoë stay"),  # other words: untouched
    ("Zoë Martin is not hidden", "Zoë Martin is not hidden"),
    ("zoë martin and zoë", "zoë martin and {z}"),
    ("mail zoe@example.org or ZOE@EXAMPLE.ORG", "mail {z} or {z}"),
    ("bob@example.org and x@elsewhere.example", "Bob and (an address)"),
])
def test_a_hidden_name_is_replaced_in_any_case_as_a_whole_word(text: str, expected: str) -> None:
    assert cast(ZOE[1]).said(text) == expected.format(z=shown(ZOE[1]))


def test_the_names_shown_and_a_player_met_later() -> None:
    people = cast(ZOE[1], "cy@example.org")
    assert people.seat_names() == [shown(ZOE[1]), "Zoë Martin", "Bob"]
    assert people.said("Bob and Zoë") == f"Bob and {shown(ZOE[1])}"
    assert people.said("Cyrus left") == "Cyrus left"
    people.meet("Cyrus Smith", "cy@example.org")  # a player replaced earlier, hidden too
    assert people.said("Cyrus left; cyrus smith said bye") == f"{shown('cy@example.org')} left; " \
                                                              f"{shown('cy@example.org')} said bye"


def test_nothing_is_changed_when_nobody_is_hidden() -> None:
    text = "Zoë Lefèvre, zoë and ZOË"
    assert cast().said(text) == text
    assert cast().seat_names() == ["Zoë Lefèvre", "Zoë Martin", "Bob"]


def test_a_short_first_word_is_not_hidden_alone() -> None:
    seats = [Seat(game_id=1, seat=0, name="J. Doe", email="j@example.org")]
    people = _Cast.of(seats, _Hiding(SECRET, frozenset({key_of(SECRET, "j@example.org")})))
    assert people.said("J. Doe and j. doe; J. is a letter") == \
        f"{shown('j@example.org')} and {shown('j@example.org')}; J. is a letter"


def test_a_key_cannot_be_made_without_the_secret() -> None:
    email = "ann@example.org"
    key = key_of(SECRET, email)
    assert key == key_of(SECRET, " Ann@Example.ORG ") and len(key) == 12
    guesses = [hashlib.sha256((OLD_KEY_SALT + email).encode()).hexdigest(), hashlib.sha256(email.encode()).hexdigest(),
               hmac.new(b"", email.encode(), hashlib.sha256).hexdigest(),
               hmac.new(OLD_KEY_SALT.encode(), email.encode(), hashlib.sha256).hexdigest()]
    assert all(guess[:12] != key for guess in guesses)
    assert key_of(bytes(32), email) != key


def test_a_legacy_hidden_row_hides_by_the_old_formula() -> None:
    old = hashlib.sha256((OLD_KEY_SALT + ZOE[1]).encode()).hexdigest()[:12]
    seats = [Seat(game_id=1, seat=0, name=ZOE[0], email=ZOE[1])]
    people = _Cast.of(seats, _Hiding(SECRET, frozenset(), frozenset({old})))
    assert people.seat_names() == [shown(ZOE[1])] and people.hidden_keys == {key_of(SECRET, ZOE[1])}
