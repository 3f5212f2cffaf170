"""The warm fork server. Imports torch once, then forks one locked-down child per student file.

Started by the parent (inside bubblewrap where available) with a control socket whose fd
number is in ATTNKIT_CONTROL_FD.
Control messages are tiny JSON packets on a SOCK_SEQPACKET socket; the data socket for each child arrives with "spawn"
as a passed file descriptor, so the zygote never relays student data.
"""
from __future__ import annotations

import ctypes
import json
import os
import platform
import resource
import shutil
import signal
import socket
import stat
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # -I leaves the script's folder out

import torch  # noqa: F401 - the point of the zygote: pay for this import once

import harness

PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_SECCOMP, PR_SET_CHILD_SUBREAPER, PR_SET_NO_NEW_PRIVS = 1, 4, 22, 36, 38
NOBODY = 65534
# Without namespaces (rlimits mode) every child gets a user id of its own, so that children of
# different workers cannot signal each other, share files, or share one RLIMIT_NPROC budget.
SANDBOX_UID_BASE = 1_900_000_000
SCRATCH_DIRS = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock")  # world-writable places on a usual host
_libc = ctypes.CDLL(None, use_errno=True)


def prctl(option: int, value: int) -> None:
    _libc.prctl(option, value, 0, 0, 0)


def child_uid(pid: int, own_namespace: bool) -> int:
    return NOBODY if own_namespace else SANDBOX_UID_BASE + pid


def lock_down(limits: dict, uid: int = NOBODY, zygote: int | None = None) -> None:
    """Runs in the fresh child before any student code: drop everything it does not need."""
    os.setsid()
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)
    if os.getuid() == 0:  # never let student code run as root
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # after setresuid, which clears it
    if zygote is not None and os.getppid() != zygote:  # it died before we asked to die with it
        os._exit(1)
    prctl(PR_SET_NO_NEW_PRIVS, 1)
    prctl(PR_SET_DUMPABLE, 0)  # no ptrace or /proc/<pid>/mem from siblings
    deny_network()
    for name, value in limits.items():
        resource.setrlimit(getattr(resource, name), (value, value))
    torch.set_num_threads(1)
    os.chdir("/")


class _SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint32)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_SockFilter))]


# (audit arch, socket, io_uring_setup) per machine; elsewhere only the namespaces keep the network out
_SYSCALLS = {"x86_64": (0xC000003E, 41, 425), "aarch64": (0xC00000B7, 198, 425)}


def deny_network() -> bool:
    """A seccomp filter: socket() fails with EPERM for every family but AF_UNIX, io_uring (which can
    open sockets too) is refused, and so are foreign syscall ABIs (x32, 32-bit). bwrap already gives
    the child an empty network namespace; this keeps the network out in rlimits mode as well."""
    arch = _SYSCALLS.get(platform.machine())
    if arch is None:
        return False
    audit_arch, nr_socket, nr_io_uring = arch
    ld, jeq, jge, ret = 0x20, 0x15, 0x35, 0x06
    allow, deny = 0x7FFF0000, 0x00050000 | 1  # SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO | EPERM
    program = [
        (ld, 0, 0, 4),                  # 0: A = seccomp_data.arch
        (jeq, 0, 7, audit_arch),        # 1: foreign ABI -> deny
        (ld, 0, 0, 0),                  # 2: A = seccomp_data.nr
        (jge, 5, 0, 0x40000000),        # 3: x32 syscall numbers -> deny
        (jeq, 4, 0, nr_io_uring),       # 4: io_uring_setup -> deny
        (jeq, 0, 2, nr_socket),         # 5: not socket() -> allow
        (ld, 0, 0, 16),                 # 6: A = low half of args[0], the address family
        (jeq, 0, 1, 1),                 # 7: AF_UNIX -> allow, else deny
        (ret, 0, 0, allow),             # 8
        (ret, 0, 0, deny),              # 9
    ]
    filters = (_SockFilter * len(program))(*[_SockFilter(*op) for op in program])
    fprog = _SockFprog(len(program), filters)
    ok = _libc.prctl(ctypes.c_int(PR_SET_SECCOMP), ctypes.c_ulong(2), ctypes.byref(fprog),
                     ctypes.c_ulong(0), ctypes.c_ulong(0)) == 0  # SECCOMP_MODE_FILTER
    return ok


def descendants(of: int, everyone: bool) -> list[int]:
    """Processes to kill after a child ends: inside our own PID namespace that is everyone but
    init and us; without one, whatever descends from us (we are a subreaper, so orphans count)."""
    parent_of = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    parent_of[int(entry)] = int(handle.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
    if everyone:
        return [pid for pid in parent_of if pid not in (1, of)]
    found, frontier = [], [of]
    while frontier:
        current = frontier.pop()
        kids = [pid for pid, ppid in parent_of.items() if ppid == current]
        found += kids
        frontier += kids
    return found


def kill_all(own_namespace: bool, uids: set[int]) -> None:
    if own_namespace:
        try:
            os.kill(-1, signal.SIGKILL)  # everyone in our PID namespace but init and us, in one go
        except ProcessLookupError:  # nobody left to kill: the child had already exited
            pass
    else:
        for uid in uids:  # everyone running as that child's own uid, wherever it was reparented
            _kill_every_process_of(uid)
    # Then whatever is left of our tree, until it is gone: a process that is still exiting (or a
    # zombie) must not be there for the next student's child to find and signal.
    deadline = time.monotonic() + 5
    while True:
        pids = descendants(os.getpid(), own_namespace)
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        _collect_zombies()
        if not pids or time.monotonic() > deadline:
            return
        time.sleep(0.002)


def _collect_zombies() -> None:
    while True:
        try:
            if os.waitpid(-1, os.WNOHANG)[0] == 0:
                break
        except ChildProcessError:
            break


def _kill_every_process_of(uid: int) -> None:
    """kill(-1) as that uid: the kernel signals all its processes at once, so none can fork away."""
    if os.getuid() != 0 or uid == NOBODY:
        return
    pid = os.fork()
    if pid == 0:
        try:
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
            os.kill(-1, signal.SIGKILL)
        finally:
            os._exit(0)
    os.waitpid(pid, 0)


def remove_files_of(uids: set[int], folders=SCRATCH_DIRS, depth: int = 0) -> None:
    """Without namespaces a child can create files in world-writable folders; remove what its uid
    owns (the uid is the child's alone), looking into world-writable subfolders (/tmp/.X11-unix...)."""
    for folder in folders:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                info = entry.stat(follow_symlinks=False)
                if info.st_uid in uids:
                    if stat.S_ISDIR(info.st_mode):
                        shutil.rmtree(entry.path, ignore_errors=True)
                    else:
                        os.unlink(entry.path)
                elif stat.S_ISDIR(info.st_mode) and info.st_mode & 0o002 and depth < 3:
                    remove_files_of(uids, (entry.path,), depth + 1)
            except OSError:
                continue


def warm_up() -> None:
    """Run one backward pass before forking. torch imports sympy (and decimal, fractions, ...) lazily
    on the first backward: paying that once here saves ~0.6 s per child, and a child running as
    another user may not be allowed to read the Python installation (rlimits mode with Python
    under /root, e.g. pyenv): then only what the zygote imported is importable. So also import a
    few light modules that student code and torch.testing reach for."""
    import html, statistics, sysconfig  # noqa: F401,E401
    import torch.testing  # noqa: F401
    sysconfig.get_config_vars()  # imports the platform's _sysconfigdata module
    x = torch.randn(2, 3, requires_grad=True)
    layer = torch.nn.Linear(3, 3, bias=False)
    torch.autograd.backward(torch.softmax(layer(x), -1), torch.ones(2, 3))


def main() -> None:
    own_namespace = os.environ.get("ATTNKIT_PID_NAMESPACE") == "1"
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    prctl(PR_SET_CHILD_SUBREAPER, 1)
    prctl(PR_SET_DUMPABLE, 0)
    warm_up()
    control = socket.socket(fileno=int(os.environ["ATTNKIT_CONTROL_FD"]))
    control.send(json.dumps({"ready": True, "pid": os.getpid()}).encode())
    uids: set[int] = set()  # uids of children since the last reap (rlimits mode)
    zygote = os.getpid()
    while True:
        try:
            data, fds, _, _ = socket.recv_fds(control, 65536, 1)
        except OSError:
            return
        if not data:
            return
        command = json.loads(data)
        if command["op"] == "spawn":
            pid = os.fork()
            if pid == 0:
                control.close()
                try:
                    lock_down(command["limits"], child_uid(os.getpid(), own_namespace), zygote)
                    harness.Harness().serve(socket.socket(fileno=fds[0]))
                finally:
                    os._exit(0)
            os.close(fds[0])
            if not own_namespace and os.getuid() == 0:
                uids.add(child_uid(pid, own_namespace))
            reply = {"pid": pid}
        elif command["op"] == "reap":
            kill_all(own_namespace, uids)
            if uids:
                remove_files_of(uids)
            uids.clear()
            reply = {"reaped": True}
        else:
            return
        control.send(json.dumps(reply).encode())


if __name__ == "__main__":
    main()
