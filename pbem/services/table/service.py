"""The game service every entry point uses: ``GameChanges`` (services.table.games) and the jobs built on it, a
player's absences and a game's export and import. Those modules take the changes as their argument, so they
and the changes do not import each other; this one stands above both.
"""

from __future__ import annotations

from typing import Any

from .absences import Absences
from .game_transfer import export_game, import_game
from .games import GameChanges


class GameService(GameChanges):
    @property
    def absences(self) -> Absences:
        """A player's absences over this service's games (``services.table.absences``)."""
        return Absences(self)

    # ------------------------------------------------------------------ archive

    def export(self, game_id: int) -> dict[str, Any]:
        """The complete record of a game: enough to rebuild it exactly (``game_transfer.export_game``)."""
        return export_game(self, game_id)

    def import_game(self, doc: Any) -> int:
        """Rebuild an exported game under a new number; its final state must equal the export's
        (``game_transfer.import_game``: every value of ``doc`` is checked first)."""
        return import_game(self, doc)


__all__ = ["GameService"]
