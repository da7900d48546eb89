"""The game archive as a static web site: every game move by move, every player with their record and rating.

``records`` holds the plain data the pages show; ``history`` reads it from the store; ``ratings`` rates the
players of finished games; ``site`` writes and updates the pages. The CLI (``pbem archive``) and the mail
worker (after a pass that changed games) call ``site``.
"""
