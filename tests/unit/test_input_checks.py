"""The checks every entry point shares: addresses and names as the game store keeps them, an import file read
with caps, a SQLite file looked at before SQLite opens it, a usage error in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer

from pbem.cli import app
from pbem.cli.errors import NoSuchOption, UsageError, usage_message
from pbem.services.table.game_transfer import MAX_DEPTH, MAX_IMPORT_BYTES, parse_export, read_export
from pbem.services.common.errors import BadRequest, ImportFailed
from pbem.services.common.input_checks import checked_address, checked_name
from pbem.store.db import SQLITE_HEADER, DatabaseFileError, check_sqlite_file


@pytest.mark.parametrize("given,kept", [
    ("ann@example.org", "ann@example.org"),
    ("Ann@Example.ORG", "ann@example.org"),
    ("  ann@example.org ", "ann@example.org"),
    ("o'brien+pbem@mail.example.co.uk", "o'brien+pbem@mail.example.co.uk"),
])
def test_an_address_is_kept_in_lower_case(given: str, kept: str) -> None:
    assert checked_address(given) == kept


@pytest.mark.parametrize("given,why", [
    ("", "is empty"),
    ("a\r\nb@example.org", "line break"),
    ("ann@example.org\r\n", "line break"),
    ("a\tb@example.org", "line break or a control character"),
    ("a\x00b@example.org", "control character"),
    ("a b@example.org", "holds a space"),
    ("kim@exämple.org", "non-ASCII character 'ä' (U+00E4)"),
    ("\u212aim@example.org", "U+212A"),  # the Kelvin sign, which str.lower() makes a 'k'
    ("a" * 250 + "@example.org", "longer than 254"),
    ("nobody", "has no @"),
    ("a@b@example.org", "not of the form"),
    ("@example.org", "not of the form"),
    ("ann@example.org.", "not of the form"),
])
def test_what_is_no_address_is_refused_with_the_reason(given: str, why: str) -> None:
    with pytest.raises(BadRequest) as refused:
        checked_address(given)
    assert why in refused.value.message and "\n" not in refused.value.message


def test_a_name_is_one_line_of_at_most_200_characters() -> None:
    assert checked_name("  Ann Smith ") == "Ann Smith"
    for bad in ("", "   ", "Ann\r\nBcc: eve@example.org", "A\x00", "N" * 201):
        with pytest.raises(BadRequest):
            checked_name(bad)


def test_an_export_is_json_text_without_nan_nesting_or_nul() -> None:
    assert parse_export(b'\xef\xbb\xbf{"a": [1, 2.5]}') == {"a": [1, 2.5]}  # a byte order mark is fine
    assert parse_export(json.dumps([[[]]] * 3).encode()) == [[[]]] * 3
    for raw, fragment in [
        (b"", "is not a JSON game export"),
        (b"\xff", "not UTF-8 text (byte 0 is 0xff)"),
        (b"[NaN]", "NaN is not a number"),
        (b"[1e999]", "too large a number"),
        (b"1" * 5000, "is not a JSON game export"),
        (b"[" * 100_000 + b"]" * 100_000, "nested far more than"),
        (b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1), f"more than {MAX_DEPTH} levels"),
        (b'{"a\\u0000": 1}', "NUL"),
        (b'["\\u0000"]', "NUL"),
    ]:
        with pytest.raises(ImportFailed) as refused:
            parse_export(raw, "x.json")
        assert fragment in refused.value.message, refused.value.message


def test_an_import_file_is_a_regular_file_of_at_most_10_mb(tmp_path: Path) -> None:
    (tmp_path / "ok.json").write_text('{"format": "pbem-game"}')
    assert read_export(tmp_path / "ok.json") == {"format": "pbem-game"}
    with (tmp_path / "big.json").open("wb") as handle:
        handle.truncate(MAX_IMPORT_BYTES + 1)
    for path, fragment in [(tmp_path / "big.json", "at most 10 MB"), (tmp_path, "is a directory"),
                           (tmp_path / "missing.json", "cannot read"), (Path("/dev/zero"), "not a regular file")]:
        with pytest.raises(ImportFailed) as refused:
            read_export(path)
        assert fragment in refused.value.message


def test_a_sqlite_file_is_looked_at_before_it_is_opened(tmp_path: Path) -> None:
    (tmp_path / "good.sqlite3").write_bytes(SQLITE_HEADER + bytes(84))
    check_sqlite_file(tmp_path / "good.sqlite3")
    (tmp_path / "empty.sqlite3").write_bytes(b"")
    check_sqlite_file(tmp_path / "empty.sqlite3", may_create=True)
    check_sqlite_file(tmp_path / "new.sqlite3", may_create=True)
    check_sqlite_file(tmp_path / "a" / "b" / "new.sqlite3", may_create=True, create_folder=True)
    (tmp_path / "text.sqlite3").write_text("hello")
    for path, options, fragment in [
        (tmp_path / "text.sqlite3", {}, "is not a SQLite database"),
        (tmp_path, {}, "is a directory"),
        (Path("/dev/null"), {}, "not a regular file"),
        (tmp_path / "empty.sqlite3", {}, "is empty: run `pbem db upgrade`"),
        (tmp_path / "new.sqlite3", {}, "there is no database"),
        (tmp_path / "a" / "new.sqlite3", {"may_create": True}, "the folder"),
        (tmp_path / "text.sqlite3" / "x.sqlite3", {}, "Not a directory"),
    ]:
        with pytest.raises(DatabaseFileError) as refused:
            check_sqlite_file(path, **options)
        assert fragment in str(refused.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.sqlite3", "good.sqlite3", "text.sqlite3"]


def test_a_usage_error_is_one_line_with_where_to_look() -> None:
    command = typer.main.get_command(app)
    ctx = command.make_context("pbem", [], resilient_parsing=True)
    assert usage_message(UsageError("Missing argument 'GAME'.\n", ctx=ctx)) == \
        "Missing argument 'GAME' (see pbem --help)"
    assert "is not a number this command takes" in usage_message(NoSuchOption("-1", ctx=ctx))
    assert usage_message(NoSuchOption("--colour", ctx=ctx)).startswith("No such option: --colour")
