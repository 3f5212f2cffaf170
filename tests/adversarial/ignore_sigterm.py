from ._snippets import NAME_PROCESS, SCORES, solution_text

ASSIGNMENT = SCORES
TAG = "sigterm"
ATTACK = ("a busy loop that ignores SIGTERM/SIGINT/SIGHUP in padding_mask, plus a SIGTERM-proof "
          "background process started at import")
CODE = solution_text(ASSIGNMENT) + NAME_PROCESS + '''
import os
import signal
import time

for _sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(_sig, signal.SIG_IGN)

try:
    _background = os.fork()
except OSError as _exc:  # no process creation in the sandbox: the busy loop below still runs
    print("background process refused:", type(_exc).__name__)
    _background = -1
if _background == 0:
    _attnkit_name("__MARK__")
    os.setsid()
    while True:
        time.sleep(0.2)


def padding_mask(lengths, T_k):
    for _sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGALRM):
        signal.signal(_sig, signal.SIG_IGN)
    while True:
        pass
'''
TWIN = solution_text(ASSIGNMENT)
EVIDENCE = "s of CPU time (an infinite loop"
