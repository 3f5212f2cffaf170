from ._snippets import SHA, solution_text

ASSIGNMENT = SHA
TAG = "sysvipc"
ATTACK = ("a channel to the next student that outlives the run: System V shared memory, message queues and "
          "semaphores (IPC_PRIVATE and fixed keys, through libc and the raw syscall numbers), POSIX message "
          "queues and shared memory in /dev/shm; then looks for what a previous student left")
CODE = solution_text(ASSIGNMENT) + '''
import ctypes
import os

_libc = ctypes.CDLL(None, use_errno=True)
_X86 = os.uname().machine == "x86_64"
_IPC_CREAT = 0o1000
_made, _refused = [], set()


def _try(name, call):
    result = call()
    if result is None or result < 0:
        _refused.add(name + ": " + os.strerror(ctypes.get_errno()))
    else:
        _made.append(name)


for _key in (0, 0x5EED, 0x7A7A, 42):
    _try("shmget", lambda: _libc.shmget(_key, 1 << 20, _IPC_CREAT | 0o666))
    _try("msgget", lambda: _libc.msgget(_key, _IPC_CREAT | 0o666))
    _try("semget", lambda: _libc.semget(_key, 4, _IPC_CREAT | 0o666))
_try("raw shmget", lambda: _libc.syscall(29 if _X86 else 194, 0x5EEE, 4096, _IPC_CREAT | 0o666))
_try("raw msgget", lambda: _libc.syscall(68 if _X86 else 186, 0x5EEF, _IPC_CREAT | 0o666))
_try("raw semget", lambda: _libc.syscall(64 if _X86 else 190, 0x5EF0, 1, _IPC_CREAT | 0o666))
_try("found msg of a previous student", lambda: _libc.msgget(0x7A7A, 0))
try:
    _rt = ctypes.CDLL("librt.so.1", use_errno=True)
    _try("mq_open", lambda: _rt.mq_open(b"/__MARK__", os.O_CREAT | os.O_RDWR, 0o666, None))
except OSError as _exc:
    _refused.add("librt: " + str(_exc))
try:
    os.close(os.open("/dev/shm/__MARK__", os.O_CREAT | os.O_RDWR, 0o666))
    _made.append("/dev/shm file")
except OSError as _exc:
    _refused.add("/dev/shm: " + type(_exc).__name__)
if _made:
    print("ATTNKIT-LEAK made inter-process objects that may outlive the child:", _made)
print("ipc objects made", len(_made), "refused", len(_refused))
'''
TWIN = solution_text(ASSIGNMENT)
EVIDENCE = "ipc objects made 0 refused"
SAME_SCORE = True
