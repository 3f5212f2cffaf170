"""The catalogue of student mistakes, graded through the real engine (sandbox included).

tests/catalogue/wrong/*.py    one real mistake each: the reference file with a wrong definition appended.
                              CAUGHT_BY names the hidden tests that must give 0 points for it.
tests/catalogue/correct/*.py  complete, correct files in other styles: they must get full marks.

An entry with KNOWN_GAP (a mistake the hidden tests miss, or a correct style they fail) stays in the
catalogue and its check runs as xfail(strict=True): it shows up in every run, and the day the hidden
tests are fixed the XPASS fails the run, so the KNOWN_GAP line gets removed. KNOWN_GRADER_ERROR does the same
for a wrong entry that a hidden test reports as a grader problem instead of a student mistake.

The whole class (one student per entry, plus the untouched stubs and the reference solutions) is graded
once per session; a determinism check re-grades a small subset into a fresh output folder.
"""
from __future__ import annotations

import ast
import importlib.util
import shutil
from pathlib import Path
from types import ModuleType

import pytest

from autograder import paths
from autograder.diagnosis import MISTAKES
from tests.classroom import grade, solution_text, stub_text, write_class

pytestmark = pytest.mark.slow

CATALOGUE = Path(__file__).resolve().parent / "catalogue"
STUBS = "untouched_stubs"
SOLUTIONS = "reference_solutions"
TRACEBACK = "Traceback (most recent call last)"


def load_entry(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"catalogue_{path.parent.name}_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


WRONG = {p.stem: load_entry(p) for p in sorted((CATALOGUE / "wrong").glob("*.py"))}
CORRECT = {p.stem: load_entry(p) for p in sorted((CATALOGUE / "correct").glob("*.py"))}
ENTRIES = {**WRONG, **CORRECT}


def hidden_test_names(assignment: str) -> set[str]:
    """The test functions of one hidden grader module, read without importing it."""
    tree = ast.parse((paths.GRADERS_DIR / f"test_{assignment}.py").read_text(encoding="utf-8"))
    return {n.name for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")}


def student_text(name: str) -> str:
    """A wrong entry is the reference file with its wrong definitions appended (later definitions win);
    a correct entry is a complete file, or (ON_REFERENCE = True) its definitions appended the same way."""
    entry = ENTRIES[name]
    if name in WRONG or getattr(entry, "ON_REFERENCE", False):
        return solution_text(entry.ASSIGNMENT) + "\n\n" + entry.CODE
    return entry.CODE


def own_tests(result, assignment: str) -> list:
    """Only the entry's assignment counts: the other assignment's tests fail with "no file"."""
    return [t for t in result.tests if t.test_id.startswith(f"{assignment}::")]


def with_gap(names: dict[str, ModuleType], attribute: str = "KNOWN_GAP") -> list:
    params = []
    for name, entry in names.items():
        reason = getattr(entry, attribute, None)
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        params.append(pytest.param(name, marks=marks, id=name))
    return params


def class_folder(root: Path) -> Path:
    students = {name: {f"{e.ASSIGNMENT}.py": student_text(name)} for name, e in ENTRIES.items()}
    students[STUBS] = {f"{a}.py": stub_text(a) for a in paths.ASSIGNMENTS}
    students[SOLUTIONS] = {f"{a}.py": solution_text(a) for a in paths.ASSIGNMENTS}
    return write_class(root, students)


@pytest.fixture(scope="session")
def graded(tmp_path_factory):
    """Grade the whole catalogue once: {"results": {student: StudentResult}, "submissions": Path, "root": Path}."""
    root = tmp_path_factory.mktemp("catalogue")
    submissions = class_folder(root / "submissions")
    results = grade(submissions, root / "out", workers=2)
    return {"results": results, "submissions": submissions, "root": root}


# --- the catalogue itself ----------------------------------------------------------------------

def test_catalogue_is_big_enough():
    assert len(WRONG) >= 25, f"only {len(WRONG)} wrong entries"
    assert len(CORRECT) >= 4, f"only {len(CORRECT)} correct entries"
    for assignment in paths.ASSIGNMENTS:
        styles = [n for n, e in CORRECT.items() if e.ASSIGNMENT == assignment]
        assert len(styles) >= 2, f"{assignment} has fewer than two correct styles: {styles}"
    assert not set(WRONG) & set(CORRECT), "a wrong and a correct entry share a name (= student id)"
    assert not {STUBS, SOLUTIONS} & set(ENTRIES)


@pytest.mark.parametrize("name", sorted(ENTRIES))
def test_entry_is_well_formed(name):
    entry = ENTRIES[name]
    assert not name.startswith("test_"), "pytest would collect this entry as a test module"
    assert entry.ASSIGNMENT in paths.ASSIGNMENTS
    assert isinstance(entry.CODE, str) and entry.CODE.strip()
    compile(student_text(name), f"{name}.py", "exec")
    if name in WRONG:
        assert isinstance(entry.MISTAKE, str) and entry.MISTAKE.strip()
        ids = [entry.MISTAKE_ID] if isinstance(entry.MISTAKE_ID, str) else entry.MISTAKE_ID
        unknown_ids = [i for i in ids if i not in MISTAKES]
        assert ids and not unknown_ids, f"MISTAKE_ID names no mistake of autograder/diagnosis/catalog.py: {unknown_ids}"
        assert entry.CAUGHT_BY and isinstance(entry.CAUGHT_BY, list)
        unknown = set(entry.CAUGHT_BY) - hidden_test_names(entry.ASSIGNMENT)
        assert not unknown, f"CAUGHT_BY names no hidden test of {entry.ASSIGNMENT}: {sorted(unknown)}"
    else:
        assert isinstance(entry.STYLE, str) and entry.STYLE.strip()
    for attribute in ("KNOWN_GAP", "KNOWN_GRADER_ERROR"):
        assert isinstance(getattr(entry, attribute, ""), str)


# --- what the hidden tests must do with each entry -----------------------------------------------

@pytest.mark.parametrize("name", with_gap(WRONG))
def test_wrong_entry_is_caught(graded, name):
    entry = WRONG[name]
    result = graded["results"][name]
    mine = own_tests(result, entry.ASSIGNMENT)
    scores = {t.test_id.split("::", 1)[1]: t.score for t in mine}
    missed = {test: scores[test] for test in entry.CAUGHT_BY if scores[test] != 0}
    assert not missed, f"{name} ({entry.MISTAKE}) still earns points on {missed}"
    assert sum(t.score for t in mine) < sum(t.max_score for t in mine), f"{name} gets full marks"


@pytest.mark.parametrize("name", with_gap(WRONG, "KNOWN_GRADER_ERROR"))
def test_wrong_entry_is_reported_as_the_students_mistake(graded, name):
    """A mistake must come back as a failed test with feedback, never as "a problem in the grader"."""
    mine = own_tests(graded["results"][name], WRONG[name].ASSIGNMENT)
    errors = {t.test_id: t.grader_detail.strip().splitlines()[-1:] for t in mine if t.status == "grader_error"}
    assert not errors, f"grader errors for {name}: {errors}"


@pytest.mark.parametrize("name", with_gap(CORRECT))
def test_correct_entry_gets_full_marks(graded, name):
    entry = CORRECT[name]
    mine = own_tests(graded["results"][name], entry.ASSIGNMENT)
    assert mine, f"no test of {entry.ASSIGNMENT} ran for {name}"
    errors = [t.test_id for t in graded["results"][name].tests if t.status == "grader_error"]
    assert not errors, f"grader errors for {name}: {errors}"
    lost = {t.test_id: t.output for t in mine if t.status != "passed" or t.score != t.max_score}
    assert not lost, f"correct style {name} ({entry.STYLE}) loses points: {lost}"


def test_untouched_stubs_score_zero(graded):
    result = graded["results"][STUBS]
    assert result.tests and result.max_score > 0
    assert {t.test_id for t in result.tests if t.score != 0} == set()
    # Zero-point tests (the instructor's circumvention flag) pass for a file that does nothing suspicious.
    assert {t.test_id for t in result.tests if t.status != "failed" and t.max_score > 0} == set()
    assert {t.test_id for t in result.tests if t.status == "failed" and t.attempted} == set()


def test_reference_solutions_get_full_marks(graded):
    result = graded["results"][SOLUTIONS]
    assert set(paths.ASSIGNMENTS) == {t.assignment for t in result.tests}
    lost = {t.test_id: t.output for t in result.tests if t.status != "passed" or t.score != t.max_score}
    assert not lost
    assert sum(t.score for t in result.tests) == sum(t.max_score for t in result.tests) > 0


@pytest.mark.parametrize("name", sorted(ENTRIES) + [STUBS, SOLUTIONS])
def test_feedback_is_a_message_not_a_traceback(graded, name):
    result = graded["results"][name]
    for test in result.tests:
        if test.score < test.max_score:
            assert test.output.strip(), f"{test.test_id} failed with no feedback"
            assert TRACEBACK not in test.output, f"{test.test_id} shows a traceback:\n{test.output}"


def test_every_student_was_graded(graded):
    assert set(graded["results"]) == set(ENTRIES) | {STUBS, SOLUTIONS}
    tests = {t.test_id for t in graded["results"][SOLUTIONS].tests}
    for name, result in graded["results"].items():
        assert {t.test_id for t in result.tests} == tests, f"{name} was graded on other tests"


# --- the engine gives the same answer twice ------------------------------------------------------

def determinism_subset() -> list[str]:
    """Six students: stubs, solutions, and the first wrong and first correct entry of each assignment."""
    chosen = [STUBS, SOLUTIONS]
    for pool in (WRONG, CORRECT):
        for assignment in paths.ASSIGNMENTS:
            chosen += [n for n, e in pool.items() if e.ASSIGNMENT == assignment][:1]
    return chosen


def test_grading_is_deterministic(graded):
    subset = determinism_subset()
    again_root = graded["root"] / "again"
    for name in subset:
        shutil.copytree(graded["submissions"] / name, again_root / "submissions" / name)
    again = grade(again_root / "submissions", again_root / "out", workers=2)
    assert set(again) == set(subset)

    def summary(result):
        return [(t.test_id, t.score, t.max_score, t.status, t.output) for t in result.tests]

    for name in subset:
        assert summary(again[name]) == summary(graded["results"][name]), f"{name} graded differently"
        assert again[name].score == graded["results"][name].score


# --- the feedback names the mistake each entry makes, and no other ---------------------------------------

TABLE = paths.ROOT / "out" / "diagnosis_table.md"


def labelled(name: str) -> set[str]:
    """The mistakes an entry makes (MISTAKE_ID: one id, or a list for an entry with several)."""
    if name in CORRECT:
        return set()
    mistake = WRONG[name].MISTAKE_ID
    return {mistake} if isinstance(mistake, str) else set(mistake)


def named(graded, name: str) -> set[str]:
    mine = own_tests(graded["results"][name], ENTRIES[name].ASSIGNMENT)
    return {d.mistake for t in mine for d in t.diagnoses}


def diagnosis_table(graded) -> tuple[str, float]:
    """The table for the closing note, and the share of single-mistake entries whose mistake is named."""
    lines = ["| entry | labelled mistake | mistakes the feedback names | verdict |", "|---|---|---|---|"]
    single = right = 0
    for name in sorted(ENTRIES):
        made, said = labelled(name), named(graded, name)
        verdict = ("WRONG CAUSE" if said - made else "named" if made and made <= said
                   else "partly named" if said else "not named" if made else "nothing named (correct)")
        if len(made) == 1:
            single, right = single + 1, right + (made <= said)
        lines.append(f"| {name} | {', '.join(sorted(made)) or '(correct)'} | {', '.join(sorted(said)) or '-'} | "
                     f"{verdict} |")
    share = right / single if single else 0.0
    lines.append(f"\nRight mistake named for {right} of {single} single-mistake entries ({share:.0%}).")
    return "\n".join(lines) + "\n", share


def test_feedback_names_the_mistake_made_and_no_other(graded):
    text, share = diagnosis_table(graded)
    TABLE.parent.mkdir(exist_ok=True)
    TABLE.write_text(text, encoding="utf-8")
    print(text)
    wrong = {name: named(graded, name) - labelled(name) for name in ENTRIES if named(graded, name) - labelled(name)}
    assert not wrong, f"feedback names mistakes the code does not make: {wrong}"
    assert share >= 0.9, f"the right mistake is named for only {share:.0%} of single-mistake entries:\n{text}"


# A check that pays a property only the student's process can report (inputs left unchanged, the layer's
# parameters) only together with a right result: the property's own mistake ids, and what its failure says.
PAID_WITH_RESULT = {"test_attention_leaves_inputs_alone": ({"inputs-modified"}, "modified"),
                    "test_layer_parameters": ({"projection-bias"}, "has parameters")}
HELD = "but this check pays only together with a right result, and the result is wrong"


def test_a_check_failed_for_another_property_says_which(graded):
    """An entry that keeps its inputs (or has the right parameters) and fails such a check because its result
    is wrong is told that the property held and the result is what failed, never that the property failed."""
    said_held = 0
    for name, entry in WRONG.items():
        ids = {entry.MISTAKE_ID} if isinstance(entry.MISTAKE_ID, str) else set(entry.MISTAKE_ID)
        for test in own_tests(graded["results"][name], entry.ASSIGNMENT):
            function = test.test_id.split("::", 1)[1]
            if function not in PAID_WITH_RESULT or test.status != "failed":
                continue
            own_ids, own_words = PAID_WITH_RESULT[function]
            if ids & own_ids:
                assert own_words in test.output and HELD not in test.output, (name, test.output)
            else:
                assert own_words not in test.output.split(HELD)[0], (name, test.output)
                said_held += HELD in test.output
    assert said_held >= 3, "too few entries fail these checks through their result: the test proves little"
