"""The moderator's switch of whether the archive's web site shows a game (``pbem game set ID archive=no``): its
values, checked; the archive writes it (``pbem.archive.history.set_archive``), being the one that reads it.

Every game is in the archive unless the moderator leaves it out. Nobody is mailed and no event is written:
the game the players play is the same either way (as for the game's mail settings, services.mail_out.delivery).
"""

from __future__ import annotations

from ..common.errors import BadRequest

ARCHIVE = ("yes", "no")  # games.archive: whether the archive's site shows the game


def checked_archive(value: str) -> str:
    """``value`` as an archive setting ("yes" or "no"; also on/off, true/false), or BadRequest saying which."""
    setting = {"on": "yes", "true": "yes", "off": "no", "false": "no"}.get(value.strip().lower(),
                                                                          value.strip().lower())
    if setting not in ARCHIVE:
        raise BadRequest(f"'{value}' is not an archive setting; use yes or no")
    return setting


__all__ = ["ARCHIVE", "checked_archive"]
