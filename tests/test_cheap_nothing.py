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
