"""Parent side of the trust boundary: a warm fork server and one connection (link.py) per student file.

The zygote (child/zygote.py) runs in bubblewrap where possible: read-only system, no network,
private /tmp and PID namespace, and nothing of the kit or of any submission visible. Every child is
confined further by Landlock and seccomp (child/confine.py). Student source text reaches a child
only over its socket; only plain data (child/wire.py) comes back.

Time limits count the CPU time of the student's processes, not the wall clock, so a busy machine
(or a classmate hogging it) cannot make honest code time out; code that sleeps or blocks instead of
computing is stopped once it has been idle a few times as long (time spent waiting for a CPU on a busy
machine does not count as idle).
"""
from __future__ import annotations

import json
import os
import select
import socket
import subprocess
import sys
import tempfile
import time

from .. import profiling
from . import cgroups
from .child.wipe import remove_tree
from .config import SandboxConfig
from .isolation import (CLEAN_ENV, HARNESS_DIR, HARNESS_MOUNT, Isolation, SandboxUnavailable, bwrap_binary,
                        bwrap_command, landlock_abi, resolve)
from .link import Child, ChildFailure  # noqa: F401 - ChildFailure: also imported from here
from .processes import _process_state, descendants, innermost_pid, process_table, thread_env, usage

PING_SECONDS = 60  # a fork server that does not answer a ping within this is replaced (a wedged one)


class ForkServer:
    """One warm zygote per grading worker; it forks one sandboxed child per student file."""

    def __init__(self, config: SandboxConfig = SandboxConfig(), chosen: Isolation | None = None) -> None:
        self.config = config
        chosen = chosen or resolve(config.isolation, config.allow_weak)  # given: already probed by the caller
        self.isolation, self.description, self.warning = chosen.mode, chosen.description, chosen.warning
        self.process: subprocess.Popen | None = None
        self.control: socket.socket | None = None
        self.current: Child | None = None
        self.zygote_pid: int | None = None  # as this process sees it (bubblewrap has its own PID namespace)
        self.scratch: str | None = None
        self.hello: dict = {}
        self.landlock_asked = "0"
        # time a file's processes spent waiting for a CPU (a busy machine), given back to its time budget;
        # keyed by the budget's deadline, which all children of one student file share
        self.credit: dict[float, float] = {}
        self.leftovers = 0  # paths the wipe after a child could not remove (logged)
        self._hierarchy: cgroups.Hierarchy | None | bool = False  # False: not looked for yet
        self.group: cgroups.Group | None = None  # the current child's cgroup
        self.unanswered_reap = False  # a reap was sent without waiting: its answer comes before any other
        self.reaped_group: cgroups.Group | None = None  # that reaped child's group, removed at the answer
        self.idle_jobs: list = []  # the grader's own work, done while a child computes (when_idle)

    @property
    def hierarchy(self) -> cgroups.Hierarchy | None:
        """Where this worker makes a cgroup per child, decided once (None: the child's own bounds only)."""
        if self._hierarchy is False:
            found = cgroups.detect()
            try:
                if found is not None:
                    found.prepare()
            except OSError as exc:
                print(f"sandbox: no cgroup per student ({found.kind}: {exc}); each child is one process "
                      "bounded by its own limits", file=sys.stderr)
                found = None
            self._hierarchy = found
        return self._hierarchy

    @property
    def cgroup_description(self) -> str:
        return self.hierarchy.description if self.hierarchy else "no cgroup (one process per student, RLIMIT_AS)"

    def _new_group(self) -> cgroups.Group | None:
        if self.hierarchy is None:
            return None
        limits = self.config.limits
        try:
            return self.hierarchy.create(cgroups.GroupLimits(limits.group_memory_bytes, limits.processes))
        except OSError as exc:
            raise SandboxUnavailable(f"a cgroup for the next student could not be made ({exc})") from None

    def _drop_group(self, group: cgroups.Group | None = None) -> None:
        """Remove `group` (default: the current child's, which is then forgotten)."""
        if group is None:
            group, self.group = self.group, None
        if group is not None:
            left = group.remove()
            if left:
                print(f"sandbox: cgroup(s) {left} could not be removed (the next run removes them)", file=sys.stderr)

    def _rlimits(self) -> dict:
        limits = self.config.limits
        # The address space is bounded on top of the child's own size (the warm zygote's), measured in the child:
        # the grading process's size says nothing of it (a long-lived grader can be gigabytes larger).
        return {"RLIMIT_AS_EXTRA": limits.memory_bytes, "RLIMIT_CPU": limits.cpu_seconds,
                "RLIMIT_NPROC": limits.processes, "RLIMIT_FSIZE": limits.file_bytes,
                "RLIMIT_NOFILE": limits.open_files, "RLIMIT_CORE": 0}

    def start(self) -> None:
        self.launch()
        self.await_hello()

    def launch(self) -> None:
        """Start the zygote without waiting for it: it imports torch while this process does other work.
        The first spawn (or await_hello) waits for its hello."""
        profiling.event("fork server launch")
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        landlock = "0" if self.isolation == "rlimits" or not landlock_abi() else "1"
        env = {**thread_env(), "ATTNKIT_CONTROL_FD": str(theirs.fileno()), "ATTNKIT_LANDLOCK": landlock,
               "ATTNKIT_LIMITS": json.dumps(self._rlimits())}
        if self.isolation == "bwrap":
            cmd = [*bwrap_command(bwrap_binary() or "bwrap", self.config.limits.scratch_tmpfs_bytes),
                   *sum((["--setenv", k, v] for k, v in env.items()), []),
                   sys.executable, "-I", "-B", f"{HARNESS_MOUNT}/zygote.py"]
            env = dict(CLEAN_ENV)  # bubblewrap (pid 1 inside) must not carry the instructor's environment
        else:
            self.scratch = tempfile.mkdtemp(prefix="attnkit-sandbox-")
            os.chmod(self.scratch, 0o711 if os.getuid() == 0 else 0o700)
            cmd = [sys.executable, "-I", "-B", str(HARNESS_DIR / "zygote.py")]
            env = {**CLEAN_ENV, "HOME": "/tmp", "ATTNKIT_SCRATCH": self.scratch, **env}
        self.process = subprocess.Popen(cmd, pass_fds=[theirs.fileno()], env=env, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        theirs.close()
        self.control = ours
        self.landlock_asked = landlock
        self.hello = {}

    def await_hello(self) -> None:
        landlock = self.landlock_asked
        if not select.select([self.control], [], [], 0)[0]:
            self.run_idle_jobs()  # the zygote is still importing torch: this process would only wait for it
        self.control.settimeout(300)  # importing torch on a very busy machine
        try:
            hello = json.loads(self.control.recv(4096) or b"{}")
        except (OSError, ValueError) as exc:
            hello = {"error": str(exc)}
        if not hello.get("ready"):
            if self.process.poll() is None:
                self.process.kill()
            self.process.wait()
            err = self.process.stderr.read(2000).decode(errors="replace")
            raise SandboxUnavailable(f"the sandbox did not start ({hello}): {err}")
        if self.isolation != "rlimits" and landlock == "1" and not hello.get("landlock"):
            raise SandboxUnavailable("Landlock could not be applied to student processes")
        self.hello = hello
        if hello.get("scratch_count") == "refused":
            print("sandbox: the kernel gave the fork server no seccomp listener, so it cannot count the names a "
                  "child makes: student code may make no file or folder at all (docs/isolation.md, Scratch space)",
                  file=sys.stderr)
        self.zygote_pid = self._host_pid(int(hello["pid"]))
        profiling.event("fork server hello received", zygote_sympy=bool(hello.get("sympy")))
        times = {"process started": profiling.process_start(self.zygote_pid or "self"), **(hello.get("times") or {})}
        for name, at in times.items() if profiling.enabled() else ():
            wall, cpu = at if isinstance(at, list) else (at, None)  # (wall clock, CPU) from the zygote
            profiling.record(name, float(wall), self.zygote_pid or -1, "fork server (zygote)", cpu)

    def _host_pid(self, inner: int) -> int | None:
        if self.isolation != "bwrap":
            return self.process.pid
        table = process_table()
        return next((pid for pid in descendants(table, self.process.pid) if innermost_pid(pid) == inner), None)

    def student_usage(self) -> tuple[float, float] | None:
        """(CPU, active) seconds of the processes alive under the zygote: the current child and everything
        it started (orphans come back to the zygote, a subreaper). None when it cannot be measured."""
        if self.zygote_pid is None:
            return None
        table = process_table()
        return usage(table, descendants(table, self.zygote_pid))

    def _ready(self) -> None:
        """A fork server that has said hello: started or restarted here when needed."""
        if self.process is not None and not self.hello:
            self.await_hello()  # launched, not yet heard from
        if self.process is None or self.process.poll() is not None:
            self.close()
            self.start()

    def _command(self, message: dict, fds: list[int] = ()) -> dict:
        self.await_reap()
        self._ready()
        socket.send_fds(self.control, [json.dumps(message).encode()], list(fds))
        return json.loads(self.control.recv(4096))

    def ensure_healthy(self) -> None:
        """Before a student: a fork server that is gone, stopped or does not answer is replaced by a fresh
        one, so that whatever broke it costs no later classmate."""
        if self.process is None or not self.hello:
            return  # not started, or launched and not heard from yet: the first spawn starts it or waits for it
        if self.current is not None:
            self.current.retire()
        self.await_reap()
        if self.process is not None and self._healthy():
            return
        print("sandbox: the fork server was gone or stopped answering; a fresh one was started", file=sys.stderr)
        self.close()
        self.start()

    def _healthy(self) -> bool:
        if self.process.poll() is not None or self.control is None:
            return False
        if self.zygote_pid is not None and _process_state(self.zygote_pid) in ("T", "t", "Z", "X", None):
            return False
        try:
            self.control.settimeout(PING_SECONDS)
            socket.send_fds(self.control, [json.dumps({"op": "ping"}).encode()], [])
            return json.loads(self.control.recv(4096)).get("pong") is True
        except (OSError, ValueError, AttributeError):
            return False
        finally:
            if self.control is not None:
                self.control.settimeout(300)

    def when_idle(self, job) -> None:
        """Run `job()` once, in this thread, right after a request is next sent to a child: the grading process
        would only wait for the reply meanwhile. No thread is used: CPython 3.11's AST objects keep one recursion
        count per interpreter, so an `ast.parse` in a second thread while pytest rewrites the hidden tests (or
        the grader parses a student's file) fails at random ("AST constructor recursion depth mismatch")."""
        self.idle_jobs.append(job)

    def run_idle_jobs(self) -> float:
        """Run the waiting jobs; returns the wall time they took."""
        if not self.idle_jobs:
            return 0.0
        start = time.monotonic()
        jobs, self.idle_jobs = self.idle_jobs, []
        for job in jobs:
            try:
                job()
            except Exception as exc:  # noqa: BLE001 - the grader's own work: never a student's fault
                print(f"grader: work done while a child computed failed ({type(exc).__name__}: {exc})",
                      file=sys.stderr)
        return time.monotonic() - start

    def spawn(self, deadline: float | None = None) -> "Child":
        """A new child. The previous one is retired first: a reap kills everything the zygote's
        children started, so only one child may be alive at a time."""
        if self.current is not None:
            self.current.retire()
        limits = self.config.limits
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        spawn = {"op": "spawn", "limits": self._rlimits(), "scratch_entries": limits.scratch_entries,
                 "scratch_folders": limits.scratch_folders}
        # (re)start the fork server BEFORE making the child's group: a restart closes the server, and closing
        # drops the current group, so the child would be sent the procs files of a removed group (ENODEV)
        started = time.monotonic()
        self._ready()
        waited = time.monotonic() - started  # for the fork server's start (and the grader's work meanwhile)
        self.group = self._new_group()
        procs = self.group.open_procs() if self.group is not None else []
        try:
            try:
                reply = self._command(spawn, [theirs.fileno(), *procs])
            except (OSError, ValueError):
                for fd in procs:
                    os.close(fd)
                procs = []
                self.close()  # a zygote that cannot answer is replaced, never trusted again
                self._ready()
                self.group = self._new_group()
                procs = self.group.open_procs() if self.group is not None else []
                reply = self._command(spawn, [theirs.fileno(), *procs])
        finally:
            theirs.close()
            for fd in procs:
                os.close(fd)
        if reply.get("cgroup"):  # the child never got student code: a problem of the machine
            ours.close()
            self.reap()
            raise SandboxUnavailable(f"a student's process could not be moved into its cgroup ({reply['cgroup']})")
        deadline = deadline or time.monotonic() + limits.submission_seconds
        if deadline not in self.credit:
            self.credit = {k: v for k, v in list(self.credit.items())[-3:]}
            self.credit[deadline] = 0.0
        self.credit[deadline] += waited  # not the student's time
        self.current = Child(self, ours, limits, deadline)
        return self.current

    def reap(self, wait: bool = True) -> None:
        """Kill everything the last child started (daemons, grandchildren, SIGTERM-ignorers), and remove
        what it wrote. What could not be removed is logged; the next child gets a folder of a new name.
        Without `wait` the zygote does this while this process goes on; its answer is read before the next
        command, and the zygote takes no command before the reap is done, so no later child meets anything
        of this one."""
        self.await_reap()
        try:
            self._ready()
            socket.send_fds(self.control, [json.dumps({"op": "reap"}).encode()], [])
        except (OSError, ValueError):
            self.close()
            return
        # the child's group can be removed only once its processes are gone, i.e. after the answer
        self.unanswered_reap, self.reaped_group, self.group = True, self.group, None
        if wait:
            self.await_reap()

    def await_reap(self) -> None:
        """Read the answer to a reap sent without waiting, if one is due."""
        if not self.unanswered_reap:
            return
        self.unanswered_reap = False
        group, self.reaped_group = self.reaped_group, None
        try:
            given_up = time.monotonic() + 300  # as for any command (the control socket's timeout)
            while not select.select([self.control], [], [], 0.5)[0]:  # a stopped or dead zygote never answers
                stopped = self.zygote_pid is not None and _process_state(self.zygote_pid) in ("T", "t", "Z", "X", None)
                if stopped or self.process.poll() is not None or time.monotonic() > given_up:
                    raise OSError("the fork server did not answer the reap")
            reply = json.loads(self.control.recv(4096))
        except (OSError, ValueError, AttributeError, TypeError):
            self.close()
            self._drop_group(group)
            return
        if reply.get("left_count") or reply.get("problem"):
            self.leftovers += int(reply.get("left_count") or 0)
            print(f"sandbox: after a child, {reply.get('left_count')} path(s) could not be removed "
                  f"{reply.get('left')!r:.2000} {reply.get('problem') or ''}", file=sys.stderr)
        self._drop_group(group)

    def close(self) -> None:
        self.await_reap()
        # before its hello the zygote has forked nothing, so there is nothing to reap
        stopped = self.zygote_pid is not None and _process_state(self.zygote_pid) in ("T", "t")  # cannot answer
        if self.process is not None and self.process.poll() is None and self.control is not None and self.hello \
                and not stopped:
            try:  # without a PID namespace, what the last child left running outlives a killed zygote
                self.control.settimeout(10)
                socket.send_fds(self.control, [json.dumps({"op": "reap"}).encode()], [])
                self.control.recv(4096)
            except (OSError, ValueError):
                pass
        self.current = None
        if self.process is not None:
            self.process.kill()
            self.process.wait()
        self._drop_group()
        if self.process is not None:
            if self.process.stderr is not None:
                self.process.stderr.close()
            self.process = None
        if self.control is not None:
            self.control.close()
            self.control = None
        if self.scratch is not None:
            left = remove_tree(self.scratch)
            if left:
                print(f"sandbox: {len(left)} path(s) of the scratch folder could not be removed: {left[:5]!r}",
                      file=sys.stderr)
            self.scratch = None
        self.zygote_pid = None
