"""The moderator's switch of whether the archive's web site shows a game (``pbem game set ID archive=no``).

Every game is in the archive unless the moderator leaves it out. Nobody is mailed and no event is written:
the game the players play is the same either way (as for the game's mail settings, services.mail_out.delivery).
"""

from __future__ import annotations

from sqlalchemy import Engine

from ..common.errors import BadRequest

ARCHIVE = ("yes", "no")  # games.archive: whether the archive's site shows the game


def checked_archive(value: str) -> str:
    """``value`` as an archive setting ("yes" or "no"; also on/off, true/false), or BadRequest saying which."""
    setting = {"on": "yes", "true": "yes", "off": "no", "false": "no"}.get(value.strip().lower(),
                                                                          value.strip().lower())
    if setting not in ARCHIVE:
        raise BadRequest(f"'{value}' is not an archive setting; use yes or no")
    return setting


def set_archive(engine: Engine, game_id: int, value: str) -> str:
    """Show game ``game_id`` on the archive's site ("yes") or leave it out ("no"). Returns the setting."""
    from ...archive.history import set_archived

    setting = checked_archive(value)
    set_archived(engine, game_id, setting == "yes")
    return setting


__all__ = ["ARCHIVE", "checked_archive", "set_archive"]
