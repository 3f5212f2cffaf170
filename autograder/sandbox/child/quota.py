"""The fork server's count of the names a child makes (folders, files, unnamed O_TMPFILE inodes).

A child may write no file data (RLIMIT_FSIZE 0), but a name costs something too: an inode, a folder's block
on a disk, kernel memory on tmpfs, and the wipe's time after the child. seccomp (confine.py) refuses links,
device nodes, fifos, whiteouts, bound socket names, extended attributes and fallocate outright, and hands every
call that makes a name (mkdir, mkdirat, creat, openat2, and open/openat with O_CREAT or O_TMPFILE) to the fork
server as a user notification. The fork server lets the first `allowance` calls of a child go on, `folders` of
them at most making folders (the kernel then runs them as usual, with the child's own rights: Landlock and
file permissions decide), and answers every later one with EDQUOT ("Disk quota exceeded"). This holds on
every file system and in every setting (root or not, namespaces or not), where no mount, quota or cgroup may
be available. A child cannot answer for itself: it hands its listener over before any student code runs, and
the kernel gives no second listener to a filter installed below one that has it.

Calls are counted, not names: an `open(path, "w")` of a file that exists counts once, a failed mkdir counts
once, and removing a name gives nothing back (the allowance bounds the wipe's work too). A child whose calls
wait for an answer is blocked, not running, so nothing here runs student code or reads the child's memory.
"""
from __future__ import annotations

import errno
import fcntl
import os
import select
import socket
import struct

RECV = 0xC0502100  # SECCOMP_IOCTL_NOTIF_RECV: _IOWR('!', 0, struct seccomp_notif), 80 bytes
SEND = 0xC0182101  # SECCOMP_IOCTL_NOTIF_SEND: _IOWR('!', 1, struct seccomp_notif_resp), 24 bytes
NOTIF_SIZE = 80
RESPONSE = struct.Struct("=QqiI")  # id, val, error (a negative errno), flags
FLAG_CONTINUE = 1  # SECCOMP_USER_NOTIF_FLAG_CONTINUE: the kernel runs the call as if no filter had asked


class Quota:
    """The allowance of one child, answered from its filter's listener (None: no listener, nothing to do):
    `allowance` calls that make a name, of which `folders` may make a folder (removing a folder costs the wipe
    far more than removing a file: a block to free, on a disk that may discard it at once)."""

    def __init__(self, listener: int | None, allowance: int, folders: int, folder_calls: frozenset[int]) -> None:
        self.listener = listener
        self.allowance = allowance
        self.folders = folders
        self.folder_calls = folder_calls  # syscall numbers of mkdir and mkdirat on this machine
        self.used = self.folders_used = self.refused = 0

    def answer(self) -> None:
        """Answer one waiting call: go on while the allowance lasts, EDQUOT after."""
        notification = bytearray(NOTIF_SIZE)  # the kernel wants it zeroed
        try:
            fcntl.ioctl(self.listener, RECV, notification, True)
        except OSError:  # ENOENT: the child died (or was killed) while its call waited
            return
        ident, _, _, number = struct.unpack_from("=QIIi", notification)
        folder = number in self.folder_calls
        if self.used < self.allowance and (not folder or self.folders_used < self.folders):
            self.used += 1
            self.folders_used += folder
            response = RESPONSE.pack(ident, 0, 0, FLAG_CONTINUE)
        else:
            self.refused += 1
            response = RESPONSE.pack(ident, 0, -errno.EDQUOT, 0)
        try:
            fcntl.ioctl(self.listener, SEND, response)
        except OSError:  # the child is gone
            pass

    def serve_until(self, fd: int, timeout: float | None = None) -> bool:
        """Answer the child's calls until `fd` is readable (True) or `timeout` seconds pass (False)."""
        poller = select.poll()
        poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
        if self.listener is not None:
            poller.register(self.listener, select.POLLIN | select.POLLHUP)
        while True:
            events = dict(poller.poll(None if timeout is None else int(timeout * 1000)))
            if not events:
                return False
            if self.listener is not None and self.listener in events:
                if events[self.listener] & select.POLLIN:
                    self.answer()
                elif events[self.listener] & select.POLLHUP:  # the child is gone: nothing more will come
                    poller.unregister(self.listener)
                    self.close()
            if fd in events:
                return True

    def close(self) -> None:
        if self.listener is not None:
            os.close(self.listener)
            self.listener = None


def receive_listener(ours: socket.socket) -> int | None:
    """The listener a fresh child sends from lock_down; None when it has none (or died before sending)."""
    ours.settimeout(120)
    try:
        data, fds, _, _ = socket.recv_fds(ours, 64, 1)
    except OSError:
        return None
    finally:
        ours.close()
    for fd in fds[1:]:
        os.close(fd)
    return fds[0] if data == b"listener" and fds else None


def try_allowance() -> str:
    """In the self-test's child, with an allowance of one name: "counted" where the fork server counts names (the
    first is made, the second refused), "refused" where the kernel gave no listener (none is made); raises when
    a name past the allowance, a link or an extended attribute could be made."""
    first = _attempt(lambda: os.mkdir("quota-1"))
    seen = {"second name": _attempt(lambda: os.mkdir("quota-2")),
            "symbolic link": _attempt(lambda: os.symlink("x" * 99, "link")),
            "extended attribute": _attempt(lambda: os.setxattr(".", "user.probe", b"x"))}
    wrong = {what: how for what, how in seen.items() if how == "ok"}
    if wrong or first not in ("ok", "EDQUOT"):
        raise OSError(f"a locked-down child could still make metadata: {wrong} (a first name: {first})")
    return "counted" if first == "ok" else "refused"


def _attempt(call) -> str:
    try:
        call()
    except OSError as exc:
        return errno.errorcode.get(exc.errno, str(exc.errno))
    return "ok"
