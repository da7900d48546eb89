"""The Pythons pbem supports that this machine has, and local wheelhouses of pbem's dependencies for each.

The install tests put pbem's wheel into a fresh virtualenv of every supported Python and of the lowest versions
pyproject.toml allows, and must not need the network for it. ``python -m pbem_testing.pythons`` (run by
tests/install-pythons.sh, part of the README's test command) downloads what they install, once:

- for every supported Python found, the wheels of the versions uv.lock pins (``locked-cp313-<key>``);
- for the oldest supported Python, the lowest versions of pbem's direct dependencies, found by uv
  (``--resolution lowest-direct``, the newest of what those need) (``lowest-cp311-<key>``).

Each wheelhouse is named after what it was made from (the lock file; pyproject.toml's dependencies), so a
changed lock or bound makes a new one and the tests never take a stale one. They live in the user's cache
(``$XDG_CACHE_HOME/pbem/test-wheels``, or ``$PBEM_TEST_WHEELS``), outside the checkout: a fresh clone on the
same machine finds them. Supported means what pyproject.toml's ``requires-python`` admits: a Python is found
as a pyenv version or as ``python3.N`` on PATH, and only a CPython that runs and says its version counts.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path

from packaging.specifiers import SpecifierSet

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = ROOT / "pyproject.toml"
LOCK = ROOT / "uv.lock"
EXTRAS = ("postgresql", "demo")  # what the install tests install besides the wheel's own dependencies
_PYENV_VERSION = re.compile(r"\d+\.\d+\.\d+")  # CPython releases only: not 3.13.0t, pypy3.10-7.3, miniconda...
_PROBE = "import json, platform, sys; print(json.dumps([platform.python_implementation(), *sys.version_info[:3]]))"


@dataclass(frozen=True)
class Python:
    executable: Path
    version: tuple[int, int, int]

    @property
    def minor(self) -> str:
        return f"{self.version[0]}.{self.version[1]}"

    @property
    def tag(self) -> str:
        return f"cp{self.version[0]}{self.version[1]}"


def project() -> dict:
    with PYPROJECT.open("rb") as file:
        return tomllib.load(file)["project"]


def supported() -> SpecifierSet:
    return SpecifierSet(project()["requires-python"])


def direct_requirements() -> list[str]:
    """pbem's own dependencies and those of the extras the tests install, as pyproject.toml writes them."""
    meta = project()
    return [*meta["dependencies"], *(r for extra in EXTRAS for r in meta["optional-dependencies"][extra])]


def _probe(executable: str | Path) -> Python | None:
    try:
        proc = subprocess.run([str(executable), "-I", "-c", _PROBE], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if proc.returncode != 0:  # a pyenv shim of a version that is not selected fails here
        return None
    try:
        implementation, *version = json.loads(proc.stdout)
    except ValueError:
        return None
    if implementation != "CPython":
        return None
    return Python(Path(executable), tuple(version))


def _pyenv_root() -> Path | None:
    if os.environ.get("PYENV_ROOT"):
        return Path(os.environ["PYENV_ROOT"])
    pyenv = shutil.which("pyenv")
    if pyenv:
        proc = subprocess.run([pyenv, "root"], capture_output=True, text=True, timeout=30)
        if proc.returncode == 0 and proc.stdout.strip():
            return Path(proc.stdout.strip())
    default = Path.home() / ".pyenv"
    return default if default.is_dir() else None


def _candidates(specifier: SpecifierSet) -> list[Path]:
    found: list[Path] = [Path(sys.executable)]
    root = _pyenv_root()
    if root is not None and (root / "versions").is_dir():
        for folder in sorted((root / "versions").iterdir()):
            if _PYENV_VERSION.fullmatch(folder.name) and specifier.contains(folder.name):
                found.append(folder / "bin" / "python3")
    for minor in range(8, 30):
        if specifier.contains(f"3.{minor}.0") or specifier.contains(f"3.{minor}.99"):
            on_path = shutil.which(f"python3.{minor}")
            if on_path:
                found.append(Path(on_path))
    return found


def find_pythons() -> list[Python]:
    """One Python for each minor version that requires-python admits, oldest first: the running one for its own
    version, else the newest patch release found."""
    specifier = supported()
    best: dict[str, Python] = {}
    running = tuple(sys.version_info[:3])
    for candidate in dict.fromkeys(_candidates(specifier)):
        python = _probe(candidate)
        if python is None or not specifier.contains(".".join(map(str, python.version))):
            continue
        held = best.get(python.minor)
        if held is None or (held.version != running and (python.version == running or python.version > held.version)):
            best[python.minor] = python
    return sorted(best.values(), key=lambda python: python.version)


def cache_root() -> Path:
    if os.environ.get("PBEM_TEST_WHEELS"):
        return Path(os.environ["PBEM_TEST_WHEELS"])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "pbem" / "test-wheels"


def _key(*parts: bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(len(part).to_bytes(8, "big") + part)
    return digest.hexdigest()[:16]


def locked_wheelhouse(python: Python) -> Path:
    """Where the wheels of uv.lock's versions for ``python`` are (or go)."""
    return cache_root() / f"locked-{python.tag}-{_key(LOCK.read_bytes())}"


def lowest_wheelhouse(python: Python) -> Path:
    """Where the wheels of the lowest direct versions for ``python`` are (or go)."""
    return cache_root() / f"lowest-{python.tag}-{_key(json.dumps(direct_requirements()).encode())}"


def ready(wheelhouse: Path) -> bool:
    return (wheelhouse / "requirements.txt").is_file()


def uv() -> str:
    """The uv program: on PATH, or the one the uv package installed beside this Python."""
    found = shutil.which("uv") or shutil.which("uv", path=str(Path(sys.executable).parent))
    if found is None:
        raise SystemExit("uv is not installed: python -m pip install -e '.[test]' installs it")
    return found


def _fill(wheelhouse: Path, python: Python, requirements: str) -> None:
    """Put the wheels of ``requirements`` (pinned, with hashes) for ``python`` into ``wheelhouse``, building those
    published only as an sdist (xkcdpass 1.19); the requirements file is written last, the mark of a complete
    wheelhouse. pip's output is shown only when it fails."""
    wheelhouse.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=wheelhouse.name + ".", dir=wheelhouse.parent))
    try:
        (work / "requested.txt").write_text(requirements)
        # pip --python evaluates the markers and wheel tags of that interpreter, which needs no pip of its own.
        proc = subprocess.run([sys.executable, "-m", "pip", "--python", str(python.executable), "wheel",
                               "--disable-pip-version-check", "--no-deps", "--wheel-dir", str(work),
                               "--requirement", str(work / "requested.txt")], capture_output=True, text=True)
        if proc.returncode != 0:
            raise SystemExit(f"{proc.stdout}{proc.stderr}\ncould not get the wheels of {wheelhouse.name} for "
                             f"Python {python.minor} ({python.executable})")
        (work / "requested.txt").rename(work / "requirements.txt")
        shutil.rmtree(wheelhouse, ignore_errors=True)
        work.rename(wheelhouse)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    # Older wheelhouses of the same kind and Python were made from an older lock or older bounds.
    kind = wheelhouse.name.rsplit("-", 1)[0]
    for old in wheelhouse.parent.glob(f"{kind}-*"):
        if old != wheelhouse and old.is_dir() and re.fullmatch(r"[0-9a-f]{16}", old.name.rsplit("-", 1)[1]):
            shutil.rmtree(old, ignore_errors=True)


def locked_requirements() -> str:
    """uv.lock's versions of pbem's dependencies and of its extras in EXTRAS, for every Python (with markers)."""
    extras = [argument for extra in EXTRAS for argument in ("--extra", extra)]
    return subprocess.run([uv(), "export", "--frozen", "--no-dev", "--no-emit-project", "--no-header", *extras,
                           "--format", "requirements-txt", "--project", str(ROOT)],
                          capture_output=True, text=True, check=True).stdout


def lowest_requirements(python: Python) -> str:
    """The lowest versions of pbem's direct dependencies uv finds for ``python``, and the newest of the rest."""
    with tempfile.TemporaryDirectory() as folder:
        wanted = Path(folder) / "direct.in"
        wanted.write_text("\n".join(direct_requirements()) + "\n")
        return subprocess.run([uv(), "pip", "compile", "--quiet", "--no-header", "--resolution", "lowest-direct",
                               "--generate-hashes", "--python", str(python.executable), "--no-config",
                               str(wanted)], capture_output=True, text=True, check=True, cwd=folder).stdout


def prepare() -> list[str]:
    """Make every wheelhouse the install tests need that is missing; returns what was made or found."""
    pythons = find_pythons()
    if not pythons:
        raise SystemExit(f"no Python of {supported()} found")
    done = []
    for python in pythons:
        wheelhouse = locked_wheelhouse(python)
        if not ready(wheelhouse):
            _fill(wheelhouse, python, locked_requirements())
        done.append(f"Python {python.minor} ({python.executable}): {wheelhouse.name}")
    oldest = pythons[0]
    wheelhouse = lowest_wheelhouse(oldest)
    if not ready(wheelhouse):
        _fill(wheelhouse, oldest, lowest_requirements(oldest))
    done.append(f"lowest versions on Python {oldest.minor}: {wheelhouse.name}")
    return done


if __name__ == "__main__":
    for line in prepare():
        print(line)
