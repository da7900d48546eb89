"""Mail as an attacker, a broken client or a misconfigured robot might send it, for tests and benchmarks.

``hostile_mails`` yields raw mails, each with a name for what is wrong with it: huge, empty, duplicated,
non-ASCII (RFC 6532), CR/LF-carrying and encoded-word values in every header the worker reads (Message-ID,
In-Reply-To, References, From, Reply-To, Subject, Date, Content-Type parameters, boundaries), bodies of
20,000 command lines, and malformed MIME. Seeded: the same seed gives the same mails.
"""

from __future__ import annotations

import random
from typing import Callable, Iterator

CRLF_WORD = "=?utf-8?q?<a=0D=0AX-Injected:_1@evil>?="
HUGE_LINES = 20_000
# Signup mails (issue 36, docs/signup.md), good and bad: a stranger may send them all.
SIGNUP_BODIES = ("games", "join 1", "join 1 as " + "N" * 300, "new fifth-avenue players 3", "new chess", "watch 1",
                 "confirm aaa-bbb", "resign 1", "start with robots", "leave 1\nunwatch 1", "join 99999999999999",
                 # issue 42: what a reflector or an impersonator sends
                 "games\n" + "\n".join(["spam " * 200] * 200), "confirm aaa-bbb " + "spam " * 2000,
                 "join 1 as The moderator", "join 1 as \u0410nn", "join 1 as Robo1", "new manhattan as pbem",
                 "start 1 with robots", "unwatch 1", "yes", "join 1\nwatch 1")

Header = tuple[str, str]


def _huge(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789.") for _ in range(n))


def _values(rng: random.Random, valid: str) -> list[str]:
    """Hostile values for a header whose valid form is ``valid``."""
    return [
        "",
        " ",
        _huge(rng, rng.choice((300, 3000, 12000))),
        "<" + _huge(rng, 3000) + "@example.test>",
        CRLF_WORD,
        "=?utf-8?q?=00=0D=0ABcc:_evil@x.test?=",
        "=?utf-8?b?" + "QUFB" * 500 + "?=",
        "=?x-unknown?q?abc?=",
        "=?utf-8?q?unterminated",
        valid + "\r\n X-Injected: folded",
        valid.replace("@", "\u00e4@"),  # raw UTF-8 (RFC 6532)
        "j\u00f6rg@ex\u00e4mple.test",
        valid + " " + valid,
        "\x00" + valid,
        "<>" * 500,
        "(" * 200 + valid,
        '"' + valid,
    ]


def _message(headers: list[Header], body: str | bytes, content_type: str = "text/plain; charset=utf-8") -> bytes:
    if not any(name.lower() == "content-type" for name, _ in headers):
        headers = headers + [("Content-Type", content_type)]
    head = "".join(f"{name}: {value}\r\n" for name, value in headers).encode("utf-8", "surrogateescape")
    return head + b"\r\n" + (body if isinstance(body, bytes) else body.encode("utf-8", "surrogateescape"))


def _base(rng: random.Random, n: int, sender: str, game_address: str, subject: str) -> list[Header]:
    return [("From", sender), ("To", game_address), ("Subject", subject),
            ("Date", "Mon, 23 Nov 2026 10:00:00 +0000"), ("Message-ID", f"<hostile-{n}-{rng.random()}@attack.test>"),
            ("MIME-Version", "1.0")]


def _replace(headers: list[Header], name: str, value: str, *, twice: bool = False) -> list[Header]:
    kept = [(k, v) for k, v in headers if k.lower() != name.lower()]
    return kept + [(name, value)] * (2 if twice else 1)


def _body_kinds(rng: random.Random, fresh: Callable[[], list[Header]]) -> Iterator[tuple[str, bytes]]:
    """Broken bodies; ``fresh()`` gives the headers of a new mail each time."""
    for lines in ("board", "bid gray 4 black 5", "place 34W orange", "game 1", "x" * 80, "join 1",
                  "new fifth-avenue players 3 deadline 2d"):
        yield f"{HUGE_LINES} lines of '{lines}'", _message(fresh(), "\n".join([lines] * HUGE_LINES))
    yield "multipart without its boundary", _message(fresh(), "--b\r\n\r\nboard\r\n--b--\r\n",
                                                      "multipart/mixed")
    yield "boundary never closed", _message(fresh(), "--b\r\nContent-Type: text/plain\r\n\r\nboard\r\n",
                                            'multipart/alternative; boundary="b"')
    yield "huge boundary", _message(fresh(), "board\r\n", f'multipart/mixed; boundary="{_huge(rng, 5000)}"')
    nested = "".join(f'--b{i}\r\nContent-Type: multipart/mixed; boundary="b{i + 1}"\r\n\r\n' for i in range(120))
    yield "multipart nested 120 deep", _message(fresh(), nested + "board\r\n", 'multipart/mixed; boundary="b0"')
    yield "broken base64", _message(fresh() + [("Content-Transfer-Encoding", "base64")], "!!!not*base64===\r\n")
    yield "unknown charset", _message(fresh(), "board\r\n", "text/plain; charset=x-no-such-charset")
    yield "huge charset", _message(fresh(), "board\r\n", f"text/plain; charset={_huge(rng, 4000)}")
    yield "broken RFC 2231 parameter", _message(fresh(), "board\r\n", "text/plain; charset*=utf-8''%ZZ%")
    yield "CR/LF in a parameter", _message(fresh(), "board\r\n", CRLF_WORD.join(("text/plain; name=\"", "\"")))
    yield "NUL bytes in the body", _message(fresh(), b"board\x00\x00game 1\x00\r\n\xff\xfe")
    yield "odd digits in game lines", _message(fresh(), rng.choice(("game \u00b2", "game \u2460", "game " + "9" * 40,
                                                                     "away 9999-12-20 to 9999-12-31")))
    yield "HTML only, huge", _message(fresh(), "<p>board</p>" * 5000, "text/html; charset=utf-8")
    yield "binary attachment only", _message(fresh(), bytes(rng.randrange(256) for _ in range(3000)),
                                             "application/octet-stream")


def hostile_mails(seed: int, game_address: str, *, game_subject: str = "Re: [Fifth Avenue #1] your turn",
                  senders: tuple[str, ...] = ("stranger@attack.test",)) -> Iterator[tuple[str, bytes]]:
    """Endless (name, raw mail) pairs: every hostile header value in every header, then every broken body,
    round after round with new random parts."""
    rng = random.Random(seed)
    n = 0
    while True:
        sender = rng.choice(senders)
        targets: list[tuple[str, Callable[[], list[str]]]] = [
            ("Message-ID", lambda: _values(rng, f"<m{n}@attack.test>")),
            ("In-Reply-To", lambda: _values(rng, "<x@attack.test>")),
            ("References", lambda: _values(rng, "<x@attack.test>") + [" ".join(f"<r{i}@x.test>" for i in range(3000))]),
            ("From", lambda: _values(rng, sender)),
            ("Reply-To", lambda: _values(rng, sender)),
            ("Subject", lambda: _values(rng, game_subject) + ["[Fifth Avenue #" + "9" * 30 + "]",
                                                               "[Fifth Avenue #\u00b2]"]),
            ("Date", lambda: _values(rng, "Mon, 23 Nov 2026 10:00:00 +0000") + ["Mon, 23 Nov 99999 10:00:00 +0000"]),
            ("Content-Type", lambda: _values(rng, "text/plain; charset=utf-8")),
        ]
        for name, values in targets:
            for value in values():
                for twice in (False, True):
                    n += 1
                    headers = _replace(_base(rng, n, sender, game_address, game_subject), name, value, twice=twice)
                    body = rng.choice(("board", "help", "bid gray 4", "Hello, I would like to play.", "game 1\nboard",
                                       *SIGNUP_BODIES))
                    label = f"{name} {'twice' if twice else 'once'}: {value[:40]!r}"
                    yield label, _message(headers, body + "\r\n")
        def fresh() -> list[Header]:
            nonlocal n
            n += 1
            return _base(rng, n, sender, game_address, game_subject)

        yield from _body_kinds(rng, fresh)
