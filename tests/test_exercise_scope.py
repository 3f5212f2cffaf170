"""An exercise name means something only in its assignment (diagnosis/registry.py: OWNERS, Scope).

A new master may declare an exercise named like one of the kit's (`attention`, `SingleHeadAttention`,
`apply_mask`): it is another function, and the engine's references, mistake models, searched pipelines and judging
rules of that name must never reach it. Generator: for every built-in target, a wrong code that its own
assignment's diagnosis names; the same calls, made in a new master's file or in the other assignment's, are judged
by nothing and named by no mistake."""
from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import pytest
import torch

from autograder import paths
from autograder.authoring.known import known_block
from autograder.authoring.master import Cell, MasterError, read_master
from autograder.diagnosis import Diagnoser
from autograder.diagnosis.registry import OWNERS, Scope
from autograder.grading.diagnose import record_call
from autograder.grading.student import StudentFile
from autograder.grading.submissions import SourceFile
from tests.diagnosis_cases import observe, probes, student_namespace

NEW_MASTER = "multi_head_attention"  # the next lesson's master, whose exercises reuse the kit's names


def wrong_codes_by_target() -> dict[str, list[tuple]]:
    """{built-in target: [(assignment, mistake, code)]}: the diagnosis tests' wrong codes (catalogue and handwritten)."""
    from tests.test_diagnosis import CASES

    found: dict[str, list[tuple]] = {}
    for _, assignment, target, mistake, code in CASES:
        found.setdefault(target, []).append((assignment, mistake, code))
    return found


WRONG_CODES = wrong_codes_by_target()


def test_every_built_in_target_belongs_to_one_assignment_of_this_course():
    assert set(OWNERS.values()) <= set(paths.ASSIGNMENTS)
    assert set(WRONG_CODES) == set(OWNERS)  # the generator reaches every target


pytestmark = pytest.mark.usefixtures("one_torch_thread")  # small float64 tensors: a second thread only contends


def diagnoser_of(assignment: str | None, observations) -> Diagnoser:
    diagnoser = Diagnoser(Scope(assignment))
    for observation in observations:
        diagnoser.record(observation)
    return diagnoser


def named_in_its_own_assignment(target: str):
    """(assignment, observations, own diagnoser): the first wrong code of `target` its own assignment names."""
    for assignment, mistake, code in WRONG_CODES[target]:
        namespace = student_namespace(assignment, code)
        observations = [observe(namespace, probe) for probe in probes(target, 0) + probes(target, 1)]
        own = diagnoser_of(assignment, observations)
        if mistake in {d.mistake for d in own.explain()}:
            return assignment, observations, own
    raise AssertionError(f"no wrong code of {target} is named in its own assignment")


@pytest.mark.parametrize("target", sorted(OWNERS))
def test_a_name_of_another_assignment_gets_none_of_its_diagnoses(target):
    assignment, observations, own = named_in_its_own_assignment(target)
    assert {d.mistake for d in own.explain()} == {d.mistake for d in diagnoser_of(None, observations).explain()}
    for elsewhere in [NEW_MASTER] + [a for a in set(OWNERS.values()) if a != assignment]:
        foreign = diagnoser_of(elsewhere, observations)
        assert foreign.explain() == () and foreign.explain_by_target() == {}, elsewhere
        assert not any(foreign._case(i).deviates for i in range(len(foreign))), "judged by another's reference"
        scope = foreign.scope
        assert scope.models_for(target) == [] and scope.pipeline_for(target) is None
        assert not scope.exact_zeros(target) and scope.square(observations[0].probe, 1) is None
        with pytest.raises(KeyError):
            scope.reference(observations[0].probe.in_float64())


def test_a_student_file_is_diagnosed_by_its_own_assignments_targets():
    """What grading builds: a student's file of the new master, calls of its `attention` recorded as the sandbox's
    replies come back, and a wrong result (zeros) named by nothing; the same in the kit's own assignment is."""
    server = SimpleNamespace(config=SimpleNamespace(limits=SimpleNamespace(submission_seconds=60)))
    Q, K, V = (torch.randn(2, 3, 4, generator=torch.Generator().manual_seed(seed)) for seed in (1, 2, 3))
    request = {"target": "attention", "args": [Q, K, V]}
    unscaled = torch.softmax(Q @ K.transpose(-2, -1), dim=-1)  # the lesson's attention without 1/sqrt(d_k)
    reply = {"ok": True, "output": [unscaled @ V, unscaled]}
    named = {}
    for assignment in (NEW_MASTER, "single_head_attention"):
        student = StudentFile(server, SourceFile(assignment, f"{assignment}.py"))
        assert student.diagnoser.scope == Scope(assignment)
        record_call(student.diagnoser, request, reply)
        named[assignment] = {d.mistake for d in student.diagnoser.explain()}
    assert named[NEW_MASTER] == set() and named["single_head_attention"], named


CHECK = '''@test_case(points=None, hidden=False)
def test_fixed(attention):
    import torch
    Q, K, V = torch.ones(1, 2, 3), torch.eye(3)[None], torch.eye(3)[None]
    result = attention(Q, K, V)
    assert torch.allclose(result[0], torch.ones(1, 2, 3) / 3), "wrong." + known_mistake("test_fixed", 0, result)'''


def test_a_new_masters_public_check_cannot_borrow_another_assignments_known_mistakes():
    real = read_master(paths.SOURCE_DIR / "single_head_attention.py")
    cells = tuple(c for c in real.cells if not (c.role == "public" and c.exercise == "attention"))
    master = replace(real, cells=cells + (Cell("public", CHECK, "attention"),))
    assert "KNOWN_MISTAKES = " in known_block(master, "attention")
    with pytest.raises(MasterError, match=f"^{NEW_MASTER}.py: the public checks of attention call known_mistake"):
        known_block(replace(master, name=NEW_MASTER), "attention")
