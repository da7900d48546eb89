"""The workers as the moderator sees them: which worker holds which mail (claims), heartbeats and `pbem status`.
May import common and the layers below (adapters, config, store, render, mail, games) only."""
