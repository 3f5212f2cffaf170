"""A declared spec (docs/authoring.md, "Declaring a spec") judged in-process, without a sandbox: the probes it
generates, the float32 bound derived from the reference, the declared mistakes' edits and the refusals of
`make assignments`. The new course's master (tests/new_course/temperature.py) is the declaration under test; the
sandboxed round trip is tests/test_new_assignment.py's."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
import torch
from hypothesis import given, settings, strategies as st

from autograder.authoring.master import Master, MasterError, read_master
from autograder.authoring.spec_render import declaration, edited_sources, hidden_tests, reference_source, setup_source
from autograder.grading.spec_judge import Declared
from autograder.grading.spec_space import SpecError, read
from autograder.grading.student import SEED_SHIFT

MASTER = read_master(Path(__file__).parent / "new_course" / "temperature.py")


def declared(master: Master, exercise: str, spec_text: str | None = None) -> Declared:
    spec = read(exercise, spec_text) if spec_text else declaration(master, exercise)
    return Declared(spec, setup_source(master), reference_source(master, exercise), edited_sources(master, spec))


def caught(judged: Declared, function, group: str) -> list[bool]:
    """For each probe of `group`: does `function`, run in float32 as a student's code would, fail the check?"""
    found = []
    for probe, want in zip(judged.groups[group], judged.reference_results(group)):
        try:
            got = judged.run(function, probe, torch.float32)
        except Exception:  # noqa: BLE001 - raising fails the check too
            found.append(True)
            continue
        found.append(not judged.agrees(got, want))
    return found


def with_cell(master: Master, exercise: str, role: str, text: str) -> Master:
    cells = tuple(type(c)(c.role, text, c.exercise) if (c.role, c.exercise) == (role, exercise) else c
                  for c in master.cells)
    return Master(master.name, cells)


def test_the_edges_reach_every_bound_coincidence_and_rank():
    labels = [p.label for p in declared(MASTER, "sharpen").groups["edges"]]
    for edge in ("T_k = 1, its lower bound", "T_k = 16, its upper bound", "scores with 1 leading dim",
                 "scores with 3 leading dims", "tau = 0.25, its lower bound", "tau = 4, its upper bound",
                 "scores reaching -8 and 8"):
        assert edge in labels, (edge, labels)
    layer = declared(MASTER, "TemperatureAttention")
    labels = [p.label for p in layer.groups["edges"]]
    for edge in ("B = T = 2", "B = d = 2", "T = d = 3", "d = 1, its lower bound", "mask of size 1 in dim 3 (T), broadcast"):
        assert edge in labels, (edge, labels)
    draws = layer.groups["draws"]
    assert len(draws) == 6 and all(len(set(p.sizes.values())) == 3 for p in draws)  # distinct where they can be
    again = declared(MASTER, "TemperatureAttention").groups["draws"]
    assert all(torch.equal(a.args[0], b.args[0]) for a, b in zip(draws, again))     # the same for every student


@pytest.mark.parametrize("exercise", ["sharpen", "TemperatureAttention"])
def test_another_correct_float32_code_passes_and_each_mistake_fails(exercise):
    judged = declared(MASTER, exercise)

    if exercise == "TemperatureAttention":
        reference = judged.reference

        class Other(reference):   # the same layer, its softmax written with exp and its scale divided first
            def forward(self, x, mask):
                Q, K, V = self.W_q(x) / self.tau, self.W_k(x), self.W_v(x)
                scores = torch.einsum("btd,bsd->bts", Q, K).masked_fill(mask == 0, float("-inf"))
                e = (scores - scores.amax(-1, keepdim=True)).exp()
                return torch.einsum("bts,bsd->btd", e / e.sum(-1, keepdim=True), V)
        other = Other
    else:
        other = _max_subtracted
    for group in ("edges", "draws"):
        assert not any(caught(judged, other, group)), group
        for mistake, function in judged.mistakes.items():
            assert any(caught(judged, function, group)), (mistake, group)
    assert judged.refusals() == []


def _max_subtracted(scores, tau):
    z = scores / tau
    e = (z - z.amax(-1, keepdim=True)).exp()
    return e / e.sum(-1, keepdim=True)


# sharpen written otherwise, each rounding elsewhere than the reference
RIGHT_SHARPENS = (_max_subtracted, lambda scores, tau: torch.log_softmax(scores / tau, -1).exp(),
                  lambda scores, tau: torch.nn.functional.softmax(scores * (1.0 / tau), dim=-1),
                  lambda scores, tau: torch.softmax(scores.double() / tau, -1).float())


@settings(max_examples=25)
@given(t_k=st.tuples(st.integers(1, 12), st.integers(0, 8)), tau=st.tuples(st.floats(0.1, 3.0), st.floats(0.0, 3.0)),
       values=st.floats(0.5, 20.0), leading=st.integers(0, 2), shift=st.integers(0, 3))
def test_the_spec_never_fails_the_reference_and_fails_the_mistake_or_refuses_it(t_k, tau, values, leading, shift):
    """Any declared space of sharpen, at any seed shift: the reference (float32) and right code written otherwise pass
    every edge and draw, and the declared mistake fails each group, or the declaration is refused naming it."""
    import os
    spec = (f'{{"sizes": {{"T_k": [{t_k[0]}, {t_k[0] + t_k[1]}]}}, "args": {{"scores": {{"shape": "... T_k", '
            f'"leading": [{leading}, {leading + 1}], "values": [{-values}, {values}]}}, "tau": {{"float": '
            f'[{tau[0]}, {tau[0] + tau[1]}]}}}}, "draws": 3, "mistakes": {{"temperature-multiplied": {{"edit": '
            f'"operator-div-mul", "at": "scores / tau", "says": "multiplied"}}}}}}')
    before = os.environ.get(SEED_SHIFT)
    os.environ[SEED_SHIFT] = str(shift)
    try:
        judged = declared(MASTER, "sharpen", spec)
        for group in ("edges", "draws"):
            for right in (judged.reference, *RIGHT_SHARPENS):   # the bound is derived, not too tight for any of them
                assert not any(caught(judged, right, group)), (group, right)
        refused = judged.refusals()
        wrong = judged.mistakes["temperature-multiplied"]
        uncaught = [g for g in ("edges", "draws") if judged.groups[g] and not any(caught(judged, wrong, g))]
        assert bool(refused) == bool(uncaught), (refused, uncaught)   # refused exactly when a group cannot catch it
        if refused:
            assert f"temperature-multiplied of sharpen gives the reference's results on every one of its {uncaught[0]}" \
                   in refused[0]
    finally:
        if before is None:
            os.environ.pop(SEED_SHIFT, None)
        else:
            os.environ[SEED_SHIFT] = before


def spec_of(exercise: str) -> str:
    return MASTER.of("spec", exercise)[0].source


@pytest.mark.parametrize("change, refusal", [
    (('"at": "scores / tau"', '"at": "scores - tau"'), "no `operator-div-mul` edit changes `scores - tau`"),
    (('"edit": "operator-div-mul"', '"edit": "keyword-dim-dropped"'),
     "no `keyword-dim-dropped` edit changes `scores / tau` in the reference (the edits of that code: divisor-dropped, operands-swapped, operator-div-mul, "),
    (('"values": [-8, 8]', '"values": [8, -8]'), "`values` is [lowest, highest]"),
    (('"T_k": [1, 16]', '"T_k": [1, 1]'), "mistake temperature-multiplied of sharpen gives the reference's results "
                                          "on every one of its edges and draws probes, so no check can catch it"),
])
def test_a_declaration_that_cannot_grade_is_refused_in_one_sentence(change, refusal):
    master = with_cell(MASTER, "sharpen", "spec", spec_of("sharpen").replace(*change))
    with pytest.raises((MasterError, SpecError)) as refused:
        hidden_tests(master)
    assert refusal in str(refused.value) and str(refused.value).count(". ") == 0, str(refused.value)


def test_two_mistakes_that_cannot_be_told_apart_are_refused():
    text = spec_of("TemperatureAttention").replace('"mistakes": {', '''"mistakes": {
        "softmax-over-queries-again": {"edit": "axis-of-softmax", "at": "torch.softmax(scores, dim=-1)",
                                       "to": "torch.softmax(scores, dim=-2)", "says": "the same"},''')
    with pytest.raises(MasterError, match="mistakes softmax-over-queries-again and softmax-over-queries of "
                                          "TemperatureAttention give the same results on every edges probe"):
        hidden_tests(with_cell(MASTER, "TemperatureAttention", "spec", text))


def test_a_student_equal_to_the_edited_reference_is_named_and_no_one_else():
    judged = declared(MASTER, "sharpen")
    wrong = judged.mistakes["temperature-multiplied"]
    for group in ("edges", "draws"):
        probes = judged.groups[group]
        named = judged.named(group, [judged.run(wrong, p, torch.float32) for p in probes])
        assert [d.mistake for d in named] == ["temperature-multiplied"]
        assert named[0].title == "the scores are multiplied by the temperature instead of divided by it"
        other = judged.named(group, [judged.run(wrong, p, torch.float32) * 0.5 for p in probes])
        assert other == ()   # wrong, but not as declared: the symptom alone


@settings(max_examples=4)
@given(shift=st.integers(1, 50))
def test_the_layer_written_otherwise_passes_at_any_seed_shift(shift):
    import os
    before = os.environ.get(SEED_SHIFT)
    os.environ[SEED_SHIFT] = str(shift)
    try:
        judged = declared(MASTER, "TemperatureAttention")
        reference = judged.reference

        class Other(reference):   # the scale applied to Q first, scores and mix with einsum, softmax by hand
            def forward(self, x, mask):
                Q, K, V = self.W_q(x) / self.tau, self.W_k(x), self.W_v(x)
                scores = torch.einsum("btd,bsd->bts", Q, K).masked_fill(mask == 0, float("-inf"))
                e = (scores - scores.amax(-1, keepdim=True)).exp()
                return torch.einsum("bts,bsd->btd", e / e.sum(-1, keepdim=True), V)
        for group in ("edges", "draws"):
            assert not any(caught(judged, Other, group)), group
            assert any(caught(judged, judged.mistakes["softmax-over-queries"], group)), group
    finally:
        if before is None:
            os.environ.pop(SEED_SHIFT, None)
        else:
            os.environ[SEED_SHIFT] = before


def test_sizes_declared_apart_never_coincide_and_the_others_do():
    text = ('{"sizes": {"T_q": [1, 4], "T_k": [1, 4], "d": [2, 2]}, "args": {"Q": {"shape": "T_q d"}, '
            '"K": {"shape": "T_k d"}}, "apart": [["T_q", "T_k"]]}')
    apart = read("scores", text)
    from autograder.grading.spec_space import draws, edges
    for probe in edges(apart) + draws(apart):
        assert probe.sizes["T_q"] != probe.sizes["T_k"], probe.label
    labels = [p.label for p in edges(apart)]
    assert "T_q = 1, its lower bound" in labels and "T_q = d = 2" in labels and "T_k = d = 2" in labels
    together = read("scores", text.replace('"apart": [["T_q", "T_k"]]', '"apart": []'))
    assert "T_q = T_k = 2" in [p.label for p in edges(together)]


# --- the walk's multi-head master (tests/walk_course/): relations between sizes, a dropped scale, refusals -------

WALK = read_master(Path(__file__).parent / "walk_course" / "multi_head_attention.py")


def test_a_derived_size_is_the_product_of_its_factors_on_every_probe_and_said_as_a_relation():
    from autograder.authoring.spec_render import expected_where_silent
    from autograder.grading.spec_space import draws, edges
    spec = declaration(WALK, "MultiHeadAttention")
    models = set()
    for probe in edges(spec) + draws(spec):
        d_model, h = probe.init
        assert d_model == h * probe.sizes["d_head"] == probe.args[0].shape[-1] == probe.args[1].shape[-1], probe.label
        models.add(d_model)
    assert len(models) >= 4, models   # d_model is varied, through its factors
    text = expected_where_silent(WALK, "MultiHeadAttention")
    assert "d_model = h * d_head" in text and "from 12 to 12" not in text, text
    from autograder.grading.spec_space import expectations
    pinned = expectations(read("f", '{"sizes": {"T": [3, 3], "d": [1, 4]}, "args": {"x": {"shape": "T d"}, '
                                    '"h": {"int": [12, 12]}}}'))
    assert "`h` is the Python int 12" in pinned and "T = 3" in pinned and " 3 to 3" not in pinned, pinned
    with pytest.raises(SpecError, match=r"size 'd_model' is \[lowest, highest\] or a product of sizes"):
        read("f", '{"sizes": {"h": [1, 2], "d_model": "h * d_k"}, "args": {"x": {"shape": "h d_model"}}}')


def test_dropping_the_scale_is_declarable_and_named_on_its_own_numbers():
    spec = declaration(WALK, "MultiHeadAttention")
    edited = edited_sources(WALK, spec)["scores-not-scaled"]
    assert "scores = Q @ K.transpose(-2, -1)\n" in edited and "math.sqrt(d_head)" not in edited
    from autograder.authoring.spec_render import helpers
    judged = Declared(spec, setup_source(WALK), reference_source(WALK, "MultiHeadAttention"),
                      edited_sources(WALK, spec), helpers(WALK, "MultiHeadAttention"))
    wrong = judged.mistakes["scores-not-scaled"]
    for group in ("edges", "draws"):
        named = judged.named(group, [judged.run(wrong, p, torch.float32) for p in judged.groups[group]])
        assert [d.mistake for d in named] == ["scores-not-scaled"], group


DOCUMENTED = re.findall(r"^\| (`[^|]*`) \|", (Path(__file__).parents[1] / "docs" / "authoring.md").read_text(), re.M)


def test_every_edit_the_vocabulary_offers_is_documented():
    from autograder.repair.candidates import singles
    patterns = [re.compile(re.sub(r"-(f|g|x)(?=-|$)", "-[a-z0-9-]+", key) + "$")
                for cell in DOCUMENTED for key in re.findall(r"`([a-z0-9-]+)`", cell)]
    offered = set()
    for master in (MASTER, WALK):
        for exercise in master.exercises():
            offered |= {e.key for e in singles(reference_source(master, exercise), exercise)}
    assert {"divisor-dropped", "call-sqrt-dropped", "axis-of-softmax"} <= offered
    assert [key for key in sorted(offered) if not any(p.match(key) for p in patterns)] == []


@pytest.mark.parametrize("mistake, refusal", [
    ('{"edit": "call-transpose-dropped", "at": "heads.reshape(B, T_q, d_model)", "says": "x"}',
     "(no code of the reference reads so); `at` is the expression the edit changes or one enclosing it, and "
     "`call-transpose-dropped` changes `K.transpose(-2, -1)`, `heads.transpose(1, 2)`"),
    ('{"edit": "operator-div-dropped", "at": "math.sqrt(d_head)", "says": "x"}',
     "`operator-div-dropped` is no edit this reference offers anywhere"),
])
def test_a_mistake_that_is_not_one_edit_says_what_at_matched_and_should_match(mistake, refusal):
    text = spec_of_walk().replace('"mistakes": {', f'"mistakes": {{"wrong-one": {mistake},', 1)
    with pytest.raises(MasterError) as refused:
        hidden_tests(with_cell(WALK, "MultiHeadAttention", "spec", text))
    assert refusal in str(refused.value) and str(refused.value).count(". ") == 0, str(refused.value)


def spec_of_walk() -> str:
    return WALK.of("spec", "MultiHeadAttention")[0].source


def test_a_reference_using_an_undefined_name_is_refused_in_one_sentence():
    cells = tuple(type(c)(c.role, c.source.replace("split_heads(self.W_Q(x_q)", "split_head(self.W_Q(x_q)"),
                          c.exercise) for c in WALK.cells)
    with pytest.raises(MasterError) as refused:
        hidden_tests(Master(WALK.name, cells))
    message = str(refused.value)
    assert "the reference of MultiHeadAttention uses the name 'split_head', which neither the setup cell nor an " \
        "exercise of the master defines" in message, message
    assert "Traceback" not in message and message.count(". ") == 0, message
