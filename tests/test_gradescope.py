"""The Gradescope zip runs end to end in a Gradescope-like folder layout."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile

import pytest

from autograder.gradescope.build import build_zip
from tests.classroom import solution_text

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def autograder_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("gradescope") / "autograder"
    archive = build_zip(root.parent / "autograder.zip")
    with zipfile.ZipFile(archive) as packed:
        names = packed.namelist()
        packed.extractall(root)
    assert {"setup.sh", "run_autograder", "source/requirements.txt"} <= set(names)
    assert "source/autograder/graders/test_attention_scores.py" in names
    assert not [n for n in names if n.startswith(("source/tests/", "source/demo/"))]
    for script in ("setup.sh", "run_autograder"):
        os.chmod(root / script, 0o755)
    return root


def run_autograder(root, files: dict[str, str]) -> dict:
    submission, results = root / "submission", root / "results"
    for folder in (submission, results):
        if folder.exists():
            for path in folder.iterdir():
                path.unlink()
        folder.mkdir(exist_ok=True)
    for name, text in files.items():
        (submission / name).write_text(text, encoding="utf-8")
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), "AUTOGRADER_PYTHON": sys.executable}
    env.pop("PYTHONPATH", None)
    run = subprocess.run([str(root / "run_autograder")], env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads((results / "results.json").read_text(encoding="utf-8"))


def test_correct_submission_gets_full_code_marks(autograder_root):
    data = run_autograder(autograder_root, {"attention_scores.py": solution_text("attention_scores"),
                                            "single_head_attention.py": solution_text("single_head_attention")})
    code = [t for t in data["tests"] if "quiz" not in t["tags"]]
    assert code and all(t["score"] == t["max_score"] for t in code)
    for test in data["tests"]:
        assert {"name", "score", "max_score", "output", "visibility", "tags"} <= set(test)


def test_wrong_submission_loses_the_right_points(autograder_root):
    wrong = solution_text("attention_scores").replace("/ math.sqrt(d_k)", "/ d_k")
    data = run_autograder(autograder_root, {"attention_scores.py": wrong})
    by_name = {t["name"].split(":")[0]: t for t in data["tests"]}
    scaled = [t for t in data["tests"] if t["name"].startswith("scaled_dot_scores")]
    assert any(t["score"] < t["max_score"] and "sqrt(d_k)" in t["output"] for t in scaled)
    assert by_name["dot_scores"]["score"] == by_name["dot_scores"]["max_score"]
    assert "no single_head_attention.py" in data["output"]
    assert 0 < data["score"] < sum(t["max_score"] for t in data["tests"])
