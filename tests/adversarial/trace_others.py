from ._snippets import SHA, solution_text

ASSIGNMENT = SHA
TAG = "trace"
ATTACK = ("tries to reach other processes' memory and control: ptrace(PTRACE_SEIZE) on its parent, pid 1 "
          "and a process of another user, /proc/<pid>/mem, process_vm_readv, pidfd_open + pidfd_getfd, and "
          "signals to every pid number (signal 0: a real attacker would send SIGKILL or SIGSTOP)")
CODE = solution_text(ASSIGNMENT) + '''
import ctypes
import os

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
_outcomes = set()
_targets = sorted({os.getppid(), 1, __BYSTANDER__} - {os.getpid()})


class _IoVec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]


for _pid in _targets:
    if _libc.ptrace(0x4206, _pid, None, None) == 0:  # PTRACE_SEIZE: attaches without stopping
        _libc.ptrace(17, _pid, None, None)  # PTRACE_DETACH
        print("ATTNKIT-LEAK could ptrace", _pid)
    else:
        _outcomes.add("ptrace errno %d" % ctypes.get_errno())
    try:
        with open(f"/proc/{_pid}/mem", "rb") as _mem:
            _mem.read(1)
        print("ATTNKIT-LEAK could read the memory of", _pid)
    except OSError as exc:
        _outcomes.add("mem " + type(exc).__name__)
    _buffer = ctypes.create_string_buffer(64)
    _local, _remote = _IoVec(ctypes.addressof(_buffer), 64), _IoVec(0x400000, 64)
    if _libc.syscall(310, _pid, ctypes.byref(_local), 1, ctypes.byref(_remote), 1, 0) >= 0:  # process_vm_readv
        print("ATTNKIT-LEAK process_vm_readv on", _pid)
    else:
        _outcomes.add("process_vm_readv errno %d" % ctypes.get_errno())
    try:
        _fd = os.pidfd_open(_pid)
        print("ATTNKIT-LEAK pidfd_open on", _pid)
        if _libc.syscall(438, _fd, 0, 0) >= 0:  # pidfd_getfd: steal its fd 0
            print("ATTNKIT-LEAK pidfd_getfd on", _pid)
        os.close(_fd)
    except OSError as exc:
        _outcomes.add("pidfd " + type(exc).__name__)
_signalled = []
for _pid in range(1, os.getpid() + 20000):
    if _pid == os.getpid():
        continue
    try:
        os.kill(_pid, 0)
        _signalled.append(_pid)
    except OSError:
        pass
for _pgid in (-1, -os.getppid()):
    try:
        os.kill(_pgid, 0)
        _signalled.append(_pgid)
    except OSError:
        pass
if _signalled:
    print("ATTNKIT-LEAK could signal", _signalled[:10])
print("trace attempts:", sorted(_outcomes), "signalled", len(_signalled))
'''
TWIN = solution_text(ASSIGNMENT)
EVIDENCE = "signalled 0"
SAME_SCORE = True
