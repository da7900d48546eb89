"""The folders of files that ship with pbem, wherever pbem is installed.

In the repository they sit at the top level (``templates/``, ``migrations/``, ``docs/``); the build installs each
as a package inside pbem (``pbem.templates``, ``pbem.migrations``, ``pbem.docs``: ``package-dir`` in
pyproject.toml), so a wheel, an sdist, ``pipx install`` and an editable install all have them. They are found
here, through ``importlib.resources``, and nowhere else: a new folder to ship goes at the top level with an
``__init__.py``, into pyproject.toml's ``packages`` and ``package-dir``, and is found with
``shipped_folder(name)``.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path


class MissingResource(Exception):
    """A folder pbem ships is not where its installation should have put it."""


def shipped_folder(name: str) -> Path:
    """The folder ``name`` that ships with pbem (``"templates"``, ``"migrations"``), as a path on disk.

    Installed (a wheel, or editable), it is the package ``pbem.<name>``. A source tree put on ``sys.path``
    without installing it (``PYTHONPATH=.``) has no such package; then it is the folder beside ``pbem/``.
    Alembic and Jinja2's FileSystemLoader need a real folder, which every pip installation gives.
    """
    try:
        folder = resources.files(f"pbem.{name}")
    except ModuleNotFoundError:
        folder = Path(str(resources.files("pbem"))).parent / name
    if not isinstance(folder, Path):
        raise MissingResource(f"pbem's {name} folder is not a folder on disk ({folder}); install pbem with pip")
    return folder


def doc_page(name: str) -> str:
    """Where the page ``name`` of pbem's documentation (``"cli.md"``) is on this machine, for a message that sends
    people to it: the installed copy, which is the one of the version that prints the message."""
    try:
        return str(shipped_folder("docs") / name)
    except MissingResource:
        return f"docs/{name} of pbem's source"
