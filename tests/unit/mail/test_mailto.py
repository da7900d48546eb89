"""The mailto: URL of an answer link (RFC 6068), read back by an RFC 6068 reader of the tests' own
(pbem_testing.link_shapes.read_mailto, over urllib.parse), and the 'ref' line that ties an answer to its mail."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from pbem.mail.mailto import (ADDRESS_HERE, MAX_REFS, encoded, mailto, message_id_of, ref_line, ref_token, split_ref_lines,
                              with_address)
from pbem.mail.message import new_message_id
from pbem_testing.link_shapes import read_mailto

# RFC 6068, section 2: what a header field's value may hold as it is; all else percent-encoded.
_QCHARS = re.compile(r"(?:[A-Za-z0-9\-._~!$'()*,;:@]|%[0-9A-F]{2})*")


def test_a_link_reads_back_as_its_address_subject_and_body() -> None:
    url = mailto("game@pbem.example", "[Fifth Avenue #12] Ann, Bob, Cy", "bid gray 4 4 black 5\nref nA_grrgvvZqKyGp6-3AZBw")
    assert url == ("mailto:game@pbem.example?subject=%5BFifth%20Avenue%20%2312%5D%20Ann,%20Bob,%20Cy"
                   "&body=bid%20gray%204%204%20black%205%0D%0Aref%20nA_grrgvvZqKyGp6-3AZBw")
    to, fields = read_mailto(url)
    assert (to, fields) == ("game@pbem.example", {"subject": "[Fifth Avenue #12] Ann, Bob, Cy",
                                                  "body": "bid gray 4 4 black 5\r\nref nA_grrgvvZqKyGp6-3AZBw"})


def test_the_characters_that_would_end_or_change_a_field_are_encoded() -> None:
    text = "a&b?c#d%e=f+g h/i\nj\r\nk\rl"
    assert encoded(text) == "a%26b%3Fc%23d%25e%3Df%2Bg%20h%2Fi%0D%0Aj%0D%0Ak%0D%0Al"
    assert read_mailto(mailto("g@x.test", text, text))[1] == {"subject": text.replace("\r\n", "\n").replace(
        "\r", "\n").replace("\n", "\r\n"), "body": "a&b?c#d%e=f+g h/i\r\nj\r\nk\r\nl"}


@given(st.text(max_size=60), st.text(max_size=120))
def test_any_subject_and_body_round_trip_as_utf8(subject: str, body: str) -> None:
    url = mailto("game@pbem.example", subject, body)
    assert url.isascii()
    head, _, query = url.partition("?")
    for pair in query.split("&"):
        assert _QCHARS.fullmatch(pair.partition("=")[2]), pair
    crlf = lambda t: re.sub(r"\r\n|\r|\n", "\r\n", t)  # noqa: E731 - a line break is CRLF in a link
    assert read_mailto(url) == ("game@pbem.example", {"subject": crlf(subject), "body": crlf(body)})


def test_non_ascii_is_percent_encoded_utf8() -> None:
    assert encoded("Zoë ♥") == "Zo%C3%AB%20%E2%99%A5"


def test_the_sender_writes_the_game_address_into_every_link() -> None:
    html = f'<a href="{mailto(ADDRESS_HERE, "s", "pass")}">pass</a> mailto:{ADDRESS_HERE} said in talk'
    written = with_address(html, "fifth+avenue@games.example")
    assert read_mailto(re.search(r'href="([^"]*)"', written).group(1))[0] == "fifth+avenue@games.example"
    assert written.endswith(f"mailto:{ADDRESS_HERE} said in talk")  # only a link's address is written over


def test_a_ref_token_names_one_of_our_message_ids_and_back() -> None:
    for _ in range(200):
        mid = new_message_id("pbem.example")
        token = ref_token(mid)
        assert re.fullmatch(r"[A-Za-z0-9_-]{22}", token) and message_id_of(token, "pbem.example") == mid
        assert split_ref_lines([ref_line(token)]) == ([], [token])
    assert ref_token("<" + "0" * 32 + "@pbem.example>") == "A" * 22
    assert ref_token("<20261129.123@client.example>") == "" and ref_token(None) == ""


def test_ref_lines_are_taken_out_of_a_players_lines() -> None:
    token = "nA_grrgvvZqKyGp6-3AZBw"
    other = "x" * 21 + "Q"
    lines = ["pass", ref_line(token), f"REF {token}.", f"ref: {other}", "ref 1234", "refs are fun", "ref " + "x" * 22]
    # a token whose last character carries bits beyond the 128 is no token of ours
    assert split_ref_lines(lines) == (["pass", "ref 1234", "refs are fun", "ref " + "x" * 22], [token, other])


def test_a_mail_of_many_ref_lines_names_at_most_max_refs_mails() -> None:
    tokens = [ref_token(new_message_id("pbem.example")) for _ in range(MAX_REFS + 5)]
    rest, found = split_ref_lines([ref_line(t) for t in tokens] + ["pass"])
    assert rest == ["pass"] and found == tokens[:MAX_REFS]
