from ._snippets import NAME_PROCESS, SHA, solution_text

ASSIGNMENT = SHA
TAG = "forkmem"
ATTACK = ("memory per process instead of per student: forks (os.fork, raw clone, vfork through posix_spawn, "
          "multiprocessing) to the process limit, each child touching 200 MiB under its own address-space "
          "limit, then the correct solution")
CODE = solution_text(ASSIGNMENT) + NAME_PROCESS + '''
import ctypes
import mmap
import os
import time

_libc = ctypes.CDLL(None, use_errno=True)


def _hold():
    _attnkit_name("__MARK__")
    try:
        block = mmap.mmap(-1, 200 << 20)
        for offset in range(0, len(block), 4096):
            block[offset] = 1
    except (OSError, ValueError, MemoryError):
        pass
    time.sleep(120)


def _raw_clone():
    pid = _libc.syscall(56 if os.uname().machine == "x86_64" else 220, 17, 0, 0, 0, 0)  # SIGCHLD
    if pid < 0:
        raise OSError(ctypes.get_errno(), "clone")
    return pid


_made, _refused = 0, set()
for _how in [os.fork] * 40 + [_raw_clone] * 10:
    try:
        _pid = _how()
    except OSError as _exc:
        _refused.add(f"{_how.__name__}: {type(_exc).__name__}")
        continue
    if _pid == 0:
        try:
            _hold()
        finally:
            os._exit(0)
    _made += 1
try:
    import multiprocessing
    _pool = [multiprocessing.Process(target=_hold) for _ in range(4)]
    for _p in _pool:
        _p.start()
    _made += len(_pool)
except Exception as _exc:  # noqa: BLE001
    _refused.add(f"multiprocessing: {type(_exc).__name__}")
try:
    os.posix_spawn("/bin/sleep", ["sleep", "60"], {})
    _made += 1
except OSError as _exc:
    _refused.add(f"posix_spawn: {type(_exc).__name__}")
print("memory holders made", _made, "refused", sorted(_refused))
'''
TWIN = solution_text(ASSIGNMENT)
EVIDENCE = "memory holders made 0 refused"
SAME_SCORE = True
