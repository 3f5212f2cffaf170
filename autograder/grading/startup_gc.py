"""The cyclic garbage collector paused while a grading process imports torch and collects the hidden tests.

Importing torch makes about a million objects and next to no garbage (some 7,000 unreachable objects); the
collector's passes over them cost a quarter of a second of every start-up (`make bench-startup`), paid by
every single submission and every Gradescope job. So a process that has not imported torch yet pauses the
collector until its hidden tests are collected, then freezes what is alive (gc.freeze: those objects are
never scanned again) and collects as usual for the students' work. A process that already holds torch (a
second session, the kit's own tests) is left alone: nothing is frozen twice.
"""
from __future__ import annotations

import gc
import sys

_paused = False


def pause() -> None:
    """Pause collection if this process is about to import torch for the first time."""
    global _paused
    if "torch" not in sys.modules and gc.isenabled():
        gc.disable()
        _paused = True


def resume() -> None:
    """Freeze what start-up made and collect again; a no-op unless pause() paused."""
    global _paused
    if _paused:
        _paused = False
        gc.freeze()
        gc.enable()
