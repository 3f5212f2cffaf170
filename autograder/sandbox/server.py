"""Parent side of the trust boundary: a warm fork server and one connection per student file.

The zygote (child/zygote.py) runs in bubblewrap where possible: read-only system, no network,
private /tmp and PID namespace, and nothing of the kit or of any submission visible. Student
source text reaches a child only over its socket; only plain data (child/wire.py) comes back.
"""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

from .child import wire
from .config import SandboxConfig, SandboxLimits

HARNESS_DIR = Path(__file__).resolve().parent / "child"
HARNESS_MOUNT = "/opt/attnkit-harness"
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc")


class ChildFailure(Exception):
    """The student's process did not answer properly: it crashed, hung or sent garbage."""

    def __init__(self, kind: str, message: str, stdout: str = "") -> None:
        super().__init__(message)
        self.kind = kind
        self.stdout = stdout


class SandboxUnavailable(RuntimeError):
    """The sandbox itself could not start: a problem of the grading machine, never of a student."""


def python_paths() -> list[str]:
    """Folders the interpreter needs: its installation, the virtual environment, site-packages."""
    paths = {sys.base_prefix, sys.prefix, os.path.dirname(os.path.realpath(sys.executable))}
    paths.update(p for p in sys.path if p and os.path.isdir(p) and "site-packages" in p)
    return sorted(p for p in paths if os.path.isdir(p))


def bwrap_command() -> list[str]:
    cmd = ["bwrap", "--die-with-parent", "--new-session", "--unshare-net", "--unshare-pid",
           "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try", "--hostname", "sandbox"]
    for path in SYSTEM_DIRS:
        cmd += ["--ro-bind-try", path, path]
    cmd += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
            "--ro-bind-try", "/sys/devices/system/cpu", "/sys/devices/system/cpu"]
    made = set()
    for path in python_paths():
        # bwrap creates missing parents as 0700 root folders, which the unprivileged child cannot
        # cross; make them traversable first.
        for parent in reversed(Path(path).parents):
            text = str(parent)
            if text != "/" and text not in made and not text.startswith(SYSTEM_DIRS):
                cmd += ["--perms", "0755", "--dir", text]
                made.add(text)
        cmd += ["--ro-bind", path, path]
    cmd += ["--ro-bind", str(HARNESS_DIR), HARNESS_MOUNT, "--chdir", "/tmp",
            "--clearenv", "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "HOME", "/tmp",
            "--setenv", "ATTNKIT_PID_NAMESPACE", "1"]
    return cmd


def thread_env() -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if k.startswith("OPENBLAS_")}
    return {**keep, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "PYTHONDONTWRITEBYTECODE": "1"}


def bwrap_works() -> tuple[bool, str]:
    if shutil.which("bwrap") is None:
        return False, "bubblewrap (bwrap) is not installed"
    probe = subprocess.run([*bwrap_command(), sys.executable, "-I", "-c", "pass"],
                           capture_output=True, text=True, timeout=60)
    if probe.returncode != 0:
        return False, f"bubblewrap cannot start here: {probe.stderr.strip()[:200]}"
    return True, "bubblewrap"


class ForkServer:
    """One warm zygote per grading worker; it forks one sandboxed child per student file."""

    def __init__(self, config: SandboxConfig = SandboxConfig()) -> None:
        self.config = config
        self.isolation, self.warning = self._choose_isolation()
        self.process: subprocess.Popen | None = None
        self.control: socket.socket | None = None
        self.current: Child | None = None

    def _choose_isolation(self) -> tuple[str, str]:
        if self.config.isolation == "rlimits":
            return "rlimits", "sandbox: namespaces turned off; student code runs with resource limits only"
        ok, reason = bwrap_works()
        if ok:
            return "bwrap", ""
        if self.config.isolation == "bwrap":
            raise SandboxUnavailable(reason)
        return "rlimits", (f"WARNING: {reason}. Student code runs with resource limits only: it can read "
                           "files this user can read. Install bubblewrap for the full sandbox.")

    def start(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        env = {**thread_env(), "ATTNKIT_CONTROL_FD": str(theirs.fileno())}
        if self.isolation == "bwrap":
            cmd = [*bwrap_command(), *sum((["--setenv", k, v] for k, v in env.items()), []),
                   sys.executable, "-I", "-B", f"{HARNESS_MOUNT}/zygote.py"]
            env = None
        else:
            cmd = [sys.executable, "-I", "-B", str(HARNESS_DIR / "zygote.py")]
            env = {"PATH": "/usr/bin:/bin", "HOME": "/tmp", **env}
        self.process = subprocess.Popen(cmd, pass_fds=[theirs.fileno()], env=env, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        theirs.close()
        self.control = ours
        self.control.settimeout(120)
        try:
            hello = json.loads(self.control.recv(4096) or b"{}")
        except (OSError, ValueError) as exc:
            hello = {"error": str(exc)}
        if not hello.get("ready"):
            err = self.process.stderr.read(2000).decode(errors="replace") if self.process.poll() is not None else ""
            raise SandboxUnavailable(f"the sandbox did not start ({hello}): {err}")

    def _command(self, message: dict, fds: list[int] = ()) -> dict:
        if self.process is None or self.process.poll() is not None:
            self.start()
        socket.send_fds(self.control, [json.dumps(message).encode()], list(fds))
        return json.loads(self.control.recv(4096))

    def spawn(self, deadline: float | None = None) -> "Child":
        """A new child. The previous one is retired first: a reap kills everything the zygote's
        children started, so only one child may be alive at a time."""
        if self.current is not None:
            self.current.retire()
        limits = self.config.limits
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        rlimits = {"RLIMIT_AS": _address_space_now() + limits.memory_bytes, "RLIMIT_CPU": limits.cpu_seconds,
                   "RLIMIT_NPROC": limits.processes, "RLIMIT_FSIZE": limits.file_bytes,
                   "RLIMIT_NOFILE": limits.open_files, "RLIMIT_CORE": 0}
        try:
            self._command({"op": "spawn", "limits": rlimits}, [theirs.fileno()])
        except (OSError, ValueError):
            self.close()  # a zygote that cannot answer is replaced, never trusted again
            self._command({"op": "spawn", "limits": rlimits}, [theirs.fileno()])
        finally:
            theirs.close()
        self.current = Child(self, ours, limits, deadline or time.monotonic() + limits.submission_seconds)
        return self.current

    def reap(self) -> None:
        """Kill everything the last child started (daemons, grandchildren, SIGTERM-ignorers)."""
        try:
            self._command({"op": "reap"})
        except (OSError, ValueError):
            self.close()

    def close(self) -> None:
        if self.process is not None and self.process.poll() is None and self.control is not None:
            try:  # without a PID namespace, what the last child left running outlives a killed zygote
                self.control.settimeout(10)
                self._command({"op": "reap"})
            except (OSError, ValueError):
                pass
        self.current = None
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None
        if self.control is not None:
            self.control.close()
            self.control = None


def _address_space_now() -> int:
    """The zygote's address space is close to ours (both imported torch); limits are relative to it."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


class Child:
    """A connection to one sandboxed student process; every reply is plain decoded data."""

    def __init__(self, server: ForkServer, sock: socket.socket, limits: SandboxLimits, deadline: float) -> None:
        self.server = server
        self.sock = sock
        self.limits = limits
        self.deadline = deadline
        self.dead: ChildFailure | None = None
        self.closed = False

    def request(self, message: dict, seconds: float) -> dict:
        if self.dead is not None:
            raise self.dead
        if self.closed:
            raise ChildFailure("closed", "internal: request on a retired child")
        budget = self.deadline - time.monotonic()
        if budget <= 0:
            self._fail("timeout", f"the time budget of {self.limits.submission_seconds:.0f} s for this file is used up")
        timeout = min(seconds, budget)
        try:
            self.sock.settimeout(timeout)
            wire.send(self.sock, message)
            reply = wire.receive(self.sock, self.limits.reply_bytes, deadline=time.monotonic() + timeout)
        except (socket.timeout, TimeoutError):
            self._fail("timeout", f"no answer within {timeout:.1f} s (an infinite loop, or far too slow)")
        except (EOFError, ConnectionError, BrokenPipeError):
            self._fail("crashed", "the code stopped the Python process (sys.exit, os._exit, a crash or a "
                                  "memory limit)")
        except wire.WireError as exc:
            self._fail("garbage", f"the process sent back something unreadable ({exc})")
        if not isinstance(reply, dict) or not isinstance(reply.get("ok"), bool):
            self._fail("garbage", "the process sent back a malformed reply")
        return reply

    def _fail(self, kind: str, message: str) -> None:
        self.dead = ChildFailure(kind, message)
        self.close()
        raise self.dead

    def close(self) -> None:
        """End this child and everything it started; a no-op when already closed."""
        if self.closed:
            return
        self.closed = True
        if self.server.current is self:
            self.server.current = None
        try:
            self.sock.close()
        finally:
            self.server.reap()

    def retire(self) -> None:
        """Close a healthy child to make room for the next one; its owner may spawn a fresh one later."""
        self.close()

    @property
    def usable(self) -> bool:
        return not self.closed and self.dead is None
