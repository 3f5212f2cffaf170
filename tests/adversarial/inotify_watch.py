from ._snippets import SCORES, solution_text

ASSIGNMENT = SCORES
TAG = "inotify"
ATTACK = ("watches files it may not read: inotify (both calls, raw syscall numbers) on OUT, OUT/.state, the "
          "class folder and /tmp, and fanotify on the whole mount, to learn when classmates are graded")
CODE = solution_text(ASSIGNMENT) + '''
import ctypes
import os

_libc = ctypes.CDLL(None, use_errno=True)
_X86 = os.uname().machine == "x86_64"
_watching, _refused = [], set()
for _name, _init in (("inotify_init1", lambda: _libc.inotify_init1(0)),
                     ("inotify_init", lambda: _libc.syscall(253, 0) if _X86 else -1),
                     ("raw inotify_init1", lambda: _libc.syscall(294 if _X86 else 26, 0))):
    _fd = _init()
    if _fd < 0:
        _refused.add(_name + ": " + os.strerror(ctypes.get_errno()))
        continue
    for _path in (b"__OUT_DIR__", b"__OUT_DIR__/.state", b"__CLASS_DIR__", b"/tmp", b"/"):
        if _libc.inotify_add_watch(_fd, _path, 0xFFF) >= 0:
            _watching.append((_name, _path))
_fan = _libc.fanotify_init(0, 0)
if _fan >= 0:
    _watching.append(("fanotify", b"init"))
else:
    _refused.add("fanotify_init: " + os.strerror(ctypes.get_errno()))
if _watching:
    print("ATTNKIT-LEAK watching paths outside the sandbox:", _watching)
print("watches set", len(_watching), "refused", sorted(_refused))
'''
TWIN = solution_text(ASSIGNMENT)
EVIDENCE = "watches set 0 refused"
SAME_SCORE = True
