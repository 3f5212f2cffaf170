"""Cheap nothing: a student folder without a single gradable file is answered at once, with exactly the
row that running every hidden test would have given, and without starting a sandbox."""
from __future__ import annotations

from dataclasses import replace

from autograder import paths
from autograder.grading.runner import shipped_stubs
from autograder.grading.submissions import discover, result_stem
from autograder.grading.worker import gradable, identities_of, run_shard
from autograder.results import load
from autograder.sandbox import ForkServer
from tests.classroom import write_class

EMPTY_ONES = {
    "empty": {},
    "only-notes": {"notes.txt": "I ran out of time", "scratch/old.py": "x = 1\n"},
    "untouched-stub": {f"{a}.py": (paths.ASSIGNMENTS_DIR / a / f"{a}.py").read_text() for a in paths.ASSIGNMENTS},
    "bad-notebook": {f"{a}.ipynb": b"{ not json" for a in paths.ASSIGNMENTS},
}


def rows(folder, ids):
    return {sid: replace(load(folder / f"{result_stem(sid)}.json"), fingerprint="") for sid in ids}


def test_folders_without_a_gradable_file_cost_no_sandbox(tmp_path):
    classdir = write_class(tmp_path / "class", EMPTY_ONES)
    (classdir / "empty").mkdir(exist_ok=True)
    submissions = discover(classdir, list(paths.ASSIGNMENTS), shipped_stubs())
    cheap = [s for s in submissions if not gradable(s)]
    assert {s.student_id for s in cheap} >= {"empty", "only-notes", "bad-notebook"}
    quick, slow = tmp_path / "quick", tmp_path / "slow"
    quick.mkdir()
    slow.mkdir()
    server = ForkServer()
    try:
        identities = identities_of(paths.GRADERS_DIR, server)
        plugin = run_shard(cheap, quick, server, identities=identities)
        assert plugin.finished == len(cheap)
        assert server.process is None, "a sandbox was started for students with nothing to run"
        run_shard(cheap, slow, server)  # the same students through every hidden test
    finally:
        server.close()
    ids = [s.student_id for s in cheap]
    fast_rows, full_rows = rows(quick, ids), rows(slow, ids)
    assert fast_rows == full_rows
    assert all(t.score == 0 and not t.attempted for r in fast_rows.values() for t in r.tests)
    assert len(identities) == len(next(iter(full_rows.values())).tests)


def test_empty_folders_are_read_once_and_read_as_the_slow_path_would(tmp_path):
    from autograder.grading import submissions

    stubs, names = shipped_stubs(), list(paths.ASSIGNMENTS)
    folders = [tmp_path / name for name in ("anna", "bo b", "çé")]
    for folder in folders:
        folder.mkdir()
    submissions._EMPTY.clear()
    quick = [submissions.read_submission(f.name, f, names, stubs) for f in folders]
    assert quick == [submissions.read_folder(f.name, f, names, stubs) for f in folders]
    assert quick[0].files[names[0]] is quick[1].files[names[0]]  # shared, not read again
    (folders[0] / "notes.txt").write_text("later")  # no longer empty: read in full, with its note
    assert submissions.read_submission("anna", folders[0], names, stubs) == \
        submissions.read_folder("anna", folders[0], names, stubs) != quick[0]


def test_shared_rows_are_stored_byte_for_byte_as_unshared_ones(tmp_path):
    from autograder import results

    classdir = write_class(tmp_path / "class", {"empty-a": {}, "empty-b": {}})
    for name in ("empty-a", "empty-b"):
        (classdir / name).mkdir(exist_ok=True)
    cheap = discover(classdir, list(paths.ASSIGNMENTS), shipped_stubs())
    server = ForkServer()
    try:
        run_shard(cheap, tmp_path, server, identities=identities_of(paths.GRADERS_DIR, server))
    finally:
        server.close()
    for sid in ("empty-a", "empty-b"):
        path = tmp_path / f"{result_stem(sid)}.json"
        shared = path.read_text(encoding="utf-8")
        results._STORED.clear()
        loaded = load(path)
        results.save(loaded, path)  # fresh objects, nothing cached
        assert path.read_text(encoding="utf-8") == shared


def test_quizzes_of_empty_folders_are_graded_once_and_as_each_alone(tmp_path):
    from autograder.grading.quizzes import convert, grade_class_quizzes, load_class_quizzes
    from autograder.quiz.grade import grade_submission

    folders = {sid: tmp_path / sid for sid in ("a", "b", "c")}
    for folder in folders.values():
        folder.mkdir()
    quizzes = load_class_quizzes()
    graded = grade_class_quizzes(folders, tmp_path / "out", "rlimits", quizzes=quizzes, allow_weak=True)
    for sid, folder in folders.items():
        alone = tuple(convert(grade_submission(quiz, folder), folder) for quiz in quizzes)
        assert graded[sid] == alone
    assert graded["a"][0] is graded["b"][0]
