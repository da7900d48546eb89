"""pbem's build backend: setuptools' own, with the version pbem_version.py finds handed to setuptools-scm first.

setuptools-scm still writes pbem/_version.py, lists the sdist's files (every file git keeps) and keeps the version
in the sdist's PKG-INFO; only the version it would read from git's tags is replaced (pbem_version.py says why).
SETUPTOOLS_SCM_PRETEND_VERSION_FOR_PBEM, when given, wins.
"""

from __future__ import annotations

import os

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F401,F403 - every hook that is not wrapped below is setuptools' own

from pbem_version import PRETEND, release_version


def _pretend() -> None:
    if os.environ.get(PRETEND):
        return
    version = release_version()
    if version is not None:
        os.environ[PRETEND] = version


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):  # noqa: ANN001, ANN201
    _pretend()
    return _setuptools.build_wheel(wheel_directory, config_settings, metadata_directory)


def build_sdist(sdist_directory, config_settings=None):  # noqa: ANN001, ANN201
    _pretend()
    return _setuptools.build_sdist(sdist_directory, config_settings)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):  # noqa: ANN001, ANN201
    _pretend()
    return _setuptools.build_editable(wheel_directory, config_settings, metadata_directory)


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):  # noqa: ANN001, ANN201
    _pretend()
    return _setuptools.prepare_metadata_for_build_wheel(metadata_directory, config_settings)


def prepare_metadata_for_build_editable(metadata_directory, config_settings=None):  # noqa: ANN001, ANN201
    _pretend()
    return _setuptools.prepare_metadata_for_build_editable(metadata_directory, config_settings)
