"""Start-up (issue 21): the profile, what the coordinator imports, in-process grading of one shard, and
the keys of what is kept between runs."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import types
from pathlib import Path

import pytest
import torch
from hypothesis import given, settings, strategies as st

from autograder import paths, profiling
from autograder.sandbox.child import seeded
from autograder.grading import quizzes, version
from autograder.grading.runner import grade_class
from autograder.grading.submissions import notebook_cells
from autograder.quiz import checked
from tests.classroom import solution_text, write_class

KIT_PARTS = ("autograder", "assignments", "solutions", "pyproject.toml")


@pytest.fixture
def kit_copy(tmp_path, monkeypatch) -> Path:
    """A copy of the kit's code, handout and solutions that the version functions read instead."""
    root = tmp_path / "kit"
    for part in KIT_PARTS:
        source = paths.ROOT / part
        if source.is_dir():
            shutil.copytree(source, root / part, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            root.mkdir(exist_ok=True)
            shutil.copy(source, root / part)
    monkeypatch.setattr(paths, "ROOT", root)
    monkeypatch.setattr(paths, "SOLUTIONS_DIR", root / "solutions")
    monkeypatch.setattr(paths, "ASSIGNMENTS_DIR", root / "assignments")
    monkeypatch.setattr(paths, "GRADERS_DIR", root / "autograder" / "graders")
    return root


def append(path: Path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


CHANGES = {
    "a hidden test": ("autograder/graders/test_attention_scores.py", "\n# changed\n", ("grader",)),
    "the engine": ("autograder/grading/plugin.py", "\n# changed\n", ("grader",)),
    "the sandbox": ("autograder/sandbox/child/inputs.py", "\n# changed\n", ("grader", "verdicts")),
    "a reference solution": ("solutions/attention_scores/attention_scores.py", "\n# changed\n", ("grader",)),
    "the handout (.py)": ("assignments/attention_scores/attention_scores.py", "\n# changed\n", ("grader",)),
    "the kit's version": ("pyproject.toml", "\n# version bump\n", ("grader", "verdicts")),
    "the code-answer evaluator": ("autograder/quiz/code_answers.py", "\n# changed\n", ("verdicts",)),
    "the report (not kept)": ("autograder/reporting/class_report.py", "\n# changed\n", ()),
}


@pytest.mark.parametrize("what", list(CHANGES))
def test_a_change_of_what_made_a_kept_result_changes_its_key(kit_copy, what):
    relative, text, keys = CHANGES[what]
    before = version.grader_version(paths.GRADERS_DIR), version.code_verdict_version()
    append(kit_copy / relative, text)
    after = version.grader_version(paths.GRADERS_DIR), version.code_verdict_version()
    assert (before[0] != after[0]) == ("grader" in keys)
    assert (before[1] != after[1]) == ("verdicts" in keys)


def test_the_handout_notebook_is_part_of_the_grader_version(kit_copy):
    notebook = next((kit_copy / "assignments").rglob("*.ipynb"))
    before = version.grader_version(paths.GRADERS_DIR)
    data = json.loads(notebook.read_text(encoding="utf-8"))
    data["cells"].append({"cell_type": "markdown", "metadata": {}, "source": "changed"})
    notebook.write_text(json.dumps(data), encoding="utf-8")
    assert version.grader_version(paths.GRADERS_DIR) != before


def test_the_same_kit_elsewhere_has_the_same_version(kit_copy, monkeypatch):
    moved = kit_copy.parent / "moved"
    shutil.copytree(kit_copy, moved)
    first = version.grader_version(paths.GRADERS_DIR)
    monkeypatch.setattr(paths, "ROOT", moved)
    monkeypatch.setattr(paths, "GRADERS_DIR", moved / "autograder" / "graders")
    monkeypatch.setattr(paths, "SOLUTIONS_DIR", moved / "solutions")
    monkeypatch.setattr(paths, "ASSIGNMENTS_DIR", moved / "assignments")
    assert version.grader_version(paths.GRADERS_DIR) == first


def test_code_verdicts_of_another_version_are_dropped(tmp_path, monkeypatch):
    cache = tmp_path / ".state" / "quiz" / "code-verdicts.json"
    cache.parent.mkdir(parents=True)
    cache.write_text(json.dumps({"k": {"equal": True, "message": "Correct"}}), encoding="utf-8")
    quizzes.fresh_verdict_cache(cache)  # no stamp: made by a kit that did not record its version
    assert not cache.exists()
    cache.write_text(json.dumps({"k": {"equal": True, "message": "Correct"}}), encoding="utf-8")
    quizzes.stamp_verdict_cache(cache)
    quizzes.fresh_verdict_cache(cache)
    assert cache.exists(), "verdicts of this very version are kept"
    monkeypatch.setattr(version, "code_verdict_version", lambda: "another")
    quizzes.fresh_verdict_cache(cache)
    assert not cache.exists()


def test_profile_events_cost_nothing_unless_asked(tmp_path, monkeypatch):
    log = tmp_path / "profile.jsonl"
    monkeypatch.setattr(profiling, "PATH", None)
    profiling.event("nothing")
    assert not log.exists()
    monkeypatch.setattr(profiling, "PATH", str(log))
    profiling.event("something", students=3)
    events = profiling.read(str(log))
    assert [e["event"] for e in events][-1] == "something" and events[-1]["students"] == 3
    assert "something students=3" in profiling.timeline(events)


def test_the_coordinator_and_the_gradescope_entry_do_not_import_torch_or_pytest():
    code = ("import sys, autograder.cli, autograder.grading.runner, autograder.gradescope.run\n"
            "print(sorted(m for m in ('torch', 'pytest', 'matplotlib') if m in sys.modules))")
    run = subprocess.run([sys.executable, "-c", code], cwd=paths.ROOT, capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "[]"


def test_one_shard_in_process_grades_as_a_worker_does_and_a_changed_grader_regrades(tmp_path, monkeypatch):
    """The same class graded by a worker subprocess and in this process gives the same results; a second
    in-process run with an edited copy of the graders picks the edit up (no stale test module), and the
    profile shows the fork server launched before the hidden tests are collected."""
    wrong = solution_text("attention_scores").replace("/ math.sqrt(d_k)", "/ d_k")
    assert wrong != solution_text("attention_scores")
    submissions = write_class(tmp_path / "class", {
        "right": {f"{a}.py": solution_text(a) for a in paths.ASSIGNMENTS},
        "wrong": {"attention_scores.py": wrong}})
    monkeypatch.setenv("ATTNKIT_INPROCESS", "0")
    by_worker = {r.student_id: r for r in grade_class(submissions, tmp_path / "worker", workers=1)}
    monkeypatch.setenv("ATTNKIT_INPROCESS", "1")
    log = tmp_path / "profile.jsonl"
    monkeypatch.setattr(profiling, "PATH", str(log))
    here = {r.student_id: r for r in grade_class(submissions, tmp_path / "here", workers=1)}
    assert here == by_worker
    code_score = {sid: (sum(t.score for t in r.tests), sum(t.max_score for t in r.tests)) for sid, r in here.items()}
    assert code_score["right"][0] == code_score["right"][1] > code_score["wrong"][0]
    events = profiling.read(str(log))
    names = [e["event"] for e in events]
    assert names.index("fork server launch") < names.index("hidden tests collected") < names.index(
        "fork server hello received")
    assert "torch imported" in names and "self-check done (one fork)" in names
    hello = next(e for e in events if e["event"] == "fork server hello received")
    assert hello["zygote_sympy"] is False, "the fork server's warm-up imported sympy (torch's symbolic shapes)"

    # The report renderers are preloaded at "waiting": after the collection, while the fork server still starts
    # or the first child computes, and in this thread: no second thread runs beside the hidden tests' session
    # (CPython 3.11 AST race, when_idle).
    waited, threads = [], []
    log.unlink()
    start_thread = threading.Thread.start
    monkeypatch.setattr(threading.Thread, "start", lambda thread: (threads.append(thread), start_thread(thread)))
    grade_class(submissions, tmp_path / "waiting", workers=1,
                progress=lambda event, done, total: event == "waiting" and (
                    waited.append(event), profiling.event("progress: waiting")))
    monkeypatch.setattr(threading.Thread, "start", start_thread)
    names = [e["event"] for e in profiling.read(str(log))]
    assert waited == ["waiting"] and threads == []
    assert names.index("hidden tests collected") < names.index("progress: waiting") < names.index(
        "pytest session end")

    graders = tmp_path / "graders"
    shutil.copytree(paths.GRADERS_DIR, graders, ignore=shutil.ignore_patterns("__pycache__"))
    module = graders / "test_attention_scores.py"
    text = module.read_text(encoding="utf-8")
    assert "@pytest.mark.points(" in text
    module.write_text(text.replace("@pytest.mark.points(", "@pytest.mark.points(100 + ", 1), encoding="utf-8")
    edited = {r.student_id: r for r in grade_class(submissions, tmp_path / "here", workers=1, graders_dir=graders)}
    assert sum(t.max_score for t in edited["right"].tests) == code_score["right"][1] + 100
    assert {r.fingerprint for r in edited.values()}.isdisjoint(r.fingerprint for r in here.values())


def test_in_process_grading_clears_a_clashing_test_module_name_and_leaves_packages_alone(tmp_path, monkeypatch):
    """A module imported elsewhere under a hidden test file's bare name (pytest would refuse the clash and
    collect nothing) is dropped before the session; a package's module of the same last name is not touched."""
    monkeypatch.setenv("ATTNKIT_INPROCESS", "1")
    clash = types.ModuleType("test_attention_scores")
    clash.__file__ = str(tmp_path / "elsewhere" / "test_attention_scores.py")
    packaged = types.ModuleType("somecourse.conftest")
    packaged.__file__ = str(tmp_path / "somecourse" / "conftest.py")
    monkeypatch.setitem(sys.modules, "test_attention_scores", clash)
    monkeypatch.setitem(sys.modules, "somecourse.conftest", packaged)
    submissions = write_class(tmp_path / "class", {"right": {f"{a}.py": solution_text(a) for a in paths.ASSIGNMENTS}})
    [result] = grade_class(submissions, tmp_path / "out", workers=1)
    assert result.tests and all(t.score == t.max_score for t in result.tests)
    assert sys.modules.get("test_attention_scores") is not clash and sys.modules["somecourse.conftest"] is packaged


def test_the_graders_own_work_done_while_a_child_computes_never_fails_a_student(tmp_path, monkeypatch, capfd):
    """What the grading process does while the first child computes (preloading the reports) is its own: if it
    fails, the student's row is untouched and the failure is said as the grader's."""
    monkeypatch.setenv("ATTNKIT_INPROCESS", "1")
    submissions = write_class(tmp_path / "class", {"right": {f"{a}.py": solution_text(a) for a in paths.ASSIGNMENTS}})

    def progress(event, done, total):
        if event == "waiting":
            raise ImportError("a report renderer is broken")

    [result] = grade_class(submissions, tmp_path / "out", workers=1, progress=progress)
    assert result.tests and all(t.score == t.max_score for t in result.tests)
    assert "grader: work done while a child computed failed (ImportError: a report renderer is broken)" in \
        capfd.readouterr().err


def test_workers_judge_the_quiz_code_answers_so_the_coordinator_starts_no_fork_server(tmp_path, monkeypatch):
    submissions = tmp_path / "class"
    for name in ("ada", "linus"):
        shutil.copytree(paths.DEMO_CLASS_DIR / name, submissions / name)
    assert list(submissions.rglob("quiz_*.yaml"))
    alone = {r.student_id: r for r in grade_class(submissions, tmp_path / "alone", workers=1)}
    log = tmp_path / "profile.jsonl"
    monkeypatch.setattr(profiling, "PATH", str(log))
    monkeypatch.setenv(profiling.ENV, str(log))  # the workers record theirs too
    sharded = {r.student_id: r for r in grade_class(submissions, tmp_path / "sharded", workers=2)}
    assert sharded == alone
    assert any(item.max_score for r in sharded.values() for q in r.quizzes for item in q.items)
    events = profiling.read(str(log))
    here = [e["event"] for e in events if e["pid"] == os.getpid()]
    assert "quizzes graded" in here and "fork server launch" not in here
    assert sum(e["event"] == "quiz code answers judged" for e in events) == 2
    cache = tmp_path / "sharded" / quizzes.CODE_CACHE
    assert json.loads(cache.read_text(encoding="utf-8")) == json.loads(
        (tmp_path / "alone" / quizzes.CODE_CACHE).read_text(encoding="utf-8"))


def test_no_fork_server_starts_for_a_shard_without_code_to_run(tmp_path, monkeypatch):
    submissions = tmp_path / "class"
    (submissions / "nobody").mkdir(parents=True)
    log = tmp_path / "profile.jsonl"
    monkeypatch.setattr(profiling, "PATH", str(log))
    monkeypatch.setenv("ATTNKIT_INPROCESS", "1")  # the suite's default is workers (tests/conftest.py)
    (result,) = grade_class(submissions, tmp_path / "out", workers=1)
    assert result.problems and all(t.score == 0 for t in result.tests)
    names = [e["event"] for e in profiling.read(str(log))]
    assert "hidden tests collected" in names and "fork server launch" not in names


GRADING_ALONE = """
import sys
from pathlib import Path
from autograder.grading.runner import grade_class
(result,) = grade_class(Path(sys.argv[1]), Path(sys.argv[2]), workers=1)
assert sum(t.score for t in result.tests) == sum(t.max_score for t in result.tests) > 0
rewritten = [n for n, m in list(sys.modules.items()) if n.split(".")[0] == "hypothesis"
             and type(getattr(m, "__loader__", None)).__name__ == "AssertionRewritingHook"]
import gc
assert gc.isenabled() and gc.get_freeze_count() > 100_000, (gc.isenabled(), gc.get_freeze_count())  # torch frozen
print(sorted(m for m in ("sympy", "torch._dynamo", "xdist", "_hypothesis_pytestplugin", "jsonschema", "nbformat")
             if m in sys.modules), len(rewritten))
"""


def test_grading_one_submission_loads_no_sympy_dynamo_or_installed_pytest_plugin(tmp_path):
    """What start-up no longer pays for, in a process that grades one submission from scratch: torch's
    symbolic shapes (sympy) for a seeded backward pass, torch._dynamo (a mode's first use), installed pytest
    plugins (xdist, hypothesis's), assertion rewriting of hypothesis's own modules, and, once the quiz files
    are stamped as checked (`python -m autograder.quiz check`, as the Gradescope image's setup runs it),
    jsonschema; nbformat only for a notebook."""
    submissions = write_class(tmp_path / "class", {"right": {f"{a}.py": solution_text(a) for a in paths.ASSIGNMENTS}})
    cache = tmp_path / "cache"
    env = {**os.environ, "PYTHONPATH": str(paths.ROOT), profiling.ENV: "", checked.ENV: str(cache)}
    subprocess.run([sys.executable, "-m", "autograder.quiz", "check"], cwd=paths.ROOT, env=env, check=True,
                   capture_output=True)
    assert len(list((cache / "quiz-checked").iterdir())) == len(list(paths.QUIZZES_DIR.glob("*.yaml")))
    run = subprocess.run([sys.executable, "-c", GRADING_ALONE, str(submissions), str(tmp_path / "out")],
                         cwd=paths.ROOT, env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.strip().splitlines()[-1] == "[] 0"


def test_the_collector_pauses_only_for_a_first_import_of_torch_and_runs_again_after(tmp_path):
    """A process that already holds torch (this one) grades with the collector as it was: nothing paused,
    nothing frozen; a fresh process pauses it through torch's import and the collection only (the subprocess
    test above checks that it runs again, with start-up's objects frozen)."""
    import gc

    from autograder.grading import startup_gc

    frozen = gc.get_freeze_count()
    submissions = write_class(tmp_path / "class", {"right": {f"{a}.py": solution_text(a) for a in paths.ASSIGNMENTS}})
    seen = []
    original = startup_gc.resume
    startup_gc.resume = lambda: (seen.append(gc.isenabled()), original())
    try:
        grade_class(submissions, tmp_path / "out", workers=1)
    finally:
        startup_gc.resume = original
    assert seen and all(seen), "the collector was paused in a process that already held torch"
    assert gc.isenabled() and gc.get_freeze_count() == frozen
    code = ("import gc, sys\nfrom autograder.grading import startup_gc\nstartup_gc.pause()\n"
            "paused = not gc.isenabled()\nimport torch\nstartup_gc.resume()\n"
            "print(paused, gc.isenabled(), gc.get_freeze_count() > 100_000)")
    run = subprocess.run([sys.executable, "-c", code], cwd=paths.ROOT, capture_output=True, text=True, check=True)
    assert run.stdout.split() == ["True", "True", "True"]


def test_a_profiled_process_reports_its_garbage_collector_time_at_exit(tmp_path):
    """The profile's exit event says how long the collector ran in that process (bench-startup prints it)."""
    log = tmp_path / "profile.jsonl"
    code = ("import gc\nfrom autograder import profiling\nprofiling.event('start')\ngc.collect()\ngc.collect()\n"
            "from autograder.process_exit import exit_now\nexit_now(0)")
    subprocess.run([sys.executable, "-c", code], cwd=paths.ROOT, check=True,
                   env={**os.environ, "PYTHONPATH": str(paths.ROOT), profiling.ENV: str(log)})
    [done] = [e for e in profiling.read(str(log)) if e["event"] == "exit"]
    assert done["collector_passes"] >= 2 and done["collector_s"] >= 0


def test_the_handout_notebooks_read_as_json_give_what_nbformat_gives():
    """The kit reads its own handout notebooks as plain JSON (to tell an untouched file from an edited one);
    what that gives is what nbformat's reading gives, cell for cell."""
    for folder in (paths.ASSIGNMENTS_DIR, paths.SOLUTIONS_DIR):
        for name in paths.ASSIGNMENTS:
            raw = (folder / name / f"{name}.ipynb").read_bytes()
            assert notebook_cells(raw, handout=True) == notebook_cells(raw)
            assert notebook_cells(raw, handout=True)[0]


shapes = st.lists(st.integers(1, 4), min_size=0, max_size=3)


@settings(max_examples=40, deadline=None)
@given(shapes, st.sampled_from([torch.float32, torch.float64]), st.integers(0, 2 ** 31 - 1),
       st.booleans(), st.booleans())
def test_a_seeded_backward_pass_gives_torchs_gradients_bit_for_bit(shape, dtype, seed, through_softmax, with_grad):
    """seeded.backward and seeded.grad (used so that no process imports sympy) against torch's own calls."""
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(shape, dtype=dtype, generator=generator)
    weight = torch.randn(shape, dtype=dtype, generator=generator)
    upstream = torch.randn(shape, dtype=dtype, generator=generator) * 1e3

    def forward(leaf):
        out = leaf * weight + leaf.pow(3)
        return torch.softmax(out, -1) if through_softmax and out.dim() else out

    grads = []
    for backward in (torch.autograd.backward, seeded.backward):
        leaf = x.clone().requires_grad_(True)
        backward(forward(leaf), upstream)
        grads.append(leaf.grad)
    assert torch.equal(grads[0], grads[1])
    if with_grad:
        leaf = x.clone().requires_grad_(True)
        (ours,) = seeded.grad(forward(leaf), [leaf], upstream)
        (theirs,) = torch.autograd.grad(forward(leaf), [leaf], upstream)
        assert torch.equal(ours, theirs)


@pytest.mark.parametrize("output, upstream", [
    (torch.ones(2, 3), torch.ones(3, 2)),                    # another shape: torch's "Mismatch in shape"
    (torch.ones(2, 3), torch.ones(1, 3)),                    # one that would broadcast in a product
    (torch.ones(2, 3), torch.ones(2, 3, dtype=torch.float64)),  # another dtype
    (torch.ones(2, 3, dtype=torch.float16), torch.ones(2, 3, dtype=torch.float16)),  # no need to differ
], ids=["transposed", "broadcastable", "dtype", "half"])
def test_a_seeded_backward_pass_fails_or_succeeds_as_torch_does(output, upstream):
    outcomes = []
    for backward in (torch.autograd.backward, seeded.backward):
        leaf = output.clone().requires_grad_(True)
        try:
            backward(leaf * 2, upstream)
            outcomes.append(("ok", leaf.grad.dtype, leaf.grad.tolist()))
        except RuntimeError as exc:
            outcomes.append(("error", str(exc)))
    assert outcomes[0] == outcomes[1]
    no_graph = []
    for backward in (torch.autograd.backward, seeded.backward):
        try:
            backward(torch.ones(2, 3), torch.ones(2, 3))
        except RuntimeError as exc:
            no_graph.append(str(exc))
    assert len(no_graph) == 2 and no_graph[0] == no_graph[1]
