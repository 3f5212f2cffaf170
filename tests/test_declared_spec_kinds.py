"""Declared specs beyond float tensors, and declared mistakes read as an author writes them (issue 34, walk 34b):
integer tensors whose values are bounded by sizes, a mask declared without broadcast forms, every malformed
declaration refused in one sentence, a mistake's `at` given as an expression enclosing the edited code, one edit
found twice counted once, and refusals that say exactly which check misses a mistake or which `to` an edit offers.
The declaration under test is the docs' example master, docs/examples/cross_attention.py (a cross-attention lesson
first written from the docs alone), checked in-process without a sandbox; its quiz is checked to load."""
from __future__ import annotations

import ast
import copy
from pathlib import Path

import pytest
import torch
from hypothesis import given, settings, strategies as st

from autograder.authoring.master import Master, MasterError, read_master
from autograder.authoring.spec_render import (declaration, edited_sources, hidden_tests, reference_source,
                                              setup_source)
from autograder.grading.spec_judge import Declared
from autograder.grading.spec_space import INTEGER, SpecError, expectations, read
from autograder.repair.candidates import apply, singles

EXAMPLE = Path(__file__).parent.parent / "docs" / "examples"   # the docs' example master and quiz: one source
CROSS = read_master(EXAMPLE / "cross_attention.py")


def spec_of(exercise: str) -> str:
    return CROSS.of("spec", exercise)[0].source


def with_cell(master: Master, exercise: str, role: str, text: str) -> Master:
    cells = tuple(type(c)(c.role, text, c.exercise) if (c.role, c.exercise) == (role, exercise) else c
                  for c in master.cells)
    return Master(master.name, cells)


def declared(master: Master, exercise: str) -> Declared:
    spec = declaration(master, exercise)
    return Declared(spec, setup_source(master), reference_source(master, exercise), edited_sources(master, spec))


def one_sentence(message: str) -> bool:
    return "\n" not in message and "Traceback" not in message and message.count(". ") == 0


# --- integer tensors ------------------------------------------------------------------------------------------

def test_integer_lengths_bounded_by_a_size_are_drawn_in_range_and_reach_both_ends():
    judged = declared(CROSS, "key_padding_mask")
    low = high = False
    for group, probes in judged.groups.items():
        for probe in probes:
            lengths, t_k = probe.args
            assert lengths.dtype == torch.int64, (group, probe.label)
            assert int(lengths.min()) >= 1 and int(lengths.max()) <= t_k == probe.sizes["T_k"], (group, probe.label)
            low, high = low or int(lengths.min()) == 1, high or (int(lengths.max()) == t_k > 1)
    assert low and high
    assert "lengths reaching 1 and T_k" in [p.label for p in judged.groups["edges"]]
    assert "`lengths` is int64 of shape (B), whole numbers from 1 to T_k" in expectations(judged.spec)


def test_the_off_by_one_mistake_on_integer_lengths_is_caught_by_both_checks_and_a_cast_is_not_charged():
    judged = declared(CROSS, "key_padding_mask")
    assert judged.refusals() == []
    one_too_long = judged.mistakes["mask-one-too-long"]

    def cast_first(lengths, T_k):   # a student's natural .long(): harmless on integer lengths
        return torch.arange(T_k)[None, :] < lengths.long()[:, None]
    for group in ("edges", "draws"):
        wants = judged.reference_results(group)
        probes = judged.groups[group]
        assert not all(judged.agrees(judged.run(one_too_long, p, torch.float32), w) for p, w in zip(probes, wants))
        assert all(judged.agrees(judged.run(cast_first, p, torch.float32), w) for p, w in zip(probes, wants))


@settings(max_examples=25)
@given(dtype=st.sampled_from(["int64", "int32", "int", "long"]), low=st.sampled_from([0, 1, -2, "B"]),
       high=st.sampled_from([3, 9, "T_k", "B"]))
def test_any_integer_declaration_is_drawn_within_its_bounds_or_refused_in_one_sentence(dtype, low, high):
    text = spec_of("key_padding_mask").replace('"dtype": "int64", "values": [1, "T_k"]',
                                               f'"dtype": {dtype!r}, "values": [{low!r}, {high!r}]')
    try:
        spec = read("key_padding_mask", text)
    except SpecError as error:
        assert one_sentence(str(error)) and "`values` is [lowest, highest]" in str(error), str(error)
        return
    from autograder.grading.spec_space import draws, edges
    for probe in [*edges(spec), *draws(spec)]:
        lengths = probe.args[0]
        bound = [probe.sizes[b] if isinstance(b, str) else b for b in (low, high)]
        assert str(lengths.dtype).removeprefix("torch.") in INTEGER
        assert bound[0] <= int(lengths.min()) and int(lengths.max()) <= bound[1], (probe.label, lengths, bound)


JUNK = st.one_of(st.none(), st.booleans(), st.integers(-3, 20), st.floats(allow_nan=True), st.text(max_size=6),
                 st.lists(st.one_of(st.integers(-2, 9), st.text(max_size=4), st.none(), st.floats()), max_size=3),
                 st.dictionaries(st.text(max_size=4), st.integers(), max_size=2))


def _places(value, path=()):
    """Every place of a declaration (a path of keys and indices) a value sits at."""
    yield path
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from _places(inner, (*path, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield from _places(inner, (*path, index))


@settings(max_examples=120)
@given(data=st.data())
def test_every_malformed_declaration_is_read_or_refused_in_one_sentence_never_a_traceback(data):
    exercise = data.draw(st.sampled_from(["key_padding_mask", "CrossAttention"]))
    raw = ast.literal_eval(spec_of(exercise))
    raw = copy.deepcopy(raw)
    place = data.draw(st.sampled_from([p for p in _places(raw) if p]))
    holder = raw
    for key in place[:-1]:
        holder = holder[key]
    holder[place[-1]] = data.draw(JUNK)
    try:
        read(exercise, repr(raw))
    except SpecError as error:
        message = str(error)
        assert message.startswith(f"the spec of {exercise}: ") and "\n" not in message, message


# --- a mask's broadcast forms ---------------------------------------------------------------------------------

def test_a_mask_declared_without_broadcast_is_probed_and_described_in_its_own_shape_only():
    judged = declared(CROSS, "CrossAttention")
    for probe in [*judged.groups["edges"], *judged.groups["draws"]]:
        assert tuple(probe.args[2].shape) == (probe.sizes["B"], probe.sizes["T_k"]), probe.label
    assert "always exactly this shape" in expectations(judged.spec)
    broadcast = read("CrossAttention", spec_of("CrossAttention").replace(', "broadcast": False', ""))
    from autograder.grading.spec_space import edges
    shapes = {tuple(p.args[2].shape) == (p.sizes["B"], p.sizes["T_k"]) for p in edges(broadcast)}
    assert shapes == {True, False}   # the default, as the docs state: each dim of size 1 is probed too
    assert "any dim of size 1 broadcast (graded in each such shape too)" in expectations(broadcast)
    with pytest.raises(SpecError, match="`broadcast` is true"):
        read("CrossAttention", spec_of("CrossAttention").replace('"broadcast": False', '"broadcast": "no"'))


# --- mistakes as an author declares them -----------------------------------------------------------------------

def test_keys_from_the_queries_is_one_edit_though_two_kinds_of_swap_reach_it():
    made = edited_sources(CROSS, declaration(CROSS, "CrossAttention"))["keys-from-queries"]
    assert "K = self.W_K(x_q)" in made and made.count("x_q") == reference_source(CROSS, "CrossAttention").count("x_q") + 1
    # The walk's first layout, one tuple statement: the same declaration reads it.
    tupled = with_cell(CROSS, "CrossAttention", "solution", CROSS.of("solution", "CrossAttention")[0].source.replace(
        "Q = self.W_Q(x_q)\n        K = self.W_K(x_kv)\n        V = self.W_V(x_kv)",
        "Q, K, V = self.W_Q(x_q), self.W_K(x_kv), self.W_V(x_kv)"))
    assert "self.W_K(x_q)" in edited_sources(tupled, declaration(tupled, "CrossAttention"))["keys-from-queries"]


def _enclosing(source: str, exercise: str):
    """(edit, the code of each expression enclosing its node, up to its statement) for every single edit."""
    from autograder.repair.candidates import _segment
    from autograder.repair.edits import definition, nodes
    root = definition(ast.parse(_segment(source, exercise)), exercise)
    parents = {id(child): parent for parent in ast.walk(root) for child in ast.iter_child_nodes(parent)}
    listed = list(nodes(root))
    for edit in singles(source, exercise):
        node, around = listed[edit.index], []
        while isinstance(node, ast.expr):
            around.append(ast.unparse(node))
            node = parents.get(id(node))
        yield edit, around


@pytest.mark.parametrize("exercise", ["CrossAttention", "key_padding_mask"])
def test_every_edit_declared_at_its_code_or_an_enclosing_one_is_made_or_refused_truthfully(exercise):
    source = reference_source(CROSS, exercise)
    tried, seen = 0, set()
    for edit, around in _enclosing(source, exercise):
        if apply(source, exercise, [edit]) is None:
            continue
        for at in around[:3]:
            if (edit.key, at) in seen:   # the same declaration: its answer is already checked
                continue
            seen.add((edit.key, at))
            mistake = {"edit": edit.key, "at": at, "says": "x"}
            text = spec_of(exercise).replace('"mistakes": {', f'"mistakes": {{"declared-one": {mistake!r},', 1)
            master = with_cell(CROSS, exercise, "spec", text)
            tried += 1
            try:
                made = edited_sources(master, declaration(master, exercise))["declared-one"]
            except MasterError as error:
                message = str(error)
                assert "no code of the reference reads so" not in message and one_sentence(message), message
                if "`to` says which" in message:   # each form offered once, so that `to` can choose
                    offered = message.split("(to ", 1)[1].split("): `to` says which")[0].split("`, `")
                    assert len(offered) == len(set(offered)) > 1, message
                else:                              # the same change in several places: `at` must say where
                    assert " places (lines " in message and "enclosing expression or statement" in message, message
                continue
            assert made != source
    assert tried >= 8


def test_a_to_the_edit_never_offers_says_which_forms_it_offers_and_which_edit_makes_it():
    text = spec_of("key_padding_mask").replace('"edit": "comparison-boundary"', '"edit": "comparison-changed"')
    with pytest.raises(MasterError) as refused:
        hidden_tests(with_cell(CROSS, "key_padding_mask", "spec", text))
    message = str(refused.value)
    assert "`comparison-changed` changes `positions[None, :] < lengths[:, None]` only to " in message, message
    assert "never to `positions[None, :] <= lengths[:, None]`; the edit that makes it so is `comparison-boundary`" \
        in message and one_sentence(message), message
    assert "no `comparison-changed` edit changes" not in message


def test_a_mistake_only_the_draws_miss_is_refused_naming_that_check_and_why():
    # Fractional lengths: no draw has a length that is a whole number, where `<=` differs from `<`.
    text = spec_of("key_padding_mask").replace('"dtype": "int64", "values": [1, "T_k"]', '"values": [1, 9]')
    master = with_cell(CROSS, "key_padding_mask", "spec", text)
    refused = declared(master, "key_padding_mask").refusals()
    assert len(refused) == 1 and one_sentence(refused[0]), refused
    assert "gives the reference's results on every one of its draws probes: none of its 6 seeded draws reaches an " \
           "input on which the edit changes the result, so the draws check would give it full marks (only the " \
           "edges check catches it)" in refused[0], refused
    assert "no check can catch it" not in refused[0]


def test_the_docs_example_quiz_loads_with_a_question_of_each_type():
    from autograder.quiz import load_quiz
    quiz = load_quiz(EXAMPLE / "cross_attention.yaml", formulas=False)
    assert quiz.id == "cross_attention"
    assert {"multiple_choice", "true_false", "numeric", "short_answer"} <= {q.type for q in quiz.questions}


class InProcess:
    """A student whose code runs in this process (the judge's side of a sandboxed round trip): a call that raises
    fails as the sandbox reports it, `<call> raised <Type>: <message>`."""

    def __init__(self, judged: Declared, function) -> None:
        self.judged, self.function = judged, function

    def runs(self, requests, **_):
        from autograder.grading.faults import StudentFault
        from autograder.grading.student import Reply
        replies = []
        for probe in self.probes:
            try:
                output = self.judged.run(self.function, probe, torch.float32)
            except Exception as error:  # noqa: BLE001
                raise StudentFault(f"{self.judged.describe(probe)} raised {type(error).__name__}: {error}") from None
            replies.append(Reply(output=output))
        return replies

    def judging(self, reply):
        return reply


@pytest.mark.parametrize("group", ["edges", "draws"])
def test_a_mistake_that_raises_is_named_when_the_student_raises_its_very_error(group):
    from autograder.grading.faults import StudentFault
    judged = declared(CROSS, "CrossAttention")
    student = InProcess(judged, judged.mistakes["keys-from-queries"])
    student.probes = judged.groups[group]
    with pytest.raises(StudentFault) as failed:
        judged.judge(student, group)
    assert [d.mistake for d in failed.value.diagnoses] == ["keys-from-queries"], str(failed.value)
    assert "the very error this mistake raises on CrossAttention(" in failed.value.diagnoses[0].evidence

    def other_error(self, x_q, x_kv, key_mask):   # raises too, with another error: nothing named
        raise ValueError("a different failure")
    student = InProcess(judged, type("Other", (judged.reference,), {"forward": other_error}))
    student.probes = judged.groups[group]
    with pytest.raises(StudentFault) as failed:
        judged.judge(student, group)
    assert failed.value.diagnoses == ()
