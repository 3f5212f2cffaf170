"""What one student's repair searches may use together: wall time and candidates (docs/diagnosis.md, "Repairs")."""
from __future__ import annotations

import os
import time
from typing import Callable

from ..grading.student import StudentFile

# One student's searches together (every part of every file): at most this much wall time and this many candidates;
# then the search stops and says so. ATTNKIT_REPAIR_BUDGET="seconds,candidates" changes both (a slow course, tests).
BUDGET_SWITCH = "ATTNKIT_REPAIR_BUDGET"
BUDGET_SECONDS = 20.0
BUDGET_CANDIDATES = 600


class Budget:
    """What one student's repair searches may still use: wall time and candidates. A search asks before each
    step, and the children it starts get no more time than is left (a candidate that hangs ends with the budget)."""

    def __init__(self, seconds: float | None = None, candidates: int | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        chosen_seconds, chosen_candidates = budget_setting()
        self.clock = clock
        self.end = clock() + (chosen_seconds if seconds is None else seconds)
        self.left = chosen_candidates if candidates is None else candidates

    def out_of_time(self) -> bool:
        return self.clock() >= self.end

    def spent(self, candidates: int = 1) -> bool:
        """Whether the time is up, or fewer than `candidates` candidates are left."""
        return self.out_of_time() or self.left < candidates

    def take(self, candidates: int) -> None:
        self.left -= candidates

    def bound(self, handle: StudentFile) -> StudentFile:
        """The handle, allowed no more wall time than the budget has left (its own limit if sooner)."""
        handle.deadline = min(handle.deadline, time.monotonic() + max(0.0, self.end - self.clock()))
        return handle


def budget_setting() -> tuple[float, int]:
    """(seconds, candidates) per student: the defaults, or ATTNKIT_REPAIR_BUDGET="seconds,candidates"."""
    text = os.environ.get(BUDGET_SWITCH, "").strip()
    if not text:
        return BUDGET_SECONDS, BUDGET_CANDIDATES
    try:
        seconds, candidates = text.split(",")
        chosen = float(seconds), int(candidates)
    except ValueError:
        raise ValueError(f"{BUDGET_SWITCH}: expected \"seconds,candidates\", e.g. \"20,600\"; got {text!r}") from None
    if not (chosen[0] >= 0 and chosen[1] >= 0):
        raise ValueError(f"{BUDGET_SWITCH}: seconds and candidates are 0 or more; got {text!r}")
    return chosen
