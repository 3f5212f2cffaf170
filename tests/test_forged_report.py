"""What a file that rewrites the grader's own code in the child can and cannot do (docs/isolation.md, "What the
student's process reports").

The child owns its interpreter: code that replaces the harness's report of its inputs after a call (the
fingerprints of sandbox/child/wire.py) or hands its own function copies can say its inputs were left alone.
That cannot be closed in principle, and the doc says so. What is closed, and tested here through the real
sandbox: every such route the kit knows names the grader's own modules or the tools that reach them, and the
zero-point check flags the file for the instructor, naming them; a forged report still earns no value point,
since every answer is judged in the parent against its own reference; and a report that is missing or malformed
is the student's failure.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from autograder.grading import circumvention
from autograder.grading.student import StudentFault
from autograder.sandbox import ForkServer
from tests.classroom import loaded_file, solution_text

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import seed_sweep  # noqa: E402 - the hidden tests, loaded as the sweep loads them

pytestmark = pytest.mark.slow

# apply_mask edits the caller's scores in place, then a rewritten harness reports them as they were sent
EDITS_AND_FORGES = ("\n\ndef apply_mask(scores, mask):\n"
                    "    SENT[:] = [WIRE.fingerprint(scores), WIRE.fingerprint(mask)]\n"
                    "    scores.data.masked_fill_(mask == 0, FILL)\n    return scores.clone()\n\n\n"
                    "WIRE.fingerprints = lambda args, kwargs: {'args': list(SENT), 'kwargs': {}}\n")
ROUTES = {
    "sys.modules": "import sys\nWIRE = sys.modules['wire']\n",
    "import wire": "import wire as WIRE\n",
    "a frame's globals": "import sys\nWIRE = sys._getframe(0).f_globals.get('wire') or sys.modules['wire']\n",
    "importlib": "import importlib\nWIRE = importlib.import_module('wire')\n",
    "gc": "import gc\nWIRE = next(o for o in gc.get_objects() if getattr(o, '__name__', '') == 'wire')\n",
}


def forging_file(route: str, fill: str = "float('-inf')") -> str:
    """The reference, then a rewrite of the harness's report by `route` and an apply_mask that edits its input."""
    return (solution_text("attention_scores") + "\n\n" + ROUTES[route] + f"SENT = []\nFILL = {fill}\n"
            + EDITS_AND_FORGES)


@pytest.fixture(scope="module")
def server():
    server = ForkServer()
    yield server
    server.close()


@pytest.mark.parametrize("route", sorted(ROUTES))
def test_a_file_that_rewrites_the_report_is_flagged(route):
    found = circumvention.circumvention(forging_file(route))
    assert found, f"{route}: not flagged"


@pytest.mark.parametrize("route", ["import wire", "sys.modules"])
def test_the_flag_reaches_the_instructor_and_values_are_still_judged(server, route):
    tests = seed_sweep.hidden_tests("attention_scores")
    handle = loaded_file(server, forging_file(route, fill="-1e4"), "attention_scores")
    try:
        with pytest.raises(StudentFault, match="Flagged for your instructor"):
            tests["test_file_leaves_the_kernel_watch_alone"](handle)
        # the forged report hides the edit, not the values: a -1e4 fill still fails, judged in the parent
        with pytest.raises(StudentFault, match="weight"):
            tests["test_apply_mask_values"](handle)
    finally:
        handle.close()
