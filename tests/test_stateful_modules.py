"""Modules are judged on inputs freed and refilled in place, like functions (grading/calls.py: in_a_row, refills).

A generator of layers that answer from a cache (keyed on an input's id, its address and shape, its shape, its
layout, or on a count of calls; each graded module) must lose the check of the module's values; the reference and
every correct style in tests/catalogue/correct keep full marks (tests/test_catalogue.py, through the real engine).
"""
from __future__ import annotations

import pytest

from autograder.grading.student import StudentFault
from tests.classroom import solution_text
from tests.test_property_probes import GRADERS, local_student

# module: (assignment, its forward's parameters, the input the key is made of)
MODULES = {
    "GeneralScore": ("attention_scores", "Q, K", "K"),
    "AdditiveScore": ("attention_scores", "Q, K", "K"),
    "SingleHeadAttention": ("single_head_attention", "x_q, x_kv, mask=None", "x_kv"),
}
CHEATED = {  # the check a cached module must lose (every layer check goes through the same probe: check_layers)
    "GeneralScore": "test_general_score_values",
    "AdditiveScore": "test_additive_score_values",
    "SingleHeadAttention": "test_layer_self_attention",
}
KEYS = {
    "id": "id({x})",
    "address and shape": "({x}.data_ptr(), tuple({x}.shape))",
    "shape": "tuple({x}.shape)",
    "layout": "(tuple({x}.shape), {x}.stride(), {x}.dtype, {x}.is_contiguous())",
    "call count": "self.__dict__.setdefault('_calls', [0]).__setitem__(0, self._calls[0] + 1) or self._calls[0] // 2",
}


def cached(module: str, key: str) -> str:
    """The reference module, answering each call from an entry kept per key: right the first time a key is seen."""
    _, parameters, x = MODULES[module]
    names = ", ".join(p.split("=")[0] for p in parameters.split(", "))
    return (f"_Right{module} = {module}\n\n\nclass {module}(_Right{module}):\n"
            f"    def forward(self, {parameters}):\n"
            f"        answers = self.__dict__.setdefault('_answers', {{}})\n"
            f"        key = {KEYS[key].replace('{x}', x)}\n"
            f"        if key not in answers:\n"
            f"            answers[key] = super().forward({names})\n"
            f"        return answers[key]\n")


def failure(assignment: str, test: str, text: str) -> str | None:
    student = local_student(assignment, text)
    try:
        getattr(GRADERS[assignment], test)(student)
    except StudentFault as fault:
        return str(fault)
    return None


@pytest.mark.parametrize("module", sorted(MODULES))
@pytest.mark.parametrize("key", sorted(KEYS))
def test_a_module_answering_from_a_cache_loses_its_values_check(module, key):
    assignment = MODULES[module][0]
    text = solution_text(assignment) + "\n\n" + cached(module, key)
    assert failure(assignment, CHEATED[module], text) is not None


def test_the_address_cache_of_the_round_is_named_by_the_refilled_call():
    text = solution_text("attention_scores") + "\n\n" + cached("AdditiveScore", "address and shape")
    message = failure("attention_scores", "test_additive_score_values", text)
    assert message is not None and "refilled in place with other values" in message
