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
import resource
import signal
import socket
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # -I leaves the script's folder out

import torch  # noqa: F401 - the point of the zygote: pay for this import once

import harness

PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER, PR_SET_NO_NEW_PRIVS = 1, 4, 36, 38
NOBODY = 65534
_libc = ctypes.CDLL(None, use_errno=True)


def prctl(option: int, value: int) -> None:
    _libc.prctl(option, value, 0, 0, 0)


def lock_down(limits: dict) -> None:
    """Runs in the fresh child before any student code: drop everything it does not need."""
    os.setsid()
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)
    if os.getuid() == 0:  # never let student code run as root
        os.setgroups([])
        os.setresgid(NOBODY, NOBODY, NOBODY)
        os.setresuid(NOBODY, NOBODY, NOBODY)
    prctl(PR_SET_NO_NEW_PRIVS, 1)
    prctl(PR_SET_DUMPABLE, 0)  # no ptrace or /proc/<pid>/mem from siblings
    for name, value in limits.items():
        resource.setrlimit(getattr(resource, name), (value, value))
    torch.set_num_threads(1)
    os.chdir("/")


def descendants(of: int, everyone: bool) -> list[int]:
    """Processes to kill after a child ends: inside our own PID namespace that is everyone but
    init and us; without one, whatever descends from us (we are a subreaper, so orphans count)."""
    parent_of = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    parent_of[int(entry)] = int(stat.read().rsplit(")", 1)[1].split()[1])
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


def kill_all(own_namespace: bool) -> None:
    for _ in range(50):  # a fork storm may add processes while we kill; go round until none
        pids = descendants(os.getpid(), own_namespace)
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        while True:
            try:
                if os.waitpid(-1, os.WNOHANG)[0] == 0:
                    break
            except ChildProcessError:
                break


def warm_up() -> None:
    """Run one backward pass before forking. torch imports sympy (and decimal, fractions, ...) lazily
    on the first backward: paying that once here saves ~0.6 s per child, and a child running as
    another user may not be allowed to read the Python installation (rlimits mode, Python under /root)."""
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
                    lock_down(command["limits"])
                    harness.Harness().serve(socket.socket(fileno=fds[0]))
                finally:
                    os._exit(0)
            os.close(fds[0])
            reply = {"pid": pid}
        elif command["op"] == "reap":
            kill_all(own_namespace)
            reply = {"reaped": True}
        else:
            return
        control.send(json.dumps(reply).encode())


if __name__ == "__main__":
    main()
