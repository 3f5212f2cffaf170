"""Property tests of the hidden graders over the documented input space (autograder/grading/space.py).

hypothesis draws points of the space the handouts promise (sizes with their edge cases and coincidences, every
mask dtype, shape and layout, allowed scores down to -1e4) and runs the graders' own checks on them:
- the reference solution and every correct catalogue style never fail on any drawn input;
- every wrong catalogue entry still fails each hidden test it is listed for.

The student's code runs in this process through the child's own harness (catalogue code is the kit's own, not
a student's), so the checks and the probe runner are the ones the engine uses, without the sandbox's cost.
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch
from hypothesis import HealthCheck, given, settings, strategies as st

from autograder import paths
from autograder.grading import space, space_strategies, tolerance as tol
from autograder.grading.student import StudentFault, StudentFile
from autograder.grading.submissions import SourceFile
from tests import probe_detecting_cheats
from tests.classroom import solution_text

sys.path.insert(0, str(paths.ROOT / "autograder" / "sandbox" / "child"))
import harness  # noqa: E402 - the child's probe runner

CATALOGUE = Path(__file__).resolve().parent / "catalogue"
PROPERTY = settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), database=None,
                    derandomize=True)


def grader(assignment: str):
    spec = importlib.util.spec_from_file_location(f"graders_{assignment}", paths.GRADERS_DIR / f"test_{assignment}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GRADERS = {a: grader(a) for a in paths.ASSIGNMENTS}


class LocalChild:
    """The child's Harness, answering in this process."""
    usable = True

    def __init__(self):
        self.harness = harness.Harness()

    def request(self, request, timeout):
        handle = {"load": self.harness.load, "sequence": self.harness.sequence,
                  "runs": self.harness.runs}.get(request["op"], self.harness.run)
        return handle(request)

    def close(self):
        pass


def local_student(assignment: str, text: str) -> StudentFile:
    limits = SimpleNamespace(submission_seconds=600, load_seconds=60, call_seconds=60, sequence_call_seconds=1)
    server = SimpleNamespace(config=SimpleNamespace(limits=limits), spawn=lambda deadline: LocalChild())
    source = SourceFile(assignment, f"{assignment}.py", (text.replace('if __name__ == "__main__"', "if False"),))
    return StudentFile(server, source)


def entry(path: Path):
    spec = importlib.util.spec_from_file_location(f"property_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def entry_text(module) -> str:
    on_reference = getattr(module, "ON_REFERENCE", False) or hasattr(module, "CAUGHT_BY")
    return solution_text(module.ASSIGNMENT) + "\n\n" + module.CODE if on_reference else module.CODE


CORRECT = {p.stem: entry(p) for p in sorted((CATALOGUE / "correct").glob("*.py"))}
WRONG = {p.stem: entry(p) for p in sorted((CATALOGUE / "wrong").glob("*.py"))}
TEXTS = {("reference", a): solution_text(a) for a in paths.ASSIGNMENTS}
TEXTS.update({(n, e.ASSIGNMENT): entry_text(e) for n, e in CORRECT.items() if not getattr(e, "KNOWN_GAP", None)})
STYLES = [pytest.param(name, assignment, id=f"{name}-{assignment}") for name, assignment in TEXTS]
_STUDENTS: dict = {}


def students(name: str, assignment: str) -> StudentFile:
    if (name, assignment) not in _STUDENTS:
        _STUDENTS[name, assignment] = local_student(assignment, TEXTS[name, assignment])
    return _STUDENTS[name, assignment]


def run_mask_probe(student, assignment, probe: space.MaskProbe):
    g = GRADERS[assignment]
    scores, mask, allowed = probe.build()
    layouts = {"0": {"1": probe.child_layout()}} if probe.child_layout() else None
    if assignment == "attention_scores":
        got = student.run("apply_mask", scores, mask, layouts=layouts, check_inputs=True).output
        g.check_masked_scores(got, scores, allowed, f"apply_mask with {probe.describe()}")
        got = student.run("attention_weights", scores, mask, layouts=layouts).output
        want = g.weights_reference(scores, allowed)
        g.expect.masked_are_zero(got, allowed, "attention_weights")
        g.expect.rows_sum_to_one(got, "attention_weights", "", want)
        g.expect.within(got, want, "attention_weights")
    else:
        (Q, K, V, mask), allowed = g.drawn_attention_inputs(probe, probe.pattern_seed % 97)
        got = student.run("attention", Q, K, V, mask, layouts={"0": {"3": probe.child_layout()}}).output
        g.check_attention_reply(got, tol.attention(Q, K, V, allowed), allowed, f"attention with {probe.describe()}")


@pytest.mark.parametrize("name, assignment", STYLES)
@PROPERTY
@given(probe=st.one_of(space_strategies.mask_probes(), st.sampled_from(space.edge_masks(3))))
def test_correct_styles_pass_every_drawn_mask(name, assignment, probe):
    run_mask_probe(students(name, assignment), assignment, probe)


@pytest.mark.parametrize("name, assignment", STYLES)
@PROPERTY
@given(size=st.one_of(space_strategies.sizes(), st.sampled_from(space.edge_sizes())), seed=st.integers(0, 10_000))
def test_correct_styles_pass_every_drawn_size(name, assignment, size, seed):
    student = students(name, assignment)
    B, T_q, T_k, d = size
    g = GRADERS[assignment]
    if assignment == "attention_scores":
        for fn, scale in (("dot_scores", 1.0), ("scaled_dot_scores", d ** -0.5)):
            g.check_scores(student, fn, lambda _: scale, [size], seed)
    else:
        Q, K, V, S = g.inputs(seed, (B, T_q, d), (B, T_k, d), (B, T_k, 1 + seed % 5), (B, T_q, 1 + seed % 5))
        g.check_attention_reply(student.call("attention", Q, K, V), tol.attention(Q, K, V), None, "attention")
        reply = student.run("attention", Q, K, V, grad_args=(0, 1, 2), backward={"index": 0, "grad": S})
        for index, reference in enumerate(tol.attention_backward(Q, K, V, S)):
            g.expect.within(reply.arg_grads[str(index)], reference, f"gradient {index}")
        d_model = 1 + seed % 9
        params = g.module_weights(seed, d_model, d)
        x_q, x_kv = g.inputs(seed + 1, (B, T_q, d_model), (B, T_k, d_model))
        reply = student.run("SingleHeadAttention", x_q, x_kv, init=(d_model, d), params=params)
        g.check_attention_reply(reply.output, g.reference_layer(params, x_q, x_kv), None, "layer")


# Entries that need the sandbox to be caught (fused kernels: switched off only in the fork server).
NEEDS_SANDBOX = {"forbidden-api"}


def wrong_cases():
    cases = []
    for name, module in WRONG.items():
        ids = {module.MISTAKE_ID} if isinstance(module.MISTAKE_ID, str) else set(module.MISTAKE_ID)
        if ids & NEEDS_SANDBOX or getattr(module, "KNOWN_GAP", None):
            continue
        for test in module.CAUGHT_BY:
            if test != "test_file_leaves_the_kernel_watch_alone":
                cases.append(pytest.param(name, test, id=f"{name}-{test}"))
    return cases


@pytest.mark.parametrize("name, test", wrong_cases())
def test_wrong_entries_fail_what_they_are_listed_for(name, test):
    module = WRONG[name]
    student = local_student(module.ASSIGNMENT, entry_text(module))
    hidden = getattr(GRADERS[module.ASSIGNMENT], test)
    kwargs = {}
    if "saturation_reference" in hidden.__code__.co_varnames[:hidden.__code__.co_argcount]:
        kwargs["saturation_reference"] = {"raw": "-", "scaled": "-"}
    with pytest.raises(StudentFault):
        hidden(student, **kwargs)


def test_drawn_probes_are_the_same_on_every_run_and_move_with_the_seed_sweep(monkeypatch):
    first = space.draw_examples("masks", 6, 77)
    space_strategies.drawn.cache_clear()
    assert space.draw_examples("masks", 6, 77) == first
    monkeypatch.setenv("ATTNKIT_SEED_SHIFT", "3")
    assert space.draw_examples("masks", 6, 77) != first


def test_grading_draws_no_probe_live_and_never_reads_a_stale_store(monkeypatch):
    """Every draw the graders make comes from graders/probes.json (tests/test_generated.py proves the file is
    what `make assignments` draws now), so grading needs neither hypothesis nor the time to draw: the same
    probes whatever else the grading process has loaded (hypothesis's choices can depend on it). A store
    written for another version of the space is never read."""
    space._stored.cache_clear()
    assert space._stored(), "graders/probes.json is missing or stale: run `make assignments`"
    monkeypatch.setattr(space_strategies, "drawn", lambda *a: pytest.fail(f"drawn live: {a}"))
    for assignment, test in [("attention_scores", "test_dot_scores_values"), ("attention_scores",
                             "test_scaled_dot_scores_values"), ("attention_scores", "test_apply_mask_values"),
                             ("attention_scores", "test_attention_weights_mask"),
                             ("single_head_attention", "test_attention_masks")]:
        getattr(GRADERS[assignment], test)(local_student(assignment, solution_text(assignment)))
    monkeypatch.setattr(space, "fingerprint", lambda: "another version of the space")
    space._stored.cache_clear()
    assert space._stored() == {}
    space._stored.cache_clear()


def test_the_drawn_space_covers_what_the_handout_promises():
    probes = space.draw_examples("masks", 400, 5)
    assert {p.dtype for p in probes} == set(space.MASK_DTYPES)
    assert {p.form for p in probes} == set(space.MASK_FORMS)
    assert {p.layout for p in probes} == set(space.LAYOUTS)
    assert min(p.depth for p in probes) == -9000.0
    sizes = space.draw_examples("sizes", 400, 6)
    assert any(B == 1 for B, *_ in sizes) and any(T_q == 1 for _, T_q, _, _ in sizes)
    assert any(T_q == B != 1 for B, T_q, _, _ in sizes) and any(T_k == d != 1 for _, _, T_k, d in sizes)
    assert any(T_q != T_k for _, T_q, T_k, _ in sizes)
    for probe in probes[:50]:
        scores, _, allowed = probe.build()
        assert allowed.any(-1).all(), "every row keeps an allowed key"
        assert scores.abs().max() <= space.SCORE_LIMIT


CHEATS = probe_detecting_cheats.cheats()


@pytest.mark.parametrize("cheat", CHEATS, ids=[c.name for c in CHEATS])
def test_probe_detecting_cheats_fail_a_hidden_test(cheat):
    """A small fill unless a statistic of the call looks like a probe (tests/probe_detecting_cheats.py) still
    leaks on one of the graders' probes: the hidden test of that function gives it nothing."""
    student = local_student(cheat.assignment, solution_text(cheat.assignment) + "\n\n" + cheat.code)
    with pytest.raises(StudentFault, match="forbidden key"):
        getattr(GRADERS[cheat.assignment], cheat.caught_by)(student)


@pytest.mark.parametrize("assignment, test", sorted({(c.assignment, c.caught_by) for c in CHEATS}))
def test_the_reference_passes_the_tests_that_catch_probe_detecting_cheats(assignment, test):
    getattr(GRADERS[assignment], test)(local_student(assignment, solution_text(assignment)))


@pytest.mark.parametrize("carry", ["inputs", "weights"])
def test_the_layers_deep_calls_put_each_row_at_its_probes_depth_within_the_handouts_range(carry):
    """The layer's mask tests build their scores through W_Q, W_K and the inputs: each query row must sit at
    the depth its probe gives it (rows of several depths in one call), every allowed score within |s| <= 1e4,
    and the size that makes the depth must sit only where `carry` says (so that input and weight sizes differ)."""
    probes = space.mask_draws(8, 42)
    params, calls, _ = GRADERS["single_head_attention"].deep_layer(carry, probes)
    W_Q, W_K = params["W_Q.weight"].double(), params["W_K.weight"].double()
    assert (W_Q.abs().max() > 100) == (carry == "weights")
    for probe, (x_q, x_kv, _, allowed) in zip(probes, calls):
        assert (max(x_q.abs().max(), x_kv.abs().max()) > 10) == (carry == "inputs" and probe.depth <= -50)
        scores = (x_q.double() @ W_Q.T) @ (x_kv.double() @ W_K.T).transpose(-2, -1) / W_K.shape[0] ** 0.5
        assert scores.abs().max() <= space.SCORE_LIMIT
        assert (scores - probe.row_depths().unsqueeze(-1)).abs().max() < 60
        if probe.T_k > 1:
            assert (~allowed).any(-1).all(), "every row forbids a key"
