"""pbem: a play-by-email turn processor for board games."""

try:
    from pbem._version import __version__  # written by the build from git (pyproject.toml, [tool.setuptools_scm])
except ImportError:  # a source tree that was never built or installed (PYTHONPATH=.): no version was written
    __version__ = "0.0+unknown"  # as a build without git metadata says (pyproject.toml)
