"""No failure earns more than the stub: for every graded function and class of both assignments, a version that
crashes its process, runs out of time, exhausts memory or raises is graded beside the untouched stub of the same
definition (the rest of the file being the reference solution), and no question may give the failing version more
points than the stub. Points then follow from what a student's code provably does, never from how it failed.
"""
from __future__ import annotations

import ast
import json
from collections import defaultdict

import pytest

from autograder import paths
from tests.classroom import grade, solution_text, stub_text, write_class

pytestmark = pytest.mark.slow

FAILURES = {
    "crash": "__import__('os')._exit(3)",
    "hang": "while True: pass",
    "memory": "hoard = torch.ones(1 << 38)",  # 1 TiB: refused by the memory limit at once
    "raises": "raise RuntimeError('broken')",
}


TIMED_OUT = "s of CPU time (an infinite loop"  # how a probe stopped by the CPU time limit is reported


def stub_definitions(assignment: str) -> dict[str, str]:
    """Every top-level definition of the handout that still has a NotImplementedError line, by name."""
    text = stub_text(assignment)
    tree = ast.parse(text)
    found = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            source = ast.get_source_segment(text, node)
            if "raise NotImplementedError" in source:
                found[node.name] = source
    return found


def failing(definition: str, statement: str) -> str:
    lines = []
    for line in definition.splitlines():
        if line.strip().startswith("raise NotImplementedError"):
            line = line[:len(line) - len(line.lstrip())] + statement
        lines.append(line)
    return "\n".join(lines)


def students() -> dict[str, tuple[str, str, str]]:
    """student id -> (assignment, definition name, variant)"""
    made = {}
    for assignment in paths.ASSIGNMENTS:
        for name in stub_definitions(assignment):
            for variant in ("stub", *FAILURES):
                made[f"{name}-{variant}"] = (assignment, name, variant)
    return made


def question_scores(result, assignment: str) -> dict[str, float]:
    scores = defaultdict(float)
    for test in result.tests:
        if test.assignment == assignment:
            scores[test.question] += test.score
    return dict(scores)


def test_no_failure_earns_more_than_the_stub(tmp_path, monkeypatch):
    # Short probe time-outs keep the hanging versions cheap: each probe of theirs costs its whole limit, one
    # call's or, for the calls a hidden test sends in one round trip, a sequence's (the call's plus a share per
    # call: 77 calls took 8.7 s of the 1 s call). Both count CPU time, and the reference solution gets full
    # marks with limits of 0.02 s and 0.001 s per call, so these leave every finished call far inside them.
    monkeypatch.setenv("ATTNKIT_SANDBOX_LIMITS", json.dumps({"call_seconds": 0.25, "sequence_call_seconds": 0.01}))
    plan = students()
    files = {}
    for student, (assignment, name, variant) in plan.items():
        definition = stub_definitions(assignment)[name]
        code = definition if variant == "stub" else failing(definition, FAILURES[variant])
        files[student] = {f"{assignment}.py": solution_text(assignment) + "\n\n" + code + "\n"}
    results = grade(write_class(tmp_path / "class", files), tmp_path / "out", workers=2)
    beaten = []
    for student, (assignment, name, variant) in plan.items():
        if variant == "stub":
            continue
        stub = question_scores(results[f"{name}-stub"], assignment)
        for question, score in question_scores(results[student], assignment).items():
            if score > stub.get(question, 0.0):
                beaten.append(f"{name} ({variant}) earns {score} in {question}, the stub {stub.get(question, 0.0)}")
    assert not beaten, "\n".join(beaten)
    timed_out = {student for student, result in results.items()
                 if any(TIMED_OUT in test.output for test in result.tests)}
    assert timed_out == {student for student, (_, _, variant) in plan.items() if variant == "hang"}, \
        "every hanging version is stopped by the time limit, and the short limits stop no finished call"
    assert len(plan) >= 5 * 10, "every graded definition of both assignments takes part"
