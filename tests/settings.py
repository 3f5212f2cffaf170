"""The four settings the kit grades in, as tests reach them on this machine (docs/isolation.md).

- root-bwrap: bubblewrap as root (an instructor's machine, CI).
- user-bwrap: bubblewrap as a normal user.
- root-landlock: no namespaces, as root (a container, Gradescope): bubblewrap hidden.
- user-landlock: no namespaces, as a normal user (e.g. Ubuntu 24.04's restricted user namespaces).

Grading runs in a subprocess per setting (`python -m tests.settings CLASS OUT MODE`), so that the
environment (bubblewrap hidden or not) and the user are those of the setting. Running as root, the
normal user is a uid with no account (USER_UID); it cannot read a Python installed under /root or a
checkout in a 0700 folder, so it gets a portable copy: a virtual environment of the system's
python3.11 whose site-packages are hard links to ours, and a copy of the kit's files.
"""
from __future__ import annotations

import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from autograder import paths
from autograder.sandbox.isolation import bwrap_works, landlock_abi

ROOT = os.getuid() == 0
USER_UID = 61017          # the unprivileged user tests run as when they are root
SYSTEM_PYTHON = "/usr/bin/python3.11"
KIT_PARTS = ("autograder", "solutions", "assignments", "quizzes", "tests", "demo", "pyproject.toml", "pytest.ini")


@dataclass(frozen=True)
class Setting:
    name: str
    user: bool          # an unprivileged user grades
    namespaces: bool    # bubblewrap is there

    @property
    def mode(self) -> str:
        return "bwrap" if self.namespaces else "landlock"

    @property
    def code(self) -> str:  # two letters, for the names of the files and processes attacks make
        return ("u" if self.user else "r") + self.mode[0]


SETTINGS = (Setting("root-bwrap", False, True), Setting("user-bwrap", True, True),
            Setting("root-landlock", False, False), Setting("user-landlock", True, False))


def environment(setting: Setting, extra: dict | None = None) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "ATTNKIT_BWRAP")}
    if not setting.namespaces:
        env["ATTNKIT_BWRAP"] = ""  # namespaces unavailable, as in a container
    if setting.user and ROOT:
        env.update(HOME="/tmp", USER="attnkit-test", LOGNAME="attnkit-test")
    return {**env, **(extra or {})}


def link_or_copy(source, target) -> None:
    try:
        os.link(source, target)
    except OSError:  # another file system
        shutil.copy2(source, target)


@lru_cache(maxsize=None)
def portable() -> tuple[str, str]:
    """(python, kit folder) that USER_UID can use: built once per session when we are root."""
    base = Path(tempfile.mkdtemp(prefix="attnkit-portable-"))
    base.chmod(0o755)
    atexit.register(shutil.rmtree, base, True)
    venv = base / "venv"
    subprocess.run([SYSTEM_PYTHON, "-m", "venv", "--without-pip", str(venv)], check=True)
    ours = next(Path(p) for p in sys.path if p.endswith("site-packages") and Path(p, "torch").is_dir())
    theirs = next(venv.glob("lib/python3*/site-packages"))
    for entry in ours.iterdir():  # everything but the kit's own (editable) install
        if entry.name.startswith(("__editable__", "attention_kit")) or entry.name == "__pycache__":
            continue
        target = theirs / entry.name
        if entry.is_dir():
            shutil.copytree(entry, target, copy_function=link_or_copy, symlinks=True, dirs_exist_ok=True)
        else:
            link_or_copy(entry, target)
    kit = base / "kit"
    for part in KIT_PARTS:
        source = paths.ROOT / part
        if source.is_dir():
            shutil.copytree(source, kit / part, ignore=shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints"))
        elif source.exists():
            kit.mkdir(exist_ok=True)
            shutil.copy2(source, kit / part)
    for folder in [base, *base.rglob("*")]:
        if folder.is_dir() and not folder.is_symlink():
            folder.chmod(folder.stat().st_mode | 0o755)
    return str(venv / "bin" / "python"), str(kit)


def python_and_kit(setting: Setting, readable: bool = False) -> tuple[str, str]:
    """The interpreter and kit a setting's grading runs from; `readable`: one that other users can read."""
    if ROOT and (setting.user or readable):
        return portable()
    return sys.executable, str(paths.ROOT)


def run(setting: Setting, args: list[str], extra_env: dict | None = None, timeout: float = 3600,
        readable: bool = False, **options) -> subprocess.CompletedProcess:
    """`python ARGS` in the setting: as its user, with bubblewrap hidden where it has none."""
    python, kit = python_and_kit(setting, readable)
    env = environment(setting, {"PYTHONPATH": kit, **(extra_env or {})})
    user = {"user": USER_UID, "group": USER_UID, "extra_groups": []} if setting.user and ROOT else {}
    return subprocess.run([python, *args], cwd=kit, env=env, capture_output=True, text=True, timeout=timeout,
                          **user, **options)


def workspace(setting: Setting) -> Path:
    """A folder the setting's user may write in (under a 0755 folder, as class folders usually are)."""
    base = Path(tempfile.mkdtemp(prefix=f"attnkit-{setting.name}-"))
    base.chmod(0o755)
    if setting.user and ROOT:
        os.chown(base, USER_UID, USER_UID)
    return base


def give(folder: Path, setting: Setting) -> None:
    """Hand a folder the test made over to the setting's user."""
    if setting.user and ROOT:
        for path in [folder, *folder.rglob("*")]:
            os.chown(path, USER_UID, USER_UID, follow_symlinks=False)


@lru_cache(maxsize=None)
def unavailable(setting: Setting) -> str | None:
    """Why this machine cannot test the setting, or None."""
    if not setting.user and not ROOT:
        return "needs root"
    if setting.user and ROOT and not Path(SYSTEM_PYTHON).exists():
        return f"no {SYSTEM_PYTHON} for the unprivileged user"
    if not setting.namespaces:
        return None if landlock_abi() else "no Landlock on this kernel"
    if not setting.user or not ROOT:
        ok, why = bwrap_works()
        return None if ok else why
    probe = run(setting, ["-c", "from autograder.sandbox.isolation import bwrap_works; print(bwrap_works())"])
    return None if probe.stdout.startswith("(True") else f"bubblewrap as a normal user: {probe.stdout or probe.stderr}"


def grade_in(setting: Setting, classdir: Path, out: Path, workers: int = 2, extra_env: dict | None = None,
             timeout: float = 3600) -> subprocess.CompletedProcess:
    return run(setting, ["-m", "tests.settings", str(classdir), str(out), setting.mode, str(workers)],
               extra_env, timeout)


def main(classdir: str, out: str, mode: str, workers: str) -> None:
    from autograder.grading.runner import grade_class

    results = grade_class(Path(classdir), Path(out), workers=int(workers), isolation=mode)
    print(json.dumps({"graded": len(results), "uid": os.getuid()}))


if __name__ == "__main__":
    main(*sys.argv[1:])
