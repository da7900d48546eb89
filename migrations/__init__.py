"""pbem's Alembic migrations; installed as the package ``pbem.migrations`` (see pbem/resources.py).

Alembic reads this folder by its path (``env.py``, ``versions/``); nothing imports it as a package.
"""
