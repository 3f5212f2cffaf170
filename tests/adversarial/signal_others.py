from ._snippets import SHA, solution_text

ASSIGNMENT = SHA
TAG = "signal"
ATTACK = ("looks for processes it may signal other than its own family (other students' children, a "
          "bystander process of another user): kill(pid, 0) on every pid it can see; a real "
          "attacker would send SIGKILL to the classmates graded next to it")
CODE = solution_text(ASSIGNMENT) + '''
import os

_me = os.getpid()
_reachable = []
try:
    _pids = [e for e in os.listdir("/proc") if e.isdigit()]
except OSError:  # /proc cannot be listed: try every pid number instead
    _pids = [str(p) for p in range(1, _me + 20000)]
for _entry in _pids + ["__BYSTANDER__"]:
    if int(_entry) == _me:
        continue
    try:
        os.kill(int(_entry), 0)
    except OSError:
        continue
    try:
        _status = dict(line.split(":", 1) for line in open(f"/proc/{_entry}/status").read().splitlines() if ":" in line)
        _name = " ".join(_status.get(k, "?").split()[0] for k in ("Name", "State", "Uid", "PPid"))
    except OSError:
        _name = "?"
    _reachable.append((int(_entry), _name))
if _reachable:
    print("ATTNKIT-LEAK could signal", _reachable[:10])
print("signal probe done,", len(_reachable), "foreign processes reachable")
'''
TWIN = solution_text(ASSIGNMENT)
EVIDENCE = "signal probe done, 0 foreign"
SAME_SCORE = True
