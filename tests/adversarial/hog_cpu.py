from ._snippets import NAME_PROCESS, SHA, solution_text

ASSIGNMENT = SHA
TAG = "hog"
ATTACK = ("slows classmates down: 8 busy-looping processes for 3 s at import (classmates graded at the "
          "same time get less CPU), then the correct solution")
CODE = solution_text(ASSIGNMENT) + NAME_PROCESS + '''
import os
import time

_hogs = 0
for _ in range(8):
    try:
        _pid = os.fork()
    except OSError:
        break
    if _pid == 0:
        _attnkit_name("__MARK__")
        _end = time.monotonic() + 3
        while time.monotonic() < _end:
            pass
        os._exit(0)
    _hogs += 1
print("started", _hogs, "busy processes")
'''
TWIN = solution_text(ASSIGNMENT)
EVIDENCE = "busy processes"
