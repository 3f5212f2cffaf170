"""An adversarial corpus: student files that try to beat the grader, each with an honest twin.

Each module holds:
- ASSIGNMENT: the assignment the file is submitted for (the student hands in only that file).
- ATTACK: one line saying what the file tries.
- CODE: the complete student file.
- TWIN: its honest counterpart (usually the correct solution, or the stub / the same wrong code
  without the attack). The attacker must never score more than its twin, test by test.
- TAG: a short name (7 characters at most); MARK = "xevil" + the setting's two-letter code + "-" +
  TAG (for example "xevilrb-daemon" in root-bwrap) is put in the names of the files and processes
  the attack creates, so that traces can be looked for after grading, setting by setting.
Optional:
- EVIDENCE: text that must appear in the attacker's result (printed output, a test's feedback or a
  note), proving that the attack really ran and was caught the way we think.
- SAME_SCORE: True when the attack rides on a correct solution and must not cost it anything
  (the grader survived and kept grading the rest of the file).
- XFAIL: {setting name or isolation mode: reason} where the attack is known to get through.

Paths an attacker would have to guess are written as placeholders that the test replaces by the
right answer, i.e. the attacker guessed perfectly: __CLASS_DIR__, __SELF_DIR__, __OUT_DIR__,
__KIT_DIR__, __PORT__ (a TCP/UDP listener of the test), __CANARY__ (a file that appears only if
the parent ever unpickles what the child sent), __OWN_ID__, __VICTIMS__ (honest ids as a list),
__GRADER_UID__, __GRADER_HOME__, __BYSTANDER__ (pid of a process of another user), __SECRET__ (a value
only the grading process's environment holds) and __MARK__.

An attack prints "ATTNKIT-LEAK" when it reached its goal (read a reference, opened a socket,
could signal a foreign process, ...); the test fails on it. Destructive attacks refuse to act
when they find themselves running as root or as the grader's own user, so that a broken sandbox
fails the test instead of wiping the developer's repository: see GUARD in _snippets.py.
"""
from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

MARK_PREFIX = "xevil"
LEAK = "ATTNKIT-LEAK"


def modules() -> list[ModuleType]:
    found = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if not info.name.startswith("_"):
            found.append(importlib.import_module(f"{__name__}.{info.name}"))
    return found


def mark(module: ModuleType, code: str) -> str:
    text = f"{MARK_PREFIX}{code}-{module.TAG}"
    assert len(text) <= 15, f"{text!r} does not fit a process name (15 characters)"
    return text


def render(code: str, values: dict[str, str]) -> str:
    for key, value in values.items():
        code = code.replace(key, value)
    return code
