"""The Gradescope zip deploys as Gradescope deploys it, and grades with the isolation a container allows.

Once per session: build the zip; unpack its contents into a fresh `autograder/source` and copy
`run_autograder` beside it, exactly as Gradescope does; run `setup.sh` into a fresh virtual
environment with no development install of the kit. Offline here: setup.sh's own switches point uv
at a folder of wheels repacked from this environment (tests/wheelhouse.py) and at a local Python,
(the interpreter this environment was made from) instead of PyPI, PyTorch's CPU index and uv's Python
downloads. Then, with bubblewrap hidden (a
container without user namespaces, as on Gradescope), run `run_autograder` on submissions.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml

from autograder import paths
from autograder.gradescope.build import build_zip
from tests import adversarial
from tests.adversarial import read_reference
from tests.classroom import solution_text, stub_text
from tests.markdown_read import shown_text
from tests.wheelhouse import build as build_wheelhouse

pytestmark = pytest.mark.slow
UV = Path(sys.executable).with_name("uv")


@pytest.fixture(scope="module")
def autograder_root(tmp_path_factory):
    base = tmp_path_factory.mktemp("gradescope")
    base.chmod(0o755)
    root = base / "autograder"
    archive = build_zip(base / "autograder.zip")
    with zipfile.ZipFile(archive) as packed:
        names = packed.namelist()
        packed.extractall(root / "source")  # Gradescope: the zip's contents go into /autograder/source
    assert {"setup.sh", "run_autograder", "requirements.txt"} <= set(names)
    assert "autograder/graders/test_attention_scores.py" in names
    assert not [n for n in names if n.startswith(("tests/", "demo/", "source/")) and n != "source/course.yaml"]
    shipped = (root / "source" / "requirements.txt").read_text(encoding="utf-8")
    assert "torch==" in shipped and "playwright" not in shipped  # the tests' browser driver stays out
    for script in ("setup.sh", "run_autograder"):
        os.chmod(root / "source" / script, 0o755)  # zipfile does not restore modes
    shutil.copy2(root / "source" / "run_autograder", root / "run_autograder")
    if not UV.exists():
        pytest.skip("uv is not installed in this environment (make setup installs it)")
    python = getattr(sys, "_base_executable", sys.executable)  # the interpreter our own environment was made from
    links = build_wheelhouse(base / "wheels")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(base), "AUTOGRADER_ROOT": str(root),
           "ATTNKIT_UV": str(UV), "ATTNKIT_PYTHON": python, "UV_CACHE_DIR": str(base / "uv-cache"),
           "ATTNKIT_FIND_LINKS": ":".join(map(str, links))}
    setup = subprocess.run(["bash", str(root / "source" / "setup.sh")], cwd=root / "source", env=env,
                           capture_output=True, text=True, timeout=3600)
    assert setup.returncode == 0, setup.stdout[-2000:] + setup.stderr[-3000:]
    assert "torch 2.13.0+cpu" in setup.stdout
    shutil.rmtree(base / "wheels")
    shutil.rmtree(base / "uv-cache", ignore_errors=True)
    venv = root / "venv" / "bin" / "python"
    probe = subprocess.run([str(venv), "-c", "import importlib.util as u; print(u.find_spec('autograder'))"],
                           cwd="/", capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"})
    assert probe.stdout.strip() == "None", "the kit must not be installed into the environment"
    return root


def run_autograder(root: Path, files: dict[str, str]) -> tuple[dict, str]:
    submission, results = root / "submission", root / "results"
    for folder in (submission, results):
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir()
    for name, text in files.items():
        (submission / name).parent.mkdir(parents=True, exist_ok=True)
        (submission / name).write_text(text, encoding="utf-8")
    env = {"PATH": "/usr/bin:/bin", "HOME": "/root" if os.getuid() == 0 else str(root),
           "AUTOGRADER_ROOT": str(root), "ATTNKIT_BWRAP": ""}  # a container: no namespaces
    run = subprocess.run([str(root / "run_autograder")], env=env, capture_output=True, text=True, timeout=1800)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    return json.loads((results / "results.json").read_text(encoding="utf-8")), run.stdout


def code_tests(data: dict) -> list[dict]:
    return [t for t in data["tests"] if "quiz" not in t["tags"] and "isolation" not in t["tags"]]


def test_the_kit_is_readable_by_root_only(autograder_root):
    stamps = list((autograder_root / "source" / ".cache" / "quiz-checked").iterdir())
    assert len(stamps) == len(list((autograder_root / "source" / "quizzes").glob("*.yaml"))), \
        "setup.sh checks the quiz files once, so that no submission checks them again"
    for part in ("solutions", "autograder/graders", "quizzes", ".cache"):
        mode = (autograder_root / "source" / part).stat().st_mode
        assert mode & 0o077 == 0, f"{part} is readable by others: {oct(mode)}"


def test_solution_gets_full_code_marks_and_the_instructor_sees_the_isolation(autograder_root):
    """Handed in as the unzipped handout folder (one folder per assignment inside it): found and graded
    as if it were flat."""
    files = {f"attention-kit/{a}/{a}.py": solution_text(a) for a in paths.ASSIGNMENTS}
    data, stdout = run_autograder(autograder_root, files)
    code = code_tests(data)
    assert code and all(t["score"] == t["max_score"] for t in code)
    assert "graded as if handed in at the top" in shown_text(data["output"])
    for test in data["tests"]:
        assert {"name", "score", "max_score", "output", "visibility", "tags"} <= set(test)
    assert "sandbox: no namespaces" in stdout and "Landlock" in stdout
    hidden = [t for t in data["tests"] if "isolation" in t["tags"]]
    assert len(hidden) == 1 and hidden[0]["visibility"] == "hidden" and "Landlock" in hidden[0]["output"]
    assert hidden[0]["max_score"] == 0 and data["stdout_visibility"] == "hidden"
    assert data["extra_data"]["isolation"] == "landlock"


def test_a_student_sees_no_quiz_key_before_the_due_date(autograder_root):
    """An empty quiz and a wrong one are handed in with stubs (a student fishing for the key): nothing
    visible now holds a key or an explanation; the quiz entries carry them, released after the due date."""
    from autograder.grading.quizzes import load_class_quizzes

    quizzes = load_class_quizzes()
    wrong = {q.id: (not q.answer) for q in quizzes[0].questions if q.type == "true_false"}
    files = {f"{a}.py": stub_text(a) for a in paths.ASSIGNMENTS}
    files[f"quiz_{quizzes[0].id}.yaml"] = "".join(f"{k}: {str(v).lower()}\n" for k, v in wrong.items())
    files.update({f"quiz_{q.id}.yaml": "{}\n" for q in quizzes[1:]})
    data, _ = run_autograder(autograder_root, files)
    visible = "\n".join(t["name"] + " " + shown_text(t["output"]) for t in data["tests"]
                        if t["visibility"] == "visible")
    visible += shown_text(data["output"])
    keys = [t.strip() for q in quizzes for i in q.questions for t in (i.correct_answer_text(), i.explanation)
            if t and len(t.strip()) >= 4]
    assert not [k for k in keys if k in visible]
    released = [t for t in data["tests"] if t["name"] in {f"quiz {q.id}" for q in quizzes}]
    assert len(released) == len(quizzes) and {t["visibility"] for t in released} == {"after_due_date"}
    assert any(k in shown_text(t["output"]) for t in released for k in keys)  # shown once the due date has passed
    assert all(f"quiz {q.id}: answers received" in visible for q in quizzes)


def test_untouched_handout_scores_zero(autograder_root):
    data, _ = run_autograder(autograder_root, {f"{a}.py": stub_text(a) for a in paths.ASSIGNMENTS})
    assert sum(t["score"] for t in code_tests(data)) == 0
    shown = shown_text(data["output"])  # as Gradescope renders it (Markdown)
    *others, last = paths.ASSIGNMENTS
    assert shown.count(f"You handed in the blank handout of {', '.join(others)} and {last}") == 1
    assert "Fill in each raise NotImplementedError(...) line" in shown  # the code span renders as code


def test_copying_the_reference_from_disk_scores_zero(autograder_root):
    code = adversarial.render(read_reference.CODE, {"__KIT_DIR__": str(autograder_root / "source")})
    code += ('\nif "reference" not in _found:  # report what the search found where Gradescope shows it\n'
             '    def attention(Q, K, V, mask=None):\n'
             '        raise RuntimeError("searched; found: %r" % sorted(_found))\n')
    data, _ = run_autograder(autograder_root, {"single_head_attention.py": code})
    said = json.dumps(data) + "\n".join(shown_text(entry["output"]) for entry in [data, *data["tests"]])
    assert adversarial.LEAK not in said
    assert "searched; found: []" in said
    assert sum(t["score"] for t in code_tests(data)) == 0


def test_review_decisions_reach_gradescope_in_a_regrade(autograder_root, tmp_path):
    """The round trip: Gradescope grades (free-text quiz answers pending, said so to the student) -> the
    instructor exports the submissions (a group among them), grades the export with `attnkit grade`, scores
    the pending answers in review.yaml -> `attnkit gradescope --review OUT` bundles the decisions into the zip
    -> Gradescope unpacks it and regrades every submission: the reviewed points are in the scores, and each
    student reads what changed."""
    from tests.platforms import gradescope_export

    answers = {"ada": "how strongly query i likes key j", "alan": "the affinity of q_i for k_j"}
    handed_in = {student: {**{f"{a}.py": stub_text(a) for a in paths.ASSIGNMENTS},
                           "quiz_attention_score.yaml": f"sc-01: |-\n  {text}\n"} for student, text in answers.items()}
    regraded = "ada"  # Gradescope runs each submission alike: one is enough to show the round trip
    before = {regraded: run_autograder(autograder_root, handed_in[regraded])[0]}
    for data in before.values():  # read as Gradescope renders it (Markdown)
        assert "2 quiz points wait for your instructor's review" in shown_text(data["output"])
        assert "does not count them yet" in shown_text(data["output"])
        quiz = next(t for t in data["tests"] if t["name"] == "quiz attention_score")
        assert "2 of these points wait for your instructor's review" in shown_text(quiz["output"])

    # The instructor's side: Gradescope's "Export Submissions" (ada submitted with a partner), graded and reviewed.
    for student, files in handed_in.items():
        for name, text in files.items():
            (tmp_path / "class" / student / name).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / "class" / student / name).write_text(text, encoding="utf-8")
    export = gradescope_export(tmp_path / "export", tmp_path / "class", groups={"ada": ["barbara lee"]})
    out = tmp_path / "out"
    attnkit = [sys.executable, "-m", "autograder.cli"]
    graded = subprocess.run([*attnkit, "grade", str(export), "--out", str(out), "--workers", "1"], cwd=paths.ROOT,
                            capture_output=True, text=True, timeout=900)
    assert graded.returncode == 0, graded.stderr[-3000:]
    assert subprocess.run([*attnkit, "review", "--file", str(out)], cwd=paths.ROOT, capture_output=True,
                          timeout=300).returncode == 0
    review = out / "review.yaml"
    document = yaml.safe_load(review.read_text(encoding="utf-8"))
    groups = document["attention_score"]["sc-01"]["groups"]
    assert sorted(len(g["students"]) for g in groups) == [1, 2]  # ada and her partner share one answer
    decided = {}
    for group in groups:
        group["score"] = 1.5 if "likes" in group["answers"][0] else 0.5
        decided[group["answers"][0]] = group["score"]
    review.write_text(yaml.safe_dump(document), encoding="utf-8")

    # `make gradescope OUT=...`: the same zip plus the decisions.
    plain, bundled = build_zip(tmp_path / "plain.zip"), tmp_path / "bundled.zip"
    built = subprocess.run([*attnkit, "gradescope", "--out", str(bundled), "--review", str(out)], cwd=paths.ROOT,
                           capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr
    assert "with 2 review decision(s)" in " ".join(built.stderr.split()) and "Regrade all submissions" in built.stderr
    with zipfile.ZipFile(plain) as a, zipfile.ZipFile(bundled) as b:
        assert set(b.namelist()) - set(a.namelist()) == {"review.yaml"}
        assert all(a.read(n) == b.read(n) for n in a.namelist())
        b.extract("review.yaml", autograder_root / "source")  # Gradescope unpacks the new zip into source/
    try:
        after = {regraded: run_autograder(autograder_root, handed_in[regraded])[0]}
    finally:
        (autograder_root / "source" / "review.yaml").unlink()
    for student, data in after.items():
        gained = decided[answers[student]]
        assert data["score"] == pytest.approx(before[student]["score"] + gained)
        shown = shown_text(data["output"])
        assert "wait for your instructor's review" not in shown
        assert "Quiz attention_score: your instructor has scored 1 answer the grader left to a person; your score " \
               "includes the points given, which the quiz's entry shows after the due date." in shown
        quiz = next(t for t in data["tests"] if t["name"] == "quiz attention_score")
        assert f"sc-01: {gained:g}/2" in shown_text(quiz["output"])
        assert "(graded by your instructor)" in shown_text(quiz["output"])
        visible = "\n".join(t["output"] for t in data["tests"] if t["visibility"] == "visible") + data["output"]
        assert f"{gained:g}/2" not in visible  # the reviewed score itself is released with the keys


def test_a_review_file_grading_would_read_only_in_part_is_not_bundled(tmp_path):
    (tmp_path / ".state").mkdir()
    (tmp_path / "review.yaml").write_text("attention_score:\n  sc-01:\n    groups:\n    - score: 9\n"
                                          "      answers: [x]\n", encoding="utf-8")
    built = subprocess.run([sys.executable, "-m", "autograder.cli", "gradescope", "--out", str(tmp_path / "z.zip"),
                            "--review", str(tmp_path)], cwd=paths.ROOT, capture_output=True, text=True, timeout=300)
    assert built.returncode == 2 and not (tmp_path / "z.zip").exists()
    assert "score 9 is not a number from 0 to 2" in built.stderr
