from ._snippets import SHA, solution_text

ASSIGNMENT = SHA
TAG = "environ"
ATTACK = ("looks for the grading process's environment (where tokens and passwords live): its own "
          "os.environ, /proc/1/environ (bubblewrap's), its parent's and every pid's /proc/<pid>/environ, "
          "found by listing /proc and by trying every pid number")
CODE = solution_text(ASSIGNMENT) + '''
import os

_SECRET = "__SECRET__"
_readable = 0
if any(_SECRET in value for value in os.environ.values()):
    print("ATTNKIT-LEAK the secret is in the child's own environment")
_pids = {"1", "self", str(os.getppid())} | {str(pid) for pid in range(1, os.getpid() + 20000)}
try:
    _pids |= {entry for entry in os.listdir("/proc") if entry.isdigit()}
except OSError:
    pass
for _pid in sorted(_pids):
    try:
        with open(f"/proc/{_pid}/environ", "rb") as _handle:
            _data = _handle.read()
    except OSError:
        continue
    _readable += 1
    if _SECRET.encode() in _data:
        print("ATTNKIT-LEAK read the grader's environment through /proc/%s/environ" % _pid)
print("environment search done,", _readable, "environments readable")
'''
TWIN = solution_text(ASSIGNMENT)
EVIDENCE = "environment search done"
SAME_SCORE = True
