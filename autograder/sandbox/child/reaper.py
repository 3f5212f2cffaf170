"""After a child: kill everything it started and remove what it wrote, before the fork server takes another command.

Run in the fork server (zygote.py), never in a child. Inside our own PID namespace that is everyone but init and
us; without one, every process of the child's own user id, wherever it was reparented (we are a subreaper).
"""
from __future__ import annotations

import os
import select
import signal
import stat
import time

from wipe import remove_tree

NOBODY = 65534
SCRATCH_DIRS = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock")  # world-writable places on a usual host


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
    deadline = time.monotonic() + 30  # returns as soon as all are gone
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
        _await_exit(pids, 0.002)


def _await_exit(pids: list[int], seconds: float) -> None:
    """Until one of `pids` has ended or `seconds` have passed, whichever comes first: a pidfd is readable
    once its process has exited, so a dying child is collected the moment it is gone, not at the next poll."""
    fds = []
    try:
        for pid in pids:
            try:
                fds.append(os.pidfd_open(pid))
            except ProcessLookupError:  # gone already: look again at once
                return
            except OSError:  # no pidfd on this kernel: the time bound alone
                break
        if fds:
            select.select(fds, [], [], seconds)
        else:
            time.sleep(seconds)
    finally:
        for fd in fds:
            os.close(fd)


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


def remove_files_of(uids: set[int], folders=SCRATCH_DIRS, depth: int = 0) -> list[str]:
    """Without namespaces a child can create files in world-writable folders; remove what its uid
    owns (the uid is the child's alone), looking into world-writable subfolders (/tmp/.X11-unix...).
    Returns what could not be removed."""
    left: list[str] = []
    for folder in folders:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                info = entry.stat(follow_symlinks=False)
                if info.st_uid in uids:
                    left += remove_tree(entry.path)
                elif stat.S_ISDIR(info.st_mode) and info.st_mode & 0o002 and depth < 3:
                    left += remove_files_of(uids, (entry.path,), depth + 1)
            except OSError:
                left.append(entry.path)
    return left


def wipe(scratches: list[str], own_namespace: bool, keep: tuple[str, ...]) -> list[str]:
    """Remove what the children since the last reap could write: their scratch folders, and inside our
    own namespaces everything in /tmp and /dev/shm (ours alone: nothing of the host is there) except the
    folders that hold what bubblewrap bound back in (a Python installation or the harness under /tmp, as in
    a checkout made in a mktemp folder): moving those away would leave later children without Python.
    `keep`: those folders, resolved. Returns what could not be removed; every child gets a folder of a new name
    anyway."""
    left: list[str] = []
    for folder in scratches:
        left += remove_tree(folder)
    if own_namespace:
        for top in ("/tmp", "/dev/shm"):
            try:
                names = os.listdir(top)
            except OSError:
                continue
            for name in names:
                path = os.path.join(top, name)
                if not any(k == path or k.startswith(path + os.sep) for k in keep):
                    left += remove_tree(path)
    return left


def reap(own_namespace: bool, uids: set[int], scratches: list[str], keep: tuple[str, ...]) -> dict:
    """After a child: kill everything it started, then remove what it wrote. Never raises: a fork server
    that died here would cost every later student of the worker."""
    left: list[str] = []
    problem = ""
    try:
        kill_all(own_namespace, uids)
    except Exception as exc:  # noqa: BLE001
        problem = f"kill: {type(exc).__name__}: {exc}"
    try:
        left = wipe(scratches, own_namespace, keep)
        if uids:
            left += remove_files_of(uids)
    except Exception as exc:  # noqa: BLE001
        problem = problem or f"wipe: {type(exc).__name__}: {exc}"
    return {"reaped": True, "left": [os.fsencode(p).decode("utf-8", "replace")[:300] for p in left[:20]],
            "left_count": len(left), "problem": problem[:500]}
