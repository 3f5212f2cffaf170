"""The sandbox's time limits as a course sets them (ATTNKIT_SANDBOX_LIMITS, docs/isolation.md), down to the
time a round trip of several calls is given."""
from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from autograder.grading.calls import Call, _request
from autograder.sandbox.config import LIMITS_VARIABLE, SandboxLimits


class Recorder:
    """A student's file whose child records the time each request is given instead of running it."""

    def __init__(self, limits: SandboxLimits) -> None:
        self.server = SimpleNamespace(config=SimpleNamespace(limits=limits))
        self.given: list[float] = []

    def _connect(self):
        return self

    def request(self, message: dict, seconds: float) -> dict:
        self.given.append(seconds)
        return {"ok": True, "outputs": [None] * len(message["calls"])}


@pytest.mark.parametrize("overrides, calls, seconds", [
    ({}, 1, 10.1),
    ({}, 77, 17.7),  # the defaults: a tenth of a second more per call
    ({"call_seconds": 2}, 5, 2.5),
    ({"call_seconds": 0.25, "sequence_call_seconds": 0.01}, 77, 1.02),
    ({"sequence_call_seconds": 0}, 40, 10.0),
])
def test_a_round_trip_of_calls_is_given_one_calls_time_and_a_share_per_call(monkeypatch, overrides, calls, seconds):
    monkeypatch.setenv(LIMITS_VARIABLE, json.dumps(overrides))
    student = Recorder(SandboxLimits.from_environment())
    _request(student, [Call("attention", (n,)) for n in range(calls)])
    assert student.given == [pytest.approx(seconds)]


def test_an_unknown_limit_is_refused_by_name(monkeypatch):
    monkeypatch.setenv(LIMITS_VARIABLE, json.dumps({"sequence_seconds": 0.01}))
    with pytest.raises(ValueError, match="sequence_seconds") as refused:
        SandboxLimits.from_environment()
    assert "sequence_call_seconds" in str(refused.value)  # the known names are listed
