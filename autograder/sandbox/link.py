"""The grader's side of one student process: requests under a CPU-time budget, and how a child ends.

A `Child` is made by the fork server (server.py) for one student file. Each request waits for the answer up to the
student's CPU time, not the wall clock, so a busy machine cannot make honest code time out; code that sleeps or
blocks instead of computing is stopped once it has been idle a few times as long.
"""
from __future__ import annotations

import select
import socket
import time
from typing import TYPE_CHECKING

from .config import SandboxLimits

if TYPE_CHECKING:
    from .server import ForkServer

POLL_SECONDS = 0.5  # how often a slow request's CPU time is checked


class ChildFailure(Exception):
    """The student's process did not answer properly: it crashed, hung or sent garbage."""

    def __init__(self, kind: str, message: str, stdout: str = "") -> None:
        super().__init__(message)
        self.kind = kind
        self.stdout = stdout


class Child:
    """A connection to one sandboxed student process; every reply is plain decoded data."""

    def __init__(self, server: ForkServer, sock: socket.socket, limits: SandboxLimits, deadline: float) -> None:
        self.server = server
        self.sock = sock
        self.limits = limits
        self.deadline = deadline
        self.dead: ChildFailure | None = None
        self.closed = False
        self.group = server.group  # its cgroup (None without one): tells a memory kill from a crash
        self.seen = (0.0, 0.0)  # the student's (CPU, active) time when last measured; a fresh child has none

    @property
    def budget_end(self) -> float:
        return self.deadline + self.server.credit.get(self.deadline, 0.0)

    def request(self, message: dict, seconds: float) -> dict:
        """Send one request and wait for the reply: up to `seconds` of the student's CPU time, or
        `wall_factor` times as long on the wall clock, whichever comes first."""
        if self.dead is not None:
            raise self.dead
        if self.closed:
            raise ChildFailure("closed", "internal: request on a retired child")
        budget = self.budget_end - time.monotonic()
        if budget <= 0:
            self._fail("timeout", f"the time budget of {self.limits.submission_seconds:.0f} s for this file is used up")
        from .child import wire  # imports torch: not before a fork server is launched (bench/bench_startup.py)

        start = time.monotonic()
        try:
            self.sock.settimeout(budget)
            wire.send(self.sock, message)
            ours = self.server.run_idle_jobs()
            if ours:  # the grader's own work is not the student's time
                start += ours
                if self.deadline in self.server.credit:
                    self.server.credit[self.deadline] += ours
            self._await_reply(seconds, start)
            reply = wire.receive(self.sock, self.limits.reply_bytes, deadline=time.monotonic() + seconds)
        except (socket.timeout, TimeoutError):
            self._fail("timeout", f"the reply did not arrive within {seconds:g} s")
        except (EOFError, ConnectionError, BrokenPipeError):
            self._fail_memory()
            self._fail("crashed", "the code stopped the Python process (sys.exit, os._exit, a crash or a "
                                  "memory limit)")
        except wire.WireError as exc:
            self._fail("garbage", f"the process sent back something unreadable ({exc})")
        if time.monotonic() - start > POLL_SECONDS:
            self._measure()
        if not isinstance(reply, dict) or not isinstance(reply.get("ok"), bool):
            self._fail("garbage", "the process sent back a malformed reply")
        return reply

    def _measure(self) -> tuple[float, float] | None:
        """Update what the student's processes used; time they spent waiting for a CPU goes back to the
        file's budget, so that a busy machine does not use it up."""
        now = self.server.student_usage()
        if now is not None:
            waited = (now[1] - now[0]) - (self.seen[1] - self.seen[0])
            if waited > 0 and self.deadline in self.server.credit:
                self.server.credit[self.deadline] += waited
            self.seen = now
        return now

    def _await_reply(self, seconds: float, start: float) -> None:
        """Return once the child starts answering. Fail once it used `seconds` of CPU time, or spent
        `wall_factor` times as long neither running nor waiting for a CPU (sleeping, blocked). Both are
        measured only after `seconds` of wall time, so a quick answer costs one select call. The file's
        time budget (wall clock, less the time spent waiting for a CPU) is the last resort."""
        wait, patience, seen = seconds, seconds * self.limits.wall_factor, self.seen
        while True:
            left = self.budget_end - time.monotonic()
            if left <= 0:
                self._fail("timeout", f"the time budget of {self.limits.submission_seconds:.0f} s for this file "
                                      "is used up")
            readable, _, _ = select.select([self.sock], [], [], max(0.0, min(wait, left)))
            if readable:
                return
            wait = POLL_SECONDS
            elapsed = time.monotonic() - start
            if elapsed < seconds:
                continue
            now = self._measure()
            if now is None:
                idle = elapsed
            else:
                if now[0] - seen[0] >= seconds:
                    self._fail("timeout", f"no answer after {seconds:g} s of CPU time (an infinite loop, or "
                                          "far too slow)")
                idle = elapsed - (now[1] - seen[1])
            if idle >= patience:
                self._fail("timeout", f"no answer within {elapsed:.0f} s, {idle:.0f} s of them spent waiting or "
                                      "sleeping rather than computing")

    def _fail_memory(self) -> None:
        """A child the kernel killed for its cgroup's memory limit fails as "memory", not as a crash."""
        usage = self.group.usage() if self.group is not None and not self.closed else None
        if usage is not None and usage.oom_kills:
            peak = f", {usage.peak_bytes / 2**30:.2f} GiB at the peak" if usage.peak_bytes else ""
            self._fail("memory", f"the process used more memory than a student's limit "
                                 f"({self.limits.group_memory_bytes / 2**30:.2f} GiB{peak}) and was stopped")

    def _fail(self, kind: str, message: str) -> None:
        self.dead = ChildFailure(kind, message)
        self.close()
        raise self.dead

    def close(self, settle: bool = True) -> None:
        """End this child and everything it started; a no-op when already closed. Without `settle` this process
        goes on while the fork server cleans up (answered at its next command, or when it is closed); after
        a failure it always waits, so that the failed child's processes and group are gone when it is reported."""
        if self.closed:
            return
        self.closed = True
        if self.server.current is self:
            self.server.current = None
        try:
            self.sock.close()
        finally:
            self.server.reap(wait=settle or self.dead is not None)

    def retire(self) -> None:
        """Close a healthy child to make room for the next one; its owner may spawn a fresh one later."""
        self.close()

    @property
    def usable(self) -> bool:
        return not self.closed and self.dead is None
