"""Releases as pip sees them (issue 33, points 2 and 5; issue 45, point 1): versions from CHANGELOG.md and git's
history without tags, and complete, clean packages.

A clone of this repository, its tags deleted (the clones others make carry none), is built as it is; then it gets a
release heading in CHANGELOG.md in one commit, as deploy/README.md cuts a release, and then one commit more (an
empty one, so the two trees hold the same files). The release commit is built as deploy/README.md builds a release
(``python -m build``: the sdist, then the wheel from that sdist), the other two straight from their tree
(``--wheel``). The builds run without build isolation, on this environment's setuptools and setuptools-scm (the
test extra) and the in-tree backend (build_backend/), so nothing is downloaded.

The wheels go into a virtualenv of their own with nothing else in it: `pbem --version` needs none of pbem's
dependencies (pbem/cli/__init__.py answers it before loading the command tree), and pip installs offline
(``--no-index --no-deps``). About 15 s for the three builds and the installs.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from dataclasses import dataclass
from email.parser import HeaderParser
from pathlib import Path

import pytest

pytestmark = pytest.mark.xdist_group("packages")  # its module-scoped builds are made once, on one worker

ROOT = Path(__file__).resolve().parents[2]
NEWEST_RELEASE = re.compile(r"^## \[(\d+)\.(\d+)\.(\d+)\] - ", re.M)  # CHANGELOG.md's first release heading
RELEASE = "7.1.0"  # a version no real release has, so nothing but this test's heading can give it
LATER = re.compile(r"7\.1\.1\.dev1")  # the next patch, one commit on: no local part (+g<hash>), which an index refuses
IDENTITY = {"GIT_AUTHOR_NAME": "pbem tests", "GIT_AUTHOR_EMAIL": "tests@example.invalid",
            "GIT_COMMITTER_NAME": "pbem tests", "GIT_COMMITTER_EMAIL": "tests@example.invalid"}


def environment() -> dict[str, str]:
    """This environment without anything that would choose the version instead of git."""
    return {name: value for name, value in os.environ.items() if not name.startswith("SETUPTOOLS_SCM_")} | IDENTITY


def run(*command: str | Path, cwd: Path, timeout: int = 300) -> str:
    proc = subprocess.run([str(part) for part in command], cwd=cwd, env=environment(), capture_output=True,
                          text=True, timeout=timeout)
    assert proc.returncode == 0, f"{command}: {proc.stdout[-3000:]}{proc.stderr[-3000:]}"
    return proc.stdout


@dataclass
class Releases:
    clone: Path
    sdist: Path  # of the tag
    wheel: Path  # of the tag, built from its sdist
    later: Path  # of the later commit, built from its tree
    plain: Path  # of the clone as it came, built from its tree
    plain_commits: int  # since the commit that added the newest release heading of CHANGELOG.md
    tracked: set[str]  # the files git keeps, in both commits


@pytest.fixture(scope="module")
def releases(tmp_path_factory: pytest.TempPathFactory) -> Releases:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        if os.environ.get("CI") == "true":
            pytest.fail("git and this repository's .git are needed to build versions from git")
        pytest.skip("git or this repository's .git is missing (a tree unpacked from an sdist)")
    work = tmp_path_factory.mktemp("releases")
    clone = work / "clone"
    run("git", "clone", "--quiet", ROOT, clone, cwd=work)
    # This tree's commit: a clone of a git worktree checks out the main repository's HEAD instead.
    run("git", "checkout", "--quiet", "-B", "tested", run("git", "rev-parse", "HEAD", cwd=ROOT).strip(), cwd=clone)
    for tag in run("git", "tag", "--list", cwd=clone).split():
        run("git", "tag", "--delete", tag, cwd=clone)
    run(sys.executable, "-m", "build", "--no-isolation", "--wheel", "--outdir", work / "plain", clone, cwd=work)
    newest = NEWEST_RELEASE.search((clone / "CHANGELOG.md").read_text())
    assert newest, "CHANGELOG.md names no release"
    (added, *_) = run("git", "log", "--format=%H", "--reverse", "-S", newest.group(0), "--", "CHANGELOG.md",
                      cwd=clone).split()
    plain_commits = int(run("git", "rev-list", "--count", f"{added}..HEAD", cwd=clone))
    changelog = (clone / "CHANGELOG.md").read_text()
    (clone / "CHANGELOG.md").write_text(changelog.replace(newest.group(0), f"## [{RELEASE}] - 2026-12-01\n\n"
                                                          f"### Fixed\n- A release of the tests.\n\n{newest.group(0)}", 1))
    run("git", "commit", "--quiet", "-am", f"pbem {RELEASE}", cwd=clone)
    run(sys.executable, "-m", "build", "--no-isolation", "--outdir", work / "tag", clone, cwd=work)
    run("git", "commit", "--quiet", "--allow-empty", "-m", "A later commit", cwd=clone)
    run(sys.executable, "-m", "build", "--no-isolation", "--wheel", "--outdir", work / "later", clone, cwd=work)
    (sdist,) = (work / "tag").glob("*.tar.gz")
    (wheel,) = (work / "tag").glob("*.whl")
    (later,) = (work / "later").glob("*.whl")
    (plain,) = (work / "plain").glob("*.whl")
    return Releases(clone, sdist, wheel, later, plain, plain_commits, set(run("git", "ls-files", cwd=clone).splitlines()))


def wheel_files(wheel: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(wheel) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def metadata(wheel: Path) -> list[tuple[str, str]]:
    (name,) = [name for name in wheel_files(wheel) if name.endswith(".dist-info/METADATA")]
    return HeaderParser().parsestr(wheel_files(wheel)[name].decode()).items()


def version_of(wheel: Path) -> str:
    return wheel.name.removeprefix("pbem-").removesuffix("-py3-none-any.whl")


def test_a_release_heading_is_a_release_version_and_a_later_commit_a_dev_version_of_the_next(
        releases: Releases) -> None:
    assert releases.sdist.name == f"pbem-{RELEASE}.tar.gz"
    assert releases.wheel.name == f"pbem-{RELEASE}-py3-none-any.whl"
    assert wheel_files(releases.wheel)["pbem/_version.py"].decode().splitlines()[-1] == f'__version__ = "{RELEASE}"'
    assert LATER.fullmatch(version_of(releases.later)), releases.later.name


def test_a_clone_without_tags_builds_above_every_release_of_the_changelog(releases: Releases) -> None:
    """Without tags setuptools-scm alone gave 0.1.devN+unknown.g<hash>: below 0.1.0, and refused by an index."""
    from packaging.version import Version

    version = Version(version_of(releases.plain))
    changelog = (ROOT / "CHANGELOG.md").read_text()
    released = [Version(".".join(found)) for found in NEWEST_RELEASE.findall(changelog)]
    assert len(released) >= 5 and version > max(released) and not version.local, version
    newest = max(released)
    assert releases.plain_commits > 0
    assert str(version) == f"{newest.major}.{newest.minor}.{newest.micro + 1}.dev{releases.plain_commits}"
    # One commit more is a version more, the release's commit above every dev version before it.
    assert Version(version_of(releases.later)) > Version(RELEASE) > version


def test_the_version_of_a_tree_rises_along_its_history_and_a_shallow_clone_is_refused(releases: Releases,
                                                                                     tmp_path: Path) -> None:
    script = [sys.executable, str(releases.clone / "build_backend" / "pbem_version.py")]
    branch = run("git", "branch", "--show-current", cwd=releases.clone).strip()
    seen = []
    for back in (2, 1, 0):  # the commit cloned, the release, the commit after it
        run("git", "checkout", "--quiet", "--detach", f"{branch}~{back}", cwd=releases.clone)
        seen.append(run(*script, cwd=releases.clone).strip())
    run("git", "checkout", "--quiet", branch, cwd=releases.clone)
    assert seen[-2:] == [RELEASE, "7.1.1.dev1"], seen
    from packaging.version import Version

    assert [Version(version) for version in seen] == sorted(Version(version) for version in seen), seen
    assert len(set(seen)) == 3 and seen[0] == version_of(releases.plain), seen
    shallow = tmp_path / "shallow"
    run("git", "clone", "--quiet", "--depth", "2", releases.clone.as_uri(), shallow, cwd=tmp_path)
    proc = subprocess.run([sys.executable, str(shallow / "build_backend" / "pbem_version.py")], cwd=shallow,
                          capture_output=True, text=True, timeout=60, env=environment())
    assert proc.returncode == 1 and proc.stderr.startswith("error: ") and "--unshallow" in proc.stderr, proc


def test_the_newer_wheel_installed_over_the_older_one_replaces_it(releases: Releases, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=tmp_path)
    python, pbem = venv / "bin" / "python", venv / "bin" / "pbem"
    site_packages = Path(run(python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))",
                             cwd=tmp_path).strip())

    def install(wheel: Path) -> str:
        return run(sys.executable, "-m", "pip", "--python", python, "install", "--no-index", "--no-deps",
                   "--no-compile", "--disable-pip-version-check", wheel, cwd=tmp_path)

    install(releases.wheel)
    assert run(pbem, "--version", cwd=tmp_path) == f"pbem {RELEASE}\n"
    installed = install(releases.later)
    later = LATER.search(releases.later.name)
    assert later
    assert run(pbem, "--version", cwd=tmp_path) == f"pbem {later.group(0)}\n"
    assert f"Successfully uninstalled pbem-{RELEASE}" in installed, installed
    assert sorted(path.name for path in site_packages.glob("pbem-*.dist-info")) == [
        f"pbem-{later.group(0)}.dist-info"]
    # The page the error messages name is the installed one.
    page = Path(run(python, "-c", "from pbem.resources import doc_page; print(doc_page('cli.md'))", cwd=tmp_path)
                .strip())
    assert page == site_packages / "pbem" / "docs" / "cli.md" and page.is_file(), page


def test_the_sdist_holds_every_file_git_keeps_and_nothing_else_but_what_the_build_adds(releases: Releases) -> None:
    top = f"pbem-{RELEASE}/"
    with tarfile.open(releases.sdist) as sdist:
        files = {member.name.removeprefix(top) for member in sdist.getmembers() if member.isfile()}
    assert releases.tracked <= files, sorted(releases.tracked - files)[:20]
    added = files - releases.tracked
    assert added == {"PKG-INFO", "setup.cfg", "pbem/_version.py"} | {
        name for name in added if name.startswith("pbem.egg-info/")}, sorted(added)
    for folder in ("tests/", "docs/", "deploy/", "bench/", "pbem_testing/", "migrations/", "templates/"):
        assert any(name.startswith(folder) for name in files), folder
    assert {"LICENSE", "CHANGELOG.md", "README.md", "pyproject.toml", ".ci/run"} <= files


def test_the_wheel_built_from_the_sdist_is_the_wheel_built_from_the_tree(releases: Releases) -> None:
    """The two commits hold the same files, so the wheels differ in their version alone."""
    later = LATER.search(releases.later.name)
    assert later

    def comparable(wheel: Path, version: str) -> dict[str, bytes]:
        files = {name.replace(f"pbem-{version}.dist-info/", "pbem.dist-info/"): data
                 for name, data in wheel_files(wheel).items()}
        # What names the version: the version file, and METADATA's Version line. RECORD hashes both.
        del files["pbem/_version.py"], files["pbem.dist-info/RECORD"]
        files["pbem.dist-info/METADATA"] = files["pbem.dist-info/METADATA"].replace(
            f"\nVersion: {version}\n".encode(), b"\n")
        return files

    from_sdist, from_tree = comparable(releases.wheel, RELEASE), comparable(releases.later, later.group(0))
    assert sorted(from_sdist) == sorted(from_tree), sorted(set(from_sdist) ^ set(from_tree))
    assert [name for name in from_sdist if from_sdist[name] != from_tree[name]] == []


def test_the_wheel_ships_pbem_and_its_files_alone_with_its_license_and_metadata(releases: Releases) -> None:
    files = wheel_files(releases.wheel)
    info = f"pbem-{RELEASE}.dist-info/"
    assert {name.split("/")[0] + "/" for name in files} == {"pbem/", info}, "a top-level package besides pbem"
    assert not [name for name in files if name.startswith(("pbem/testing/", "pbem_testing/", "tests/"))]
    assert {"pbem/docs/cli.md", "pbem/docs/rules.md", "pbem/templates/mail/notice.txt.j2",
            "pbem/migrations/env.py", f"{info}licenses/LICENSE"} <= set(files)
    assert files[f"{info}licenses/LICENSE"] == (releases.clone / "LICENSE").read_bytes()
    fields = metadata(releases.wheel)
    values = lambda name: [value for key, value in fields if key == name]  # noqa: E731
    assert values("License-Expression") == ["MIT"] and values("License-File") == ["LICENSE"]
    classifiers = values("Classifier")
    for minor in ("3.11", "3.12", "3.13"):
        assert f"Programming Language :: Python :: {minor}" in classifiers
    assert {"Topic :: Games/Entertainment :: Board Games", "Topic :: Communications :: Email"} <= set(classifiers)
    urls = dict(value.split(", ", 1) for value in values("Project-URL"))
    assert set(urls) == {"Homepage", "Documentation", "Changelog", "Issues"}, urls
    # PostgreSQL's driver is the postgresql extra's, not a dependency of every installation.
    assert "postgresql" in values("Provides-Extra")
    drivers = [value for value in values("Requires-Dist") if value.startswith("psycopg")]
    assert drivers and all('extra == "postgresql"' in value for value in drivers), drivers
    # The demo's mail servers are the demo extra's: production installs go without them.
    assert "demo" in values("Provides-Extra")
    servers = [value for value in values("Requires-Dist") if value.startswith(("pymap", "aiosmtpd"))]
    assert len(servers) == 2 and all('extra == "demo"' in value for value in servers), servers


def test_a_postgresql_url_without_the_driver_is_one_error_line_naming_the_extra(tmp_path: Path) -> None:
    """As an installation without the postgresql extra runs: psycopg cannot be imported."""
    without_driver = "import sys; sys.modules['psycopg'] = None; from pbem.cli import main; main()"
    env = {name: value for name, value in os.environ.items() if not name.startswith("PBEM_")}
    proc = subprocess.run([sys.executable, "-c", without_driver, "--config", os.devnull,
                           "--db", "postgresql://pbem@127.0.0.1:5432/pbem", "db", "upgrade"],
                          env=dict(env, HOME=str(tmp_path)), cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert (proc.returncode, proc.stdout) == (1, ""), (proc.stdout, proc.stderr)
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    assert "pip install 'pbem[postgresql]'" in lines[0], lines


def test_the_demo_without_its_mail_servers_is_one_error_line_naming_the_extra(tmp_path: Path) -> None:
    """As an installation without the demo extra runs: pymap and aiosmtpd cannot be imported. Nothing is created."""
    without_servers = ("import sys; sys.modules['pymap'] = None; sys.modules['aiosmtpd'] = None; "
                       "from pbem.cli import main; main()")
    env = {name: value for name, value in os.environ.items() if not name.startswith("PBEM_")}
    proc = subprocess.run([sys.executable, "-c", without_servers, "--config", os.devnull,
                           "--db", "sqlite:///demo.sqlite3", "demo", "--players", "2"],
                          env=dict(env, HOME=str(tmp_path)), cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert (proc.returncode, proc.stdout) == (1, ""), (proc.stdout, proc.stderr)
    assert proc.stderr.splitlines() == ["error: pbem demo needs its mail servers, pymap and aiosmtpd, which come with "
                                        "the extra 'demo': pip install 'pbem[demo]'"], proc.stderr
    assert list(tmp_path.iterdir()) == []
