"""pbem's version, from CHANGELOG.md and git's history, not from tags (the build backend pbem_build.py uses it).

The repository others clone carries no tags, and setuptools-scm alone then gives ``0.1.devN+unknown.g<hash>``,
which sorts below every release (``pip install -U`` from 0.5.0 would skip it) and which an index refuses (a local
part). Here the newest release named in CHANGELOG.md (``## [0.5.0] - 2026-11-26``) is R, and N is the number of
commits since the one that added R's heading: the build is R itself at that commit and ``next-patch(R).devN`` after
it (0.5.1.dev12), so it rises along main, stays above R and below the next release, and needs no tag. Cutting a
release is committing its heading (deploy/README.md, Releases).

The backend (pbem_build.py) hands that version to setuptools-scm (``SETUPTOOLS_SCM_PRETEND_VERSION_FOR_PBEM``), which still writes
pbem/_version.py, lists the files of the sdist (every file git keeps) and stores the version in the sdist's
PKG-INFO, from which a build without git (a wheel from the sdist) takes it again. Without git (a copied folder, the
Docker build context) nothing is pretended, and setuptools-scm gives its fallback ``0.0+unknown`` unless
``SETUPTOOLS_SCM_PRETEND_VERSION_FOR_PBEM`` is given, which always wins. A shallow clone cannot count its
commits: the build refuses it rather than give a wrong version.

``python3 build_backend/pbem_version.py`` prints the version (and ``--revision``, the commit) of the tree it is in:
deploy/README.md gives both to ``docker compose build``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

PRETEND = "SETUPTOOLS_SCM_PRETEND_VERSION_FOR_PBEM"
ROOT = Path(__file__).resolve().parents[1]
RELEASE_HEADING = re.compile(r"^## \[(\d+)\.(\d+)\.(\d+)\] - ", re.M)


class VersionError(Exception):
    pass


def _git(root: Path, *args: str) -> str | None:
    try:
        proc = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout.strip() if proc.returncode == 0 else None


def newest_release(changelog: str) -> tuple[int, int, int] | None:
    """The first release heading of CHANGELOG.md's text (newest first), as numbers."""
    found = RELEASE_HEADING.search(changelog)
    return (int(found.group(1)), int(found.group(2)), int(found.group(3))) if found else None


def _sdist_version(root: Path) -> str | None:
    try:
        text = (root / "PKG-INFO").read_text(encoding="utf-8")
    except OSError:
        return None
    found = re.search(r"^Version: (\S+)$", text, re.M)
    return found.group(1) if found else None


def release_version(root: Path = ROOT) -> str | None:
    """The version of the tree at ``root`` from CHANGELOG.md and git, or None where git does not keep that tree."""
    top = _git(root, "rev-parse", "--show-toplevel")
    if top is None or Path(top).resolve() != root.resolve() or not (root / "CHANGELOG.md").is_file():
        # No git of its own: an unpacked sdist says its version in PKG-INFO. (setuptools-scm 10 would count again
        # from the git data it keeps in the sdist's egg-info, as if there were no release.)
        return _sdist_version(root)
    if _git(root, "rev-parse", "--is-shallow-repository") == "true":
        raise VersionError("pbem's version counts the commits since its last release, which a shallow clone "
                           "lacks: git fetch --unshallow, or give SETUPTOOLS_SCM_PRETEND_VERSION_FOR_PBEM")
    release = newest_release((root / "CHANGELOG.md").read_text(encoding="utf-8"))
    if release is None:
        return None
    heading = f"## [{release[0]}.{release[1]}.{release[2]}]"
    # The commits that changed how often the heading occurs: the oldest added it.
    added = (_git(root, "log", "--format=%H", "-S", heading, "--", "CHANGELOG.md") or "").split()
    distance = int(_git(root, "rev-list", "--count", f"{added[-1]}..HEAD") or 0) if added else 0
    if distance == 0:  # the release's own commit (or its heading not committed yet)
        return "%d.%d.%d" % release
    return "%d.%d.%d.dev%d" % (release[0], release[1], release[2] + 1, distance)


if __name__ == "__main__":
    try:
        if sys.argv[1:] == ["--revision"]:
            print(_git(ROOT, "rev-parse", "HEAD") or "unknown")
        elif sys.argv[1:]:
            raise SystemExit("usage: python3 build_backend/pbem_version.py [--revision]")
        else:
            print(os.environ.get(PRETEND) or release_version() or "0.0+unknown")
    except VersionError as exc:
        raise SystemExit(f"error: {exc}") from None
