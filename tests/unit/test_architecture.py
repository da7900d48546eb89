"""The plan of the house holds: import-linter's contracts of pyproject.toml (layers, independence, no circles),
checked on the source tree as it is, so a change that imports upward or closes a circle fails here."""

from __future__ import annotations

import logging
import tomllib
from pathlib import Path

import pytest
from importlinter.cli import lint_imports

import pbem

ROOT = Path(__file__).resolve().parents[2]


def test_every_import_keeps_the_contracts(capsys: pytest.CaptureFixture[str]) -> None:
    # The checked package must be this checkout's, not another installed copy: the contracts speak of its files.
    assert Path(pbem.__file__).resolve().parent == ROOT / "pbem"
    # import-linter's command configures logging with dictConfig, which disables every logger that exists (pbem's
    # included) for the rest of this process: put them back as they were, or a later test here logs nothing.
    loggers = [logger for logger in logging.root.manager.loggerDict.values() if isinstance(logger, logging.Logger)]
    enabled = [logger for logger in loggers if not logger.disabled]
    try:
        exit_code = lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True, no_logo=True)
    finally:
        for logger in enabled:
            logger.disabled = False
    report = capsys.readouterr().out
    assert exit_code == 0, report
    assert "0 broken" in report


def test_the_layers_name_every_package_of_pbem() -> None:
    """A new package of pbem (or of pbem.services) takes its place in the layers, or nothing checks its imports."""
    tool = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]
    layers = next(contract for contract in tool["importlinter"]["contracts"] if contract["type"] == "layers")["layers"]
    named = {name.strip() for layer in layers for name in layer.split("|")}
    packages = {f"pbem.{path.parent.name}" for path in (ROOT / "pbem").glob("*/__init__.py")}
    packages |= {f"pbem.services.{path.parent.name}" for path in (ROOT / "pbem" / "services").glob("*/__init__.py")}
    packages -= {"pbem.services"}  # the folder of the service packages, each of which is a layer
    packages -= set(tool["setuptools"]["package-dir"])  # templates/, migrations/, docs/: shipped inside pbem, not its code
    assert packages <= named, f"not in any layer: {sorted(packages - named)}"
