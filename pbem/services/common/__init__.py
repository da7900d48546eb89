"""What every service shares: a game as loaded (game_info), the typed refusals (errors), checked input, a game's
clock settings and deadlines (timing, deadlines), the mail ledger. May import only the layers below the services."""
