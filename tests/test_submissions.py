"""Bad input from students: every folder gets a gradebook row and a message a student can act on.

One class of odd submissions is graded once (bwrap, or whatever "auto" finds) and each case is
checked against it. Then resuming: an interrupted run, deleted, corrupted and stale result files,
and a re-run that must end with exactly the results of a clean run.

Which file is graded when both <assignment>.py and <assignment>.ipynb are handed in: the one that
differs from the handout; if both differ (or neither does), the notebook. A note says which.
"""
from __future__ import annotations

import csv
import html
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unicodedata
import zipfile
from pathlib import Path

import pytest

from autograder import paths
from autograder.results import GRADER_ERROR, PASSED, StudentResult
from autograder.grading.submissions import MAX_PY_BYTES, not_handed_in, result_stem, strip_magics
from autograder.reporting.blank import blank_assignments, quiz_not_handed_in
from autograder.reporting.gradebook import gradebook_csv
from autograder.reporting.outputs import write_outputs
from autograder.grading.names import RENAMED
from autograder.grading.submissions import SPLIT
from autograder.reporting.attention import needs_attention
from autograder.reporting.summary import closing_summary
from tests.classroom import grade, solution_text, stub_text, write_class
from tests.platforms import hostile_zip

AS, SHA = "attention_scores", "single_head_attention"
NFD_NAME = unicodedata.normalize("NFD", "José María")
ODD_ID = "o'brien; rm -rf ~"
FORMULA_ID = '=HYPERLINK("evil","click me")'
CLASH = "Renée"  # handed in twice: once in NFC, once in NFD spelling


def padded(text: str, size: int, filler: str) -> str:
    """Honest code padded with comments to about `size` characters (a student who pastes long notes)."""
    line = "# " + filler * 60 + "\n"
    return text + "\n" + line * max(0, (size - len(text)) // len(line))


def notebook(kind: str, name: str, extra_cells: list[str] = (), at: int = 1) -> bytes:
    folder = paths.SOLUTIONS_DIR if kind == "solution" else paths.ASSIGNMENTS_DIR
    data = json.loads((folder / name / f"{name}.ipynb").read_bytes())
    data["cells"][at:at] = [{"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
                             "source": source} for source in extra_cells]
    return json.dumps(data).encode()


def bad_class() -> dict[str, dict[str, str | bytes]]:
    solution = solution_text(AS)
    return {
        "syntax error": {f"{AS}.py": solution + "\n\ndef broken(:\n    pass\n"},
        "syntax error notebook": {f"{AS}.ipynb": notebook("solution", AS, ["def broken(:\n    pass"], at=3)},
        "failing import": {f"{AS}.py": "import attention_helpers_that_do_not_exist\n" + solution},
        "malformed notebook": {f"{AS}.ipynb": b'{"cells": [{"cell_type": "code", "source": "x = 1"'},
        "json not a notebook": {f"{AS}.ipynb": b'{"hello": "world"}'},
        "magics": {f"{AS}.ipynb": notebook("solution", AS, [
            "%matplotlib inline\n!pip install torch\nimport math",
            "%%time\nwarmed = 1",
            "  !ls -la /\n%load_ext autoreload",
            "files = !ls",  # not a line that starts with ! or %: stays, and is a SyntaxError in its own cell
        ], at=2), f"{SHA}.ipynb": notebook("solution", SHA, ["%matplotlib inline"], at=2)},
        "missing file": {f"{AS}.py": solution},
        "extra files": {f"{AS}.py": solution, "helper.py": "def helper():\n    pass\n", "data.csv": "a,b\n",
                        "README.md": "hello", ".DS_Store": b"\x00\x01", "quiz_attention.yaml": "answers: {}\n"},
        "empty": {},
        "Zoë Müller": {f"{AS}.py": solution},
        "latin-1 with coding line": {f"{AS}.py": ("# -*- coding: latin-1 -*-\n# écrit à la main\n" + solution
                                                  ).encode("latin-1", "backslashreplace")},
        "utf-8 with bom": {f"{AS}.py": "\ufeff# écrit à la main\n".encode() + solution.encode()},
        NFD_NAME: {f"{AS}.py": solution},
        ODD_ID: {f"{AS}.py": solution},
        "huge file": {f"{AS}.py": solution + "\n# " + "x" * (MAX_PY_BYTES + 10) + "\n"},
        "binary junk": {f"{AS}.py": bytes(range(256)) * 20, f"{SHA}.py": "import torch\n\x00\x00\x00\n"},
        "both py edited": {f"{AS}.py": solution, f"{AS}.ipynb": notebook("stub", AS)},
        "both notebook edited": {f"{AS}.py": stub_text(AS), f"{AS}.ipynb": notebook("solution", AS)},
        "both edited": {f"{AS}.py": solution, f"{AS}.ipynb": notebook("stub", AS, ["x = 1"], at=2)},
        "both untouched": {f"{AS}.py": stub_text(AS), f"{AS}.ipynb": notebook("stub", AS)},
        FORMULA_ID: {f"{AS}.py": solution},
        CLASH: {f"{AS}.py": solution},
        unicodedata.normalize("NFD", CLASH): {f"{AS}.py": solution},
        "half a megabyte": {f"{AS}.py": padded(solution, 560_000, "notes ")},
        "near the limit": {f"{AS}.py": padded(solution, MAX_PY_BYTES - 2000, '\\"\x01')},
        "nested too deeply": {f"{AS}.py": solution + "\nx = " + "1+" * 200_000 + "1\n"},
        "parser memory": {f"{AS}.py": solution + "\nx = " + "-" * 100_000 + "1\n"},
        "handout folder": {f"attention-kit/{a}/{a}.py": solution_text(a) for a in paths.ASSIGNMENTS},
        "flat twin": {f"{a}.py": solution_text(a) for a in paths.ASSIGNMENTS},
        "zip top folder": {f"ada-submission/{a}.py": solution_text(a) for a in paths.ASSIGNMENTS},
        "two sub-folders": {f"part{i}/{a}.py": solution_text(a) for i, a in enumerate(paths.ASSIGNMENTS)},
        ".hidden student": {f"{AS}.py": solution},
        "renamed": {"Attention_Scores.py": solution, f"{SHA} (1).py": solution_text(SHA)},
    }


def add_links(root: Path) -> None:
    link_out = root / "symlink out"
    link_out.mkdir()
    (link_out / f"{AS}.py").symlink_to(paths.SOLUTIONS_DIR / AS / f"{AS}.py")  # the reference itself
    (link_out / "work").mkdir()
    (link_out / "work" / "mine.py").write_text(solution_text(SHA), encoding="utf-8")
    (link_out / f"{SHA}.py").symlink_to("work/mine.py")  # a link inside the folder is fine
    (root / "broken link").mkdir()
    (root / "broken link" / f"{AS}.py").symlink_to("/nonexistent/attention_scores.py")
    (root / "folder not file").mkdir()
    (root / "folder not file" / f"{AS}.py").mkdir()
    (root / "linked folder").symlink_to(paths.SOLUTIONS_DIR / AS)  # a student folder that is a link
    (root / "linked sub-folder").mkdir()
    (root / "linked sub-folder" / "work").symlink_to(paths.SOLUTIONS_DIR / AS)  # one folder down, a link
    (root / "stray.zip").write_bytes(b"PK\x05\x06" + bytes(18))  # an empty zip: the student "stray"
    (root / "notes.txt").write_text("not a student", encoding="utf-8")
    (root / "zipped").mkdir()
    with zipfile.ZipFile(root / "zipped" / "my work.zip", "w") as archive:
        for a in paths.ASSIGNMENTS:
            archive.writestr(f"my work/{a}.py", solution_text(a))
    (root / "zip bomb").mkdir()
    hostile_zip(root / "zip bomb" / "work.zip", "bomb")


WARNINGS: list[str] = []


@pytest.fixture(scope="session")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("bad-input")
    write_class(root / "class", bad_class())
    add_links(root / "class")
    results = grade(root / "class", root / "out", warn=WARNINGS.append)
    for assignment in paths.ASSIGNMENTS:
        MAX[assignment] = points(results["empty"], assignment)[1]
    write_outputs(root / "out", list(results.values()))
    return root, results


def points(result: StudentResult, assignment: str) -> tuple[float, float]:
    tests = [t for t in result.tests if t.assignment == assignment]
    return sum(t.score for t in tests), sum(t.max_score for t in tests)


def said(result: StudentResult) -> str:
    return "\n".join([*result.notes, *result.problems, *(t.output for t in result.tests)])


MAX = {}  # points of each assignment, read off the graded class (the hidden tests may grow)


def full(assignment: str) -> tuple[float, float]:
    return MAX[assignment], MAX[assignment]


def zero(assignment: str) -> tuple[float, float]:
    return 0.0, MAX[assignment]


def test_every_folder_gets_a_row_and_no_grader_error(graded):
    root, results = graded
    folders = {unicodedata.normalize("NFC", p.name) for p in (root / "class").iterdir()
               if p.is_dir() and not p.name.startswith(".")}
    assert set(results) == folders - {CLASH} | {CLASH, f"{CLASH} (duplicate 2)", "stray"}
    assert results["zip bomb"].score == 0 and "expands more than 100 times" in results["zip bomb"].problems[0]
    rows = list(csv.DictReader(io.StringIO(gradebook_csv(list(results.values())))))
    assert sorted(row["student_id"].removeprefix("'") for row in rows) == sorted(results)
    for sid, result in results.items():
        assert not [t for t in result.tests if t.status == GRADER_ERROR], (sid, result.grader_errors)
        assert len(result.tests) == len(results["missing file"].tests), sid
        assert (root / "out" / ".state" / f"{result_stem(sid)}.json").is_file()


def test_syntax_error_in_a_py_costs_only_its_definition_and_names_the_line(graded):
    """Like a notebook's cell: the rest of the file is graded, and both student and instructor are told."""
    result = graded[1]["syntax error"]
    assert points(result, AS) == full(AS)
    line = (solution_text(AS) + "\n\ndef broken(:\n    pass\n").splitlines().index("def broken(:") + 1
    assert any(note.startswith(f"Syntax error: attention_scores.py line {line}: invalid syntax.") for note in result.notes)
    assert any(f"SyntaxError: invalid syntax (attention_scores.py line {line})" in note
               for note in result.notes)


def test_syntax_error_in_one_notebook_cell_costs_only_that_cell(graded):
    result = graded[1]["syntax error notebook"]
    assert points(result, AS) == full(AS)
    assert any("SyntaxError" in note for note in result.notes)


def test_failing_import_is_explained(graded):
    result = graded[1]["failing import"]
    assert points(result, AS) == zero(AS)
    assert "No module named 'attention_helpers_that_do_not_exist'" in said(result)
    assert "later definitions may be missing" in said(result)


@pytest.mark.parametrize("sid, kind", [("malformed notebook", "NotJSONError"),
                                       ("json not a notebook", "ValidationError")])
def test_unreadable_notebook_is_a_problem_not_a_crash(graded, sid, kind):
    result = graded[1][sid]
    assert f"attention_scores.ipynb is not a readable notebook ({kind})" in result.problems
    assert points(result, AS) == zero(AS)


def test_magics_and_shell_escapes_are_ignored_with_a_note(graded):
    result = graded[1]["magics"]
    assert points(result, AS) == full(AS)
    # said once, though both notebooks hold magics
    assert result.notes.count("IPython magics and shell escapes (`%...`, `!...`) are ignored when grading.") == 1
    assert strip_magics("  !ls\n%%time\nx = 1")[0].splitlines()[:2] == ["# [removed by the grader]   !ls",
                                                                         "# [removed by the grader] %%time"]


def test_missing_file_and_empty_folder(graded):
    results = graded[1]
    assert points(results["missing file"], AS) == full(AS)
    assert "no single_head_attention.py or single_head_attention.ipynb in the submission" in \
        results["missing file"].problems
    assert len(results["empty"].problems) == len(paths.ASSIGNMENTS)  # one per assignment of the course
    assert results["empty"].score == 0 and results["empty"].max_score == results["missing file"].max_score


def test_extra_files_are_named_and_ignored(graded):
    result = graded[1]["extra files"]
    assert points(result, AS) == full(AS)
    note = next(n for n in result.notes if n.startswith("Not graded:"))
    assert "README.md, data.csv, helper.py." in note
    assert ".DS_Store" not in note and "quiz_attention.yaml" not in note


def test_unusual_student_ids(graded):
    root, results = graded
    for sid in ("Zoë Müller", unicodedata.normalize("NFC", NFD_NAME), ODD_ID):
        assert points(results[sid], AS) == full(AS), sid
    assert NFD_NAME not in results  # folder names are normalised (zips from macOS use NFD)
    assert result_stem("Zoë Müller") == "Zoë Müller"
    stem = result_stem(ODD_ID)
    assert "/" not in stem and ";" not in stem and " " not in stem and stem != ODD_ID
    assert (root / "out" / ".state" / f"{stem}.json").is_file()


def test_python_reads_it_so_do_we(graded):
    """A .py in the encoding its coding line (PEP 263) or BOM declares is valid Python: graded in full."""
    for sid in ("latin-1 with coding line", "utf-8 with bom"):
        assert not [p for p in graded[1][sid].problems if AS in p], sid
        assert points(graded[1][sid], AS) == full(AS), sid


def test_huge_file_is_refused_before_reading(graded):
    result = graded[1]["huge file"]
    assert "attention_scores.py is larger than 1 MiB" in result.problems
    assert points(result, AS) == zero(AS)


def test_binary_junk(graded):
    result = graded[1]["binary junk"]
    assert "attention_scores.py is not text in the encoding it declares" in " ".join(result.problems)
    assert "single_head_attention.py contains binary data, not Python code" in result.problems
    assert result.score == 0


def test_links(graded):
    results = graded[1]
    linked = results["symlink out"]
    assert "attention_scores.py is a link pointing outside your submission" in linked.problems
    assert points(linked, AS) == zero(AS)  # the reference solution is not graded as the student's
    assert points(linked, SHA) == full(SHA)   # a link to a file inside the folder is graded
    assert "attention_scores.py is a broken link" in results["broken link"].problems
    assert "attention_scores.py is not a regular file" in results["folder not file"].problems


@pytest.mark.parametrize("sid, chosen, expect", [
    ("both py edited", "attention_scores.py", "full"),
    ("both notebook edited", "attention_scores.ipynb", "full"),
    ("both edited", "attention_scores.ipynb", "zero"),  # the notebook wins, even if the .py is better
    ("both untouched", "attention_scores.ipynb", "zero"),
])
def test_py_and_notebook_both_present(graded, sid, chosen, expect):
    result = graded[1][sid]
    assert points(result, AS) == (full(AS) if expect == "full" else zero(AS))
    assert any(note.startswith(f"Both attention_scores.py and attention_scores.ipynb were submitted; graded {chosen}")
               for note in result.notes), result.notes


def test_entries_without_a_row_are_named(graded):
    assert "skipped '.hidden student': hidden (its name starts with a dot)" in WARNINGS
    assert "skipped 'notes.txt': a file, not a student folder" in WARNINGS
    assert ".hidden student" not in graded[1]


def test_zips_are_read_beside_and_inside_student_folders(graded):
    results = graded[1]
    assert points(results["zipped"], AS) == full(AS) and points(results["zipped"], SHA) == full(SHA)
    assert "Read from the zip my work.zip." in results["zipped"].notes
    assert "no attention_scores.py or attention_scores.ipynb in the submission" in results["stray"].problems


NOT_GRADED = ["missing file", "empty", "huge file", "binary junk", "malformed notebook", "json not a notebook",
              "symlink out", "broken link", "folder not file", "linked folder", CLASH, "zip bomb", "stray",
              "nested too deeply"]


def handout_as_given(result: StudentResult) -> bool:
    """Code handed in as given out and no quiz answer file: one "blank handout" entry says all of it."""
    return bool(blank_assignments(result)) and all(quiz_not_handed_in(q) for q in result.quizzes)


def reasons(result: StudentResult) -> list[str]:
    """Everything about one student that the instructor must be told: not graded, or graded differently."""
    quizzes = [] if handout_as_given(result) else [f"quiz {q.quiz_id}: {q.problem}" for q in result.quizzes
                                                      if q.problem]
    blank = ["handed in as given out (nothing implemented)"] if blank_assignments(result) else []
    return [*result.problems, *(n[len(RENAMED):] for n in result.notes if n.startswith(RENAMED)),
            *(n[len(SPLIT):] for n in result.notes if n.startswith(SPLIT)), *quizzes, *blank]


def test_nothing_is_scored_in_silence(graded):
    """Every case not graded (and every file graded under another name or piece by piece) is counted in the
    terminal summary and listed, with its reason, in summary.txt and in the report, for every student."""
    root, results = graded
    everyone = list(results.values())
    affected = {sid for sid, r in results.items() if reasons(r)}
    assert set(NOT_GRADED) | {"renamed", "syntax error"} <= affected
    terminal = closing_summary(everyone, [], "summary.txt")
    assert f"Needs your attention: {len(affected)} student(s); " in terminal
    unread = sum(1 for r in everyone for p in r.problems if not not_handed_in(p))
    missing = sum(1 for r in everyone for p in r.problems if not_handed_in(p)) + sum(
        1 for r in everyone if not handout_as_given(r) for q in r.quizzes if quiz_not_handed_in(q))
    assert f"{unread} not graded, {missing} not handed in" in terminal and "1 syntax error" in terminal
    table = (root / "out" / "summary.txt").read_text(encoding="utf-8")
    report = (root / "out" / "report.html").read_text(encoding="utf-8")
    section = report.split('id="problems"', 1)[1].split('id="grader-problems"', 1)[0]
    for sid in affected:
        for reason in reasons(results[sid]):
            assert f"{sid}: " in table and reason in table, (sid, reason)
            assert html.escape(reason) in section and html.escape(sid) in section, (sid, reason)
    listed = {a.student for a in needs_attention(everyone)}
    assert affected <= listed


def test_near_miss_names_are_graded_and_said(graded):
    result = graded[1]["renamed"]
    assert points(result, AS) == full(AS) and points(result, SHA) == full(SHA)
    assert any(n.startswith("Graded under another name: Attention_Scores.py was graded as attention_scores.py")
               for n in result.notes)


def test_a_linked_student_folder_is_refused(graded):
    result = graded[1]["linked folder"]
    assert result.score == 0 and "the submission folder is a link to another folder" in result.problems[0]
    assert not [t for t in result.tests if t.status == PASSED]


def test_two_spellings_of_one_name_share_no_result(graded):
    root, results = graded
    first, second = results[CLASH], results[f"{CLASH} (duplicate 2)"]
    for result in (first, second):
        assert result.score == 0 and "in different Unicode spellings" in result.problems[0]
    assert result_stem(first.student_id) != result_stem(second.student_id)
    assert len({p.name for p in (root / "out" / ".state").glob("Ren*")}) == 2


def test_formula_ids_are_neutralised_in_every_csv(graded):
    root, results = graded
    assert points(results[FORMULA_ID], AS) == full(AS)
    for name in ("gradebook.csv", "canvas.csv"):
        cells = [c for row in csv.reader(io.StringIO((root / "out" / name).read_text(encoding="utf-8"))) for c in row]
        assert FORMULA_ID not in cells and "'" + FORMULA_ID in cells, name
        assert not [c for c in cells if c.startswith(("=", "+", "@", "\t", "\r"))], name


@pytest.mark.parametrize("sid", ["half a megabyte", "near the limit"])
def test_large_honest_files_are_graded(graded, sid):
    """The child's message limits fit the largest file accepted (1 MiB), whatever characters it holds."""
    result = graded[1][sid]
    assert points(result, AS) == full(AS), (result.problems, result.notes)


@pytest.mark.parametrize("sid, why", [("nested too deeply", "nested too deeply"), ("parser memory", "memory")])
def test_code_the_parser_gives_up_on_is_the_students_problem(graded, sid, why):
    result = graded[1][sid]
    assert any(p.startswith("attention_scores.py cannot be parsed by Python") and why in p for p in result.problems)
    assert points(result, AS) == zero(AS) and not result.grader_errors


def comparable_tests(result: StudentResult) -> list[tuple]:
    return [(t.test_id, t.score, t.status, t.output) for t in result.tests]


@pytest.mark.parametrize("sid", ["handout folder", "zip top folder", "two sub-folders"])
def test_files_one_folder_down_are_graded_like_a_flat_folder(graded, sid):
    """Also one folder per assignment under any name (nbgrader's `<student>/<assignment id>/`)."""
    results = graded[1]
    result, flat = results[sid], results["flat twin"]
    assert comparable_tests(result) == comparable_tests(flat)
    assert result.score == flat.score and not result.problems
    note = next(n for n in result.notes if n.startswith("Files found below the top"))
    where = {"handout folder": "attention-kit/attention_scores/attention_scores.py",
             "zip top folder": "ada-submission/attention_scores.py",
             "two sub-folders": "part0/attention_scores.py"}[sid]
    assert where in note and "Not graded" not in " ".join(result.notes)


@pytest.mark.parametrize("sid", ["linked sub-folder"])
def test_only_a_single_real_sub_folder_counts(graded, sid):
    result = graded[1][sid]
    assert result.score == 0
    assert "no attention_scores.py or attention_scores.ipynb in the submission" in result.problems


# ------------------------------------------------------------------------------------------------
# resuming

RESUME_CLASS = {
    "ana": {f"{AS}.py": solution_text(AS)},
    "ben": {f"{SHA}.py": solution_text(SHA)},
    "cy": {f"{AS}.py": stub_text(AS)},
    "dee": {f"{SHA}.py": solution_text(SHA).replace("/ math.sqrt(K.shape[-1])", "/ K.shape[-1]")},
    "eve": {f"{AS}.py": solution_text(AS) + "\nprint('eve was here')\n"},
    "fay": {f"{SHA}.ipynb": notebook("solution", SHA)},
}


def comparable(results: dict[str, StudentResult]) -> dict[str, dict]:
    return {sid: r.to_dict() for sid, r in results.items()}


def interrupted_run(classdir: Path, out: Path) -> None:
    """Start grading in another process and kill its whole process group once a result exists."""
    code = ("import sys; from pathlib import Path; from tests.classroom import grade; "
            "grade(Path(sys.argv[1]), Path(sys.argv[2]), workers=2)")
    process = subprocess.Popen([sys.executable, "-c", code, str(classdir), str(out)], cwd=paths.ROOT,
                               env={**os.environ, "PYTHONPATH": str(paths.ROOT)}, start_new_session=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        if list((out / ".state").glob("*.json")):
            break
        time.sleep(0.02)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    deadline = time.monotonic() + 10
    while True:  # zombies are dead already (their reaper here may be slow); anything else must go
        survivors = [pid for pid, state in group_members(process.pid) if state != "Z"]
        if not survivors or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert not survivors, f"processes of the killed grading run survived: {survivors}"
    for manifest in Path(tempfile.gettempdir()).glob("attnkit-*/shard-*.json"):  # the killed run's scratch
        try:
            ours = str(out / ".state") in manifest.read_text(encoding="utf-8")
        except OSError:  # another grading run's, just cleaned up
            continue
        if ours:
            shutil.rmtree(manifest.parent, ignore_errors=True)


def group_members(pgid: int) -> list[tuple[int, str]]:
    members = []
    for entry in os.listdir("/proc"):
        try:
            if entry.isdigit() and os.getpgid(int(entry)) == pgid:
                stat = Path(f"/proc/{entry}/stat").read_text()
                members.append((int(entry), stat.rsplit(")", 1)[1].split()[0]))
        except OSError:
            pass
    return members


def test_resume_gives_the_same_results_as_a_clean_run(tmp_path):
    classdir = write_class(tmp_path / "class", RESUME_CLASS)
    clean = grade(classdir, tmp_path / "clean")

    out = tmp_path / "resumed"
    interrupted_run(classdir, out)
    state = out / ".state"
    done_before = sorted(p.name for p in state.glob("*.json"))
    assert len(done_before) < len(RESUME_CLASS), "the run finished before it could be interrupted"
    assert comparable(grade(classdir, out)) == comparable(clean)

    # Now damage the finished state: delete two results, corrupt one, make one stale, leave a
    # half-written temporary file; one result stays as it was and must not be graded again.
    (state / "ana.json").unlink()
    (state / "ben.json").unlink()
    (state / "cy.json").write_text('{"student_id": "cy", "tests": [', encoding="utf-8")
    stale = json.loads((state / "dee.json").read_text(encoding="utf-8"))
    stale["fingerprint"] = "0000000000000000-" + stale["fingerprint"].split("-", 1)[1]
    stale["tests"][0]["score"] = 99.0
    (state / "dee.json").write_text(json.dumps(stale), encoding="utf-8")
    (state / ".eve.json.abc123.tmp").write_text('{"half": ', encoding="utf-8")
    untouched = state / "fay.json"
    stamp = untouched.stat().st_mtime_ns

    said: list[str] = []
    resumed = grade(classdir, out, announce=said.append)
    assert comparable(resumed) == comparable(clean)
    assert "resuming: 2 of 6 already graded" in said  # eve's and fay's results are intact
    assert untouched.stat().st_mtime_ns == stamp, "an up-to-date result was graded again"
    assert resumed["dee"].tests[0].score <= resumed["dee"].tests[0].max_score
    assert all(t.status == PASSED for t in clean["ana"].tests if t.assignment == AS)
    assert clean["cy"].score == 0.0
    assert any(t.status != PASSED for t in clean["dee"].tests if t.assignment == SHA)
    assert all(t.status == PASSED for t in clean["fay"].tests if t.assignment == SHA)
    assert "eve was here" in clean["eve"].printed


def test_the_zero_point_circumvention_flag_is_for_the_instructor_only(graded):
    """Hidden from students, and a missing file is not a 'failed' flag in the class's pass rates."""
    from autograder.reporting.class_stats import test_stats
    from autograder.reporting.feedback import feedback_markdown
    from autograder.reporting.gradescope import results_json
    from tests.markdown_read import shown_text

    results = graded[1]
    flags = [t for t in results["missing file"].tests if t.max_score == 0]
    assert flags and all(t.visibility == "hidden" for t in flags)
    name = flags[0].name
    assert name not in shown_text(feedback_markdown(results["missing file"]))
    entry = next(t for t in results_json(results["missing file"])["tests"] if t["name"].endswith(name))
    assert entry["visibility"] == "hidden"
    stats = {s.test_id: s for s in test_stats([results["empty"], results["flat twin"]])}
    for flag in flags:
        assert (stats[flag.test_id].passed, stats[flag.test_id].failed) == (1, 0)  # "empty" has nothing to flag
