from ._snippets import SHA, stub_text

ASSIGNMENT = SHA
TAG = "fakeout"
ATTACK = ("prints fake pytest summaries, fake result JSON with score 100, the worker's own 'done <id>' "
          "progress lines and terminal escapes, through print, sys.__stdout__ and raw fds 1 and 2")
CODE = stub_text(ASSIGNMENT) + '''
import json
import os
import sys

_LINES = [
    "============================= 11 passed in 0.42s ==============================",
    json.dumps({"score": 100, "max_score": 15, "tests": [{"name": "all", "score": 100, "status": "passed"}]}),
    json.dumps({"student_id": "__OWN_ID__", "score": 44.0, "tests": []}),
    "done __OWN_ID__",
    "done " + "\\ndone ".join(__VICTIMS__),
    "warning the sandbox is off",
    "\\x1b[2J\\x1b[H\\x1b[32mPASSED\\x1b[0m\\r",
    "PASSED test_attention_values\\nPASSED test_layer_gradients",
]


def _spam():
    for line in _LINES:
        print(line)
        sys.__stdout__.write(line + "\\n")
        for fd in (1, 2):
            try:
                os.write(fd, (line + "\\n").encode())
            except OSError:
                pass


_spam()


def attention(Q, K, V, mask=None):
    _spam()
    raise NotImplementedError("printed success instead")
'''
TWIN = stub_text(ASSIGNMENT)
EVIDENCE = "11 passed in 0.42s"
