"""`make release` packs what students get and nothing they must not see."""
from __future__ import annotations

import zipfile

from autograder import paths
from autograder.authoring.release import build_release
from tests.test_generated import solution_lines


def test_release_has_the_handout_and_no_solution_or_hidden_test(tmp_path):
    archive = build_release(tmp_path / "student.zip")
    with zipfile.ZipFile(archive) as packed:
        contents = {name: packed.read(name).decode("utf-8") for name in packed.namelist()}
    for name in paths.ASSIGNMENTS:
        for suffix in (f"{name}/{name}.ipynb", f"{name}/{name}.py", f"{name}/tests/"):
            assert any(n.startswith(f"attention-kit/{suffix}") for n in contents), suffix
        secret = solution_lines(name)
        for file, text in contents.items():
            assert not [line for line in secret if line in text], f"{file} holds solution code"
    for file, text in contents.items():
        assert "pytest.mark.points" not in text and "hidden=True" not in text, f"{file} holds a hidden test"
        assert "solutions/" not in file and "graders" not in file


def test_release_is_reproducible(tmp_path):
    first = build_release(tmp_path / "a.zip").read_bytes()
    assert build_release(tmp_path / "b.zip").read_bytes() == first
