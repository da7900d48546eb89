"""deploy/: the example settings are what pbem reads, the systemd units are valid, the image installs pbem's wheel;
and pyproject.toml builds a wheel that holds all of pbem."""

from __future__ import annotations

import ast
import fnmatch
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from pbem.config import load_config

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


def _secrets(tmp_path: Path, text: str) -> str:
    """The example with its password files in tmp_path (the real paths are the server's)."""
    for name in ("imap-password", "smtp-password"):
        (tmp_path / name).write_text(f"{name}-value\n")
        text = text.replace(f"/etc/pbem/{name}", str(tmp_path / name))
    return text


def test_the_two_example_settings_say_the_same_and_pbem_reads_them(tmp_path: Path, monkeypatch) -> None:
    for name in list(os.environ):
        if name.startswith("PBEM_"):
            monkeypatch.delenv(name)
    toml = tmp_path / "config.toml"
    toml.write_text(_secrets(tmp_path, (DEPLOY / "config.toml.example").read_text()))
    from_file = load_config(config_file=toml)

    settings = {}
    for line in _secrets(tmp_path, (DEPLOY / "pbem.env.example").read_text()).splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.partition("=")
            settings[name] = value
    assert settings.pop("PBEM_CONFIG") == "/etc/pbem/config.toml"
    for name, value in settings.items():
        monkeypatch.setenv(name, value)
    from_environment = load_config(config_file=Path(os.devnull))  # no config file: the environment alone

    assert from_environment.database_url == from_file.database_url == "sqlite:////var/lib/pbem/pbem.sqlite3"
    assert from_environment.mail == from_file.mail
    assert from_file.mail is not None and from_environment.mail is not None
    assert from_environment.mail.with_secrets() == from_file.mail.with_secrets()
    mail = from_file.mail.with_secrets()
    assert mail.game_address == "game@example.org" and mail.poll_interval == 60
    assert mail.moderator == "moderator@example.org" and mail.outage_gap == 3600
    assert (mail.imap.host, mail.imap.port, mail.imap.security, mail.imap.password) == (
        "imap.example.org", 993, "ssl", "imap-password-value")
    assert (mail.smtp.host, mail.smtp.port, mail.smtp.security, mail.smtp.password) == (
        "smtp.example.org", 465, "ssl", "smtp-password-value")
    assert from_environment.archive == from_file.archive
    assert str(from_file.archive.folder) == "/var/lib/pbem/site"
    assert from_file.archive.game_url(7) == "https://games.example.org/archive/games/7.html"


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_the_systemd_units_are_valid(tmp_path: Path) -> None:
    pbem = shutil.which("pbem")
    assert pbem, "pbem is not installed"
    for unit in (DEPLOY / "systemd").iterdir():
        # The units name the server's virtualenv; check them against this machine's pbem.
        (tmp_path / unit.name).write_text(unit.read_text().replace("/opt/pbem/venv/bin/pbem", pbem))
    units = sorted(str(path) for path in tmp_path.iterdir())
    checked = subprocess.run(["systemd-analyze", "verify", "--man=no", *units], capture_output=True, text=True,
                             timeout=60)
    problems = [line for line in (checked.stdout + checked.stderr).splitlines() if line.strip()]
    assert checked.returncode == 0 and not problems, problems


# --------------------------------------------------------------------------- the image and the package


ROOT = DEPLOY.parent
HEALTHCHECK = 'HEALTHCHECK --interval=1m --timeout=30s --start-period=2m --retries=3 CMD ["pbem", "status"]'


def dockerfile_stages() -> list[list[str]]:
    """deploy/Dockerfile's instructions (continued lines joined, comments left out), one list per stage."""
    instructions: list[str] = []
    pending = ""
    for line in (DEPLOY / "Dockerfile").read_text().splitlines():
        if line.lstrip().startswith("#") or not line.strip():
            continue
        pending += " " + line.strip().removesuffix("\\").strip()
        if not line.rstrip().endswith("\\"):
            instructions.append(pending.strip())
            pending = ""
    stages: list[list[str]] = []
    for instruction in instructions:
        if instruction.startswith("FROM "):
            stages.append([])
        stages[-1].append(instruction)
    return stages


def test_the_image_installs_the_wheel_of_a_build_stage_and_holds_no_source_tree() -> None:
    build, image = dockerfile_stages()
    assert build[0] == "FROM python:3.11-slim AS build" and image[0] == "FROM python:3.11-slim"
    assert any(step.startswith("RUN ") and "pip wheel --no-deps" in step for step in build), build
    # Only files of the build stage reach the image (the wheel, and the dependencies' list): no source tree.
    copies = [step for step in image if step.startswith(("COPY ", "ADD "))]
    assert copies and all(step.startswith("COPY --from=build ") for step in copies), copies
    assert not any("/src" in step for step in copies), copies
    installs = [step for step in image if step.startswith("RUN ") and "pip install" in step and ".whl" in step]
    assert len(installs) == 1 and "from=build" in installs[0], image
    text = (DEPLOY / "Dockerfile").read_text()
    assert not re.search(r"pip install[^\n]* (-e|--editable)\b", text) and "editable" not in text
    assert HEALTHCHECK in image and "USER 10001:10001" in image, image
    assert image[-2:] == ['ENTRYPOINT ["tini", "--", "pbem"]', 'CMD ["worker"]'], image


def test_the_image_installs_exactly_the_locked_versions_and_runs_under_tini() -> None:
    build, image = dockerfile_stages()
    assert "COPY deploy/requirements.txt /dist/requirements.txt" in build, build
    installs = [step for step in image if step.startswith("RUN pip install") and "requirements.txt" in step]
    assert len(installs) == 1 and "--require-hashes -r /tmp/requirements.txt" in installs[0], image
    wheel = next(step for step in image if ".whl" in step and "pip install" in step)
    assert "pip install --no-deps " in wheel, wheel  # nothing unlocked comes with the wheel
    assert any(step.startswith("RUN apt-get update") and "install -y --no-install-recommends tini" in step
               for step in image), image
    # The image's own init; Compose's as well would be a second one.
    assert not re.search(r"^\s*init:", (DEPLOY / "compose.yaml").read_text(), re.M)


def test_the_deployment_requirements_are_uv_lock_exported_with_hashes() -> None:
    """deploy/requirements.txt, which the image and deploy/README.md install from, is what uv exports of uv.lock
    today (pbem's dependencies and the postgresql extra), every one pinned with its hashes."""
    uv = shutil.which("uv") or shutil.which("uv", path=str(Path(sys.executable).parent))
    assert uv, "uv comes with the test extra"
    command = [uv, "export", "--frozen", "--no-dev", "--no-emit-project", "--extra", "postgresql",
               "--format", "requirements-txt", "--no-header", "--project", str(ROOT)]
    exported = subprocess.run(command, capture_output=True, text=True, check=True, timeout=60).stdout

    def body(text: str) -> list[str]:  # without the header, which names the command
        return [line for line in text.splitlines() if line.strip() and not line.startswith("#")]

    written = (DEPLOY / "requirements.txt").read_text()
    assert body(written) == body(exported), "deploy/requirements.txt is stale: run the command in its first lines"
    assert "uv export --frozen --no-dev --no-emit-project --extra postgresql" in written.splitlines()[1]
    requirements = [line for line in body(written) if not line.startswith((" ", "\t"))]
    assert len(requirements) >= 30 and all(re.fullmatch(r"[A-Za-z0-9_.\-\[\],]+==\S+( ; [^;]+)? \\", line)
                                           for line in requirements), requirements
    names = {line.split("==")[0].lower() for line in requirements}
    assert {"typer", "sqlmodel", "alembic", "psycopg", "psycopg-binary", "imapclient"} <= names, names
    assert written.count("--hash=sha256:") >= len(requirements)


def test_the_image_says_its_version_and_revision_in_oci_labels_and_compose_passes_them() -> None:
    build, image = dockerfile_stages()
    assert "ARG PBEM_VERSION=0.0+unknown" in build and "ARG PBEM_VERSION=0.0+unknown" in image
    assert "ARG PBEM_REVISION=unknown" in image
    (label,) = [step for step in image if step.startswith("LABEL ")]
    assert 'org.opencontainers.image.version="${PBEM_VERSION}"' in label, label
    assert 'org.opencontainers.image.revision="${PBEM_REVISION}"' in label, label
    # The wheel is built as PBEM_VERSION and the image checks that its pbem says so.
    assert any('SETUPTOOLS_SCM_PRETEND_VERSION_FOR_PBEM="$PBEM_VERSION" pip wheel' in step for step in build), build
    assert any('test "$(pbem --version)" = "pbem ${PBEM_VERSION}"' in step for step in image), image
    compose = (DEPLOY / "compose.yaml").read_text()
    assert "PBEM_VERSION: ${PBEM_VERSION:-0.0+unknown}" in compose
    assert "PBEM_REVISION: ${PBEM_REVISION:-unknown}" in compose
    assert (ROOT / "build_backend" / "pbem_version.py").is_file()


def test_the_build_stage_builds_with_the_locked_backend_and_fetches_nothing_unpinned() -> None:
    """pip's build isolation would install the newest setuptools and setuptools-scm on the day of the build: the
    build stage installs deploy/build-requirements.txt (uv.lock's versions, with hashes) and builds without it."""
    build, _ = dockerfile_stages()
    assert "RUN pip install --require-hashes -r /tmp/build-requirements.txt" in build, build
    wheel = [step for step in build if "pip wheel" in step]
    assert len(wheel) == 1 and "--no-build-isolation" in wheel[0], wheel
    pinned = {}
    for line in (DEPLOY / "build-requirements.in").read_text().splitlines():
        if line and not line.startswith("#"):
            name, _, version = line.partition("==")
            pinned[name] = version
    locked = {package["name"]: package.get("version")
              for package in tomllib.loads((ROOT / "uv.lock").read_text())["package"]}
    assert pinned == {name: locked[name] for name in ("setuptools", "setuptools-scm")}, pinned
    built_by = tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]["requires"]
    assert sorted(requirement.split(">")[0] for requirement in built_by) == sorted(pinned), built_by
    written = (DEPLOY / "build-requirements.txt").read_text()
    requirements = [line for line in written.splitlines() if line and not line.startswith((" ", "#"))]
    assert {f"{name}=={version} \\" for name, version in pinned.items()} <= set(requirements), requirements
    assert all(line.endswith(" \\") and "==" in line for line in requirements), requirements
    assert written.count("--hash=sha256:") >= 2 * len(requirements)


def test_the_build_context_holds_what_the_build_stage_copies_and_nothing_else() -> None:
    ignore = [line.strip() for line in (DEPLOY / "Dockerfile.dockerignore").read_text().splitlines()
              if line.strip() and not line.startswith("#")]
    assert ignore[0] == "*", ignore  # everything out, then only what the build needs back in
    wanted = {line[1:].rstrip("/") for line in ignore if line.startswith("!")}
    build, _ = dockerfile_stages()
    copied = {source.rstrip("/") for step in build if step.startswith("COPY ")
              for source in step.split()[1:-1] if not source.startswith("--")}
    assert copied == wanted, (copied, wanted)
    for name in wanted:
        assert (ROOT / name).exists(), name


def test_no_deploy_file_installs_pbem_editable() -> None:
    for path in sorted(DEPLOY.rglob("*")):
        if path.is_file() and "secrets" not in path.parts:
            text = path.read_text()
            assert not re.search(r"pip install[^\n]* (-e|--editable)\b", text), path
            assert "editable" not in text.lower(), path


def test_pyproject_lists_every_package_and_ships_every_file_of_the_shipped_folders() -> None:
    """pyproject.toml names pbem's packages one by one (``packages.find`` cannot see the mapped templates/ and
    migrations/): a package or folder missing from the list would be missing from the wheel."""
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    mapped = {"pbem": "pbem", "pbem.templates": "templates", "pbem.migrations": "migrations", "pbem.docs": "docs"}
    assert setuptools["package-dir"] == mapped
    expected = set()
    for package, folder in mapped.items():
        if package != "pbem":
            assert (ROOT / folder / "__init__.py").is_file(), f"{folder}/__init__.py: importlib.resources needs it"
        for directory in [ROOT / folder, *sorted((ROOT / folder).rglob("*"))]:
            if directory.is_dir() and directory.name != "__pycache__":
                expected.add(".".join([package, *directory.relative_to(ROOT / folder).parts]))
    assert sorted(setuptools["packages"]) == sorted(expected), "pyproject.toml's packages: " + ", ".join(
        sorted(set(setuptools["packages"]) ^ expected))
    globs = setuptools["package-data"]["*"]
    for folder in mapped.values():
        for path in (ROOT / folder).rglob("*"):
            if path.is_file() and path.suffix not in (".py", ".pyc"):
                assert any(fnmatch.fnmatch(path.name, glob) for glob in globs), f"{path} is not in package-data"


def test_the_version_comes_from_git_alone_into_a_file_git_ignores() -> None:
    """No version is written by hand: the in-tree backend finds it (CHANGELOG.md and git's history), setuptools-scm
    writes it into pbem/_version.py, which git must not keep (a kept one would be stale at the next commit).
    tests/e2e/test_packages.py builds and installs them."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in project["project"] and project["project"]["dynamic"] == ["version"]
    assert project["build-system"]["build-backend"] == "pbem_build"
    assert project["build-system"]["backend-path"] == ["build_backend"]
    assert "dynamic" not in project["tool"]["setuptools"], "a second source of the version"
    scm = project["tool"]["setuptools_scm"]
    assert scm["version_file"] == "pbem/_version.py"
    assert any(requirement.startswith("setuptools-scm") for requirement in project["build-system"]["requires"])
    if (ROOT / ".git").exists():  # (a tree unpacked from the sdist has no git to ask)
        ignored = subprocess.run(["git", "check-ignore", "--no-index", "-q", "pbem/_version.py"], cwd=ROOT,
                                 timeout=30)
        assert ignored.returncode == 0, "pbem/_version.py is not git-ignored"
        kept = subprocess.run(["git", "ls-files", "pbem/_version.py"], cwd=ROOT, capture_output=True, text=True,
                              timeout=30)
        assert kept.stdout == "", "pbem/_version.py is kept in git"


def test_a_source_tree_never_built_says_its_version_is_unknown(tmp_path: Path) -> None:
    """pbem/_version.py is written by a build; a tree put on PYTHONPATH without one still imports, with the
    version a build without git metadata gets (pyproject.toml's fallback_version)."""
    (tmp_path / "pbem").mkdir()
    shutil.copy(ROOT / "pbem" / "__init__.py", tmp_path / "pbem" / "__init__.py")
    # -S: without site-packages, whose editable install of pbem would find this tree's pbem/_version.py.
    found = subprocess.run([sys.executable, "-S", "-c", "import pbem; print(pbem.__file__, pbem.__version__)"],
                           env=dict(os.environ, PYTHONPATH=str(tmp_path)), cwd=tmp_path, capture_output=True, text=True,
                           timeout=60)
    assert found.returncode == 0, found.stderr
    where, version = found.stdout.split()
    assert Path(where) == tmp_path / "pbem" / "__init__.py"
    fallback = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools_scm"]["fallback_version"]
    assert version == fallback == "0.0+unknown"


def test_every_page_a_message_names_is_shipped() -> None:
    """Messages name pages of docs/ through resources.doc_page, which gives the installed copy's path: each page
    named is in docs/, which pyproject.toml installs as pbem.docs. No string of pbem's code but a docstring names
    a page by a bare path ('see docs/cli.md' means nothing to someone who installed the wheel)."""
    from pbem.resources import doc_page

    named = set()
    for path in sorted((ROOT / "pbem").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                      if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                      and node.body and isinstance(node.body[0], ast.Expr)
                      and isinstance(node.body[0].value, ast.Constant)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "doc_page":
                named.add(node.args[0].value)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
                assert not re.search(r"\bdocs/\w+\.md", node.value), f"{path}:{node.lineno}: {node.value[:80]}"
    assert named >= {"cli.md"}, named
    for page in named:
        assert (ROOT / "docs" / page).is_file(), page
        assert Path(doc_page(page)).is_file(), doc_page(page)
