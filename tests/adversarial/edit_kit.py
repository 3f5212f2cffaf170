from ._snippets import SHA, solution_text

ASSIGNMENT = SHA
TAG = "editkit"
ATTACK = ("tries to change code that runs later outside the sandbox: opens the kit's modules, the hidden "
          "tests, the harness, torch and the standard library for writing, and tries to create a .pth file in "
          "site-packages and a usercustomize.py in the grading user's home (probes only: nothing is written)")
CODE = solution_text(ASSIGNMENT) + '''
import os
import site
import sys

import torch

_existing = ["__KIT_DIR__/autograder/results.py", "__KIT_DIR__/autograder/grading/runner.py",
             "__KIT_DIR__/autograder/sandbox/child/harness.py", "__KIT_DIR__/autograder/graders/conftest.py",
             torch.__file__, os.__file__]
_new = [os.path.join(p, "__MARK__.pth") for p in sys.path if p.endswith("site-packages")]
_new += ["__GRADER_HOME__/.local/lib/python%d.%d/site-packages/usercustomize.py" % sys.version_info[:2],
         "__KIT_DIR__/autograder/__MARK__.py", os.path.join(os.path.dirname(torch.__file__), "__MARK__.py")]
_outcomes = set()
for _path in _existing:
    try:
        os.close(os.open(_path, os.O_WRONLY | os.O_APPEND))
        print("ATTNKIT-LEAK could open for writing:", _path)
    except OSError as exc:
        _outcomes.add(type(exc).__name__)
for _path in _new:
    try:
        os.close(os.open(_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
    except OSError as exc:
        _outcomes.add(type(exc).__name__)
        continue
    os.unlink(_path)
    print("ATTNKIT-LEAK could create", _path)
print("kit edit attempts:", sorted(_outcomes))
'''
TWIN = solution_text(ASSIGNMENT)
EVIDENCE = "kit edit attempts:"
SAME_SCORE = True
