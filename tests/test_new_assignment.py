"""The next lesson without reading the engine: in a copy of the kit, a third assignment is one new master in
source/ and its quiz one new file in quizzes/ (tests/new_course/, written from docs/authoring.md). Nothing
else is edited: `attnkit assignments` generates the rest, and the class is graded with it, handed out and
packed for Gradescope, with its column, its points and its name everywhere the course's parts are listed.
Its two exercises (a function and an nn.Module) declare specs instead of hand-written probes: their edges and
draws are what grades, and a declared mistake is named in a student's feedback."""
from __future__ import annotations

import csv
import hashlib
import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from autograder import paths

pytestmark = pytest.mark.slow
NEW = Path(__file__).parent / "new_course"
NAME, QUIZ = "temperature", "temperature"
# What the kit needs to generate and grade; its own tests, benches and docs stay behind.
KIT = ("autograder", "source", "quizzes", "assignments", "solutions", "demo", "requirements.txt", "pyproject.toml")
GENERATED = ("assignments/", "solutions/", "autograder/graders/", "demo/submissions/")


def digests(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() for p in root.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts}


def environment(root: Path, home: Path) -> dict[str, str]:
    """The copy's engine, a home of its own, and one quiz-check cache for the module's copies (quiz/checked.py: a
    quiz text checked in full once is not run in the sandbox again)."""
    return {"PATH": "/usr/bin:/bin", "HOME": str(home), "PYTHONPATH": str(root), "COLUMNS": "400",
            "ATTNKIT_CACHE": str(root.parent / "quiz-cache")}


def kit(root: Path, *args: str) -> subprocess.CompletedProcess:
    """The copy's own command line (its engine, not this checkout's)."""
    run = subprocess.run([sys.executable, "-m", "autograder.cli", *args], cwd=root, capture_output=True, text=True,
                         env=environment(root, root.parent), timeout=900)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    return run


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    base = tmp_path_factory.mktemp("next-lesson")
    root = base / "kit"
    for part in KIT:
        source = paths.ROOT / part
        if source.is_dir():
            shutil.copytree(source, root / part, ignore=shutil.ignore_patterns("__pycache__", ".*"))
        else:
            shutil.copy2(source, root / part)
    before = digests(root)
    shutil.copy2(NEW / f"{NAME}.py", root / "source" / f"{NAME}.py")   # the instructor's two new files
    shutil.copy2(NEW / f"{QUIZ}.yaml", root / "quizzes" / f"{QUIZ}.yaml")
    generated = kit(root, "assignments")
    return root, before, generated


def test_a_new_master_and_quiz_need_no_other_edit(course):
    root, before, _ = course
    after = digests(root)
    changed = sorted(p for p in after if before.get(p) != after[p]) + sorted(set(before) - set(after))
    by_hand = [p for p in changed if p.startswith(("source/", "quizzes/"))]
    assert by_hand == [f"quizzes/{QUIZ}.yaml", f"source/{NAME}.py"]
    assert not [p for p in changed if p not in by_hand and not p.startswith(GENERATED)], changed
    for made in (f"assignments/{NAME}/{NAME}.ipynb", f"assignments/{NAME}/{NAME}.py", f"solutions/{NAME}/{NAME}.py",
                 f"assignments/{NAME}/tests/sharpen.py", f"assignments/{NAME}/tests/TemperatureAttention.py",
                 f"autograder/graders/test_{NAME}.py"):
        assert made in changed, made
    assert [p for p in changed if p.startswith("demo/submissions/") and NAME in p], "the demo class hands it in"


def test_the_generated_public_checks_pass_the_solution_and_fail_a_mistake(course, tmp_path):
    """The public checks written from the specs (their inputs and expected results) run as students run them."""
    root, _, _ = course
    twin = root / "solutions" / NAME / f"{NAME}.py"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONPATH": str(root)}
    right = subprocess.run([sys.executable, str(twin)], capture_output=True, text=True, env=env, timeout=300)
    assert right.returncode == 0 and "All 2 checks passed." in right.stdout, right.stdout[-2000:] + right.stderr[-2000:]
    wrong = tmp_path / NAME / f"{NAME}.py"
    wrong.parent.mkdir()
    wrong.write_text(twin.read_text(encoding="utf-8").replace("torch.softmax(scores, dim=-1) @ V",
                                                                "torch.softmax(scores, dim=-2) @ V")
                     .replace("../../assignments", str(root / "assignments")), encoding="utf-8")
    failed = subprocess.run([sys.executable, str(wrong)], capture_output=True, text=True, env=env, timeout=300)
    assert failed.returncode == 1 and "1 of 2 checks failed: TemperatureAttention" in failed.stdout, failed.stdout[-2000:]
    # a few lines, not the numbers: which call, the largest error and where, the hint, the declared mistake matched
    said = failed.stdout + failed.stderr
    assert "TemperatureAttention(" in said and "wrong values, largest error" in said, said[-3000:]
    assert "Your numbers match a known mistake: the softmax runs over the queries (dim=-2)" in said, said[-3000:]
    assert len(said) < 3000, said[-3000:]


def test_the_class_is_graded_on_the_new_assignment_and_quiz(course, tmp_path):
    root, _, _ = course
    solution = (root / "solutions" / NAME / f"{NAME}.py").read_text(encoding="utf-8")
    wrong = solution.replace("torch.softmax(scores / tau, dim=-1)", "torch.softmax(scores * tau, dim=-1)")
    wrong = wrong.replace("torch.softmax(scores, dim=-1) @ V", "torch.softmax(scores, dim=-2) @ V")
    # right, written otherwise: the derived float32 bound accepts it
    other = solution.replace("torch.softmax(scores / tau, dim=-1)", "(scores / tau).exp() / (scores / tau).exp()"
                             ".sum(-1, keepdim=True)")
    odd = solution.replace("torch.softmax(scores / tau, dim=-1)", "torch.softmax(scores / tau + 0.01 * scores, dim=-1)")
    assert len({solution, wrong, other, odd}) == 4
    answers = "t-01: a\nt-02: true\nt-03: 0.731\nt-04: e/tau\nt-05: torch.softmax(scores / tau, dim=-1)\n" \
              "t-06: it sharpens the weights\n"
    for student, text in (("ann", solution), ("bob", wrong), ("cy", other), ("dee", odd)):
        (tmp_path / "class" / student).mkdir(parents=True)
        (tmp_path / "class" / student / f"{NAME}.py").write_text(text, encoding="utf-8")
        (tmp_path / "class" / student / f"quiz_{QUIZ}.yaml").write_text(answers, encoding="utf-8")
    out = tmp_path / "out"
    kit(root, "grade", str(tmp_path / "class"), "--out", str(out), "--workers", "1",
        "--parts", f"{NAME},quiz:{QUIZ}")
    with open(out / "canvas.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert list(rows[0])[5:] == [f"{NAME} code", f"quiz {QUIZ}"]
    scores = {row["Student"]: (row[f"{NAME} code"], row[f"quiz {QUIZ}"]) for row in rows}
    assert scores == {"    Points Possible": ("4.00", "6.00"), "ann": ("4", "6"), "bob": ("0", "6"),  # as Canvas exports it
                      "cy": ("4", "6"), "dee": ("2", "6")}
    feedback = (out / "feedback" / "bob.md").read_text(encoding="utf-8")
    assert "divide by the temperature, do not multiply" in feedback  # the spec's hint
    # each declared mistake named, in its own sentence, where the student's numbers equal the edited reference's
    assert "the scores are multiplied by the temperature instead of divided by it" in feedback
    assert "the softmax runs over the queries (dim=-2), not over the keys (dim=-1)" in feedback
    odd_feedback = (out / "feedback" / "dee.md").read_text(encoding="utf-8")
    assert "multiplied by the temperature" not in odd_feedback and "over the queries" not in odd_feedback
    # the probes drawn: the failing call is named with what it probes, an edge here
    assert "sharpen(scores: float32 (" in feedback and "tau: float" in feedback, feedback
    assert "[sizes near the middle of their ranges]" in feedback.replace("\\", ""), feedback
    results = json.loads((out / "results" / "bob.json").read_text(encoding="utf-8"))
    lost = {t["name"] for t in results["tests"] if t["score"] == 0}
    for check in ("sharpen at the edges of its declared space", "sharpen on 6 seeded draws",
                  "TemperatureAttention at the edges of its declared space", "TemperatureAttention on 6 seeded draws"):
        assert [name for name in lost if check in name], (check, lost)
    # Graded with this lesson's parts alone: the course's other parts appear in no output.
    others = [name for name in paths.ASSIGNMENTS] + [f"quiz {q}" for q in ("attention", "attention_score")]
    for path in out.rglob("*"):
        if path.is_file() and ".state" not in path.parts:
            text = path.read_text(encoding="utf-8").replace("\\_", "_")
            assert not [name for name in others if name in text], path


def test_the_handout_and_the_gradescope_zip_hold_the_new_parts(course):
    root, _, _ = course
    kit(root, "release", "--out", str(root / "dist" / "handout.zip"))
    with zipfile.ZipFile(root / "dist" / "handout.zip") as archive:
        names = archive.namelist()
        readme = archive.read("attention-kit/README.md").decode("utf-8")
    assert f"attention-kit/{NAME}/{NAME}.ipynb" in names and f"attention-kit/quizzes/quiz_{QUIZ}.yaml" in names
    assert readme.startswith("# Attention exercises: student handout\n\nThree programming assignments and three "
                             "knowledge-check quizzes")
    assert f"`{NAME}.ipynb` **or** `{NAME}.py`" in readme and f"`sharpen` 2" in readme
    assert "`TemperatureAttention` 2" in readme
    with zipfile.ZipFile(root / "dist" / "handout.zip") as archive:
        handout = archive.read(f"attention-kit/{NAME}/{NAME}.ipynb").decode("utf-8")
    # the declared spec, said to students where the lesson is silent
    assert "`scores` is float32 of shape (..., T_k), with 1 to 3 leading dims, values from -8 to 8" in handout
    assert "`mask` is a bool mask of shape (B, T, T)" in handout
    kit(root, "gradescope", "--out", str(root / "dist" / "autograder.zip"))
    with zipfile.ZipFile(root / "dist" / "autograder.zip") as archive:
        names = set(archive.namelist())
    assert {f"autograder/graders/test_{NAME}.py", f"solutions/{NAME}/{NAME}.py", f"assignments/{NAME}/{NAME}.py",
            f"quizzes/{QUIZ}.yaml"} <= names


def test_a_spec_whose_mistake_no_check_catches_is_refused_before_anything_is_written(course, tmp_path):
    root, _, _ = course
    copy = tmp_path / "kit"
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns("dist", "__pycache__"))
    master = copy / "source" / f"{NAME}.py"
    master.write_text(master.read_text(encoding="utf-8").replace('"T_k": [1, 16]', '"T_k": [1, 1]'), encoding="utf-8")
    before = digests(copy)
    run = subprocess.run([sys.executable, "-m", "autograder.cli", "assignments"], cwd=copy, capture_output=True,
                         text=True, env={**environment(copy, tmp_path), "ATTNKIT_CACHE": str(root.parent / "quiz-cache")},
                         timeout=600)
    assert run.returncode == 2, run.stdout + run.stderr
    assert (run.stdout + run.stderr).strip() == (f"{NAME}.py: mistake temperature-multiplied of sharpen gives the reference's results "
                                  "on every one of its edges and draws probes, so no check can catch it: choose another edit or "
                                  "widen the spec."), run.stdout + run.stderr
    assert digests(copy) == before


def test_a_quiz_whose_code_misconception_computes_the_key_is_refused_before_anything_is_written(course, tmp_path):
    """`attnkit assignments` runs the quiz checker's sandbox check of code answers (`python -m autograder.quiz
    check`): a misconception written otherwise than the key but computing it would score a right answer 0."""
    root, _, _ = course
    copy = tmp_path / "kit"
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns("dist", "__pycache__"))
    quiz = copy / "quizzes" / f"{QUIZ}.yaml"
    key = 'code: {answer: "torch.softmax(scores / tau, dim=-1)"'
    text = quiz.read_text(encoding="utf-8")
    assert text.count(key) == 1
    quiz.write_text(text.replace(key, 'misconceptions: [{answer: "torch.softmax(scores * (1 / tau), dim=-1)", '
                                      'says: "multiplied by the inverse"}]\n    ' + key), encoding="utf-8")
    before = digests(copy)
    run = subprocess.run([sys.executable, "-m", "autograder.cli", "assignments"], cwd=copy, capture_output=True,
                         text=True, env={**environment(copy, tmp_path), "ATTNKIT_CACHE": str(root.parent / "quiz-cache")},
                         timeout=600)
    said = " ".join((run.stdout + run.stderr).split())
    assert run.returncode == 2, said
    assert "question t-05" in said and "compute the same tensors" in said and "Traceback" not in said, said
    assert digests(copy) == before


def test_the_kits_checks_of_generated_files_pass_on_the_new_course(course, tmp_path):
    """`make test`'s rule that every exercise has a public check holds for a spec-only master written as
    docs/authoring.md says (its public checks are generated from its specs)."""
    root, _, _ = course
    (tmp_path / "tests").mkdir()
    shutil.copy2(Path(__file__).parent / "test_generated.py", tmp_path / "tests" / "test_generated.py")
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                          "-p", "no:xdist", "-k", "every_exercise", str(tmp_path / "tests" / "test_generated.py")],
                         cwd=tmp_path, capture_output=True, text=True, timeout=600,
                         env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONPATH": str(root)})
    assert run.returncode == 0 and "3 passed" in run.stdout, run.stdout[-3000:] + run.stderr[-2000:]
