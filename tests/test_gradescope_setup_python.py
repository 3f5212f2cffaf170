"""setup.sh checks the interpreter it is given before installing anything: too old a Python is named as the
cause in one sentence (not a resolver error about some dependency), and nothing is built."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder import paths

SETUP = paths.ROOT / "autograder" / "gradescope" / "files" / "setup.sh"


def fake_python(folder: Path, version: str) -> Path:
    python = folder / "python3"
    python.write_text(f"#!/bin/sh\necho {version}\n", encoding="utf-8")
    python.chmod(0o755)
    return python


def run_setup(root: Path, python: Path) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/bin:/bin", "AUTOGRADER_ROOT": str(root), "ATTNKIT_UV": "/bin/false",
           "ATTNKIT_PYTHON": str(python), "ATTNKIT_FIND_LINKS": str(root)}
    source = root / "source"  # laid out as in the autograder zip: requirements.txt beside setup.sh
    source.mkdir(exist_ok=True)
    shutil.copy(SETUP, source / "setup.sh")
    shutil.copy(paths.ROOT / "requirements.txt", source / "requirements.txt")
    return subprocess.run(["bash", str(source / "setup.sh")], env=env, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("version", ["3.11.2", "3.10.14", "3.11.4"])
def test_too_old_a_python_is_named_before_anything_is_installed(tmp_path, version):
    ran = run_setup(tmp_path, fake_python(tmp_path, version))
    assert ran.returncode == 1
    assert ran.stderr.strip() == (f"setup.sh: ATTNKIT_PYTHON={tmp_path / 'python3'} is Python {version}; the kit's "
                                  "pinned requirements need Python 3.11.5 or later.")
    assert not (tmp_path / "venv").exists()


@pytest.mark.parametrize("version", ["3.11.5", "3.11.10", "3.12.1"])
def test_a_recent_python_passes_the_check(tmp_path, version):
    ran = run_setup(tmp_path, fake_python(tmp_path, version))
    assert "need Python" not in ran.stderr  # it goes on, to the uv given (here /bin/false, which fails)
    assert ran.returncode != 0


def test_this_environment_s_python_passes(tmp_path):
    assert sys.version_info[:3] >= (3, 11, 5)  # the kit's own tests use it as setup.sh's interpreter
