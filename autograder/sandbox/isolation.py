"""Which isolation this machine allows, decided once per grading run (docs/isolation.md).

- "bwrap": bubblewrap namespaces (no network, own PID namespace, only Python and the harness
  mounted), plus Landlock and seccomp inside as defence in depth. Full isolation.
- "landlock": no namespaces (containers such as Gradescope's, or user namespaces switched off), but
  Landlock limits the child to reading Python and writing its scratch folder, seccomp keeps it away
  from the network and from every other process, and as root each child runs under a uid of its own.
- "rlimits": neither namespaces nor Landlock: resource limits and seccomp only. Student code can
  read whatever the grading user can read. Refused unless the instructor explicitly allows it.
"""
from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from .child import confine
from .config import SandboxLimits

MODES = ("bwrap", "landlock", "rlimits")
FULL = "bwrap"
HARNESS_DIR = Path(__file__).resolve().parent / "child"
HARNESS_MOUNT = "/opt/attnkit-harness"
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc")
CLEAN_ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}  # what bubblewrap itself is started with
ALLOW_WEAK_FLAG = "--allow-weak-isolation"
TMPFS_BYTES = SandboxLimits.scratch_tmpfs_bytes


class SandboxUnavailable(RuntimeError):
    """The sandbox cannot start, or would be too weak: a problem of the grading machine, never of a student."""


@dataclass(frozen=True)
class Isolation:
    mode: str
    description: str   # one line for instructors: what holds student code
    warning: str = ""  # set only for weak isolation: its risk, for the terminal, report and results

    @property
    def full(self) -> bool:
        return self.mode == FULL


def bwrap_binary() -> str | None:
    """bubblewrap, unless ATTNKIT_BWRAP names another one or is set empty (grade as if it were missing)."""
    name = os.environ.get("ATTNKIT_BWRAP", "bwrap")
    return shutil.which(name) if name else None


def python_paths() -> list[str]:
    """Folders the interpreter needs: its installation, the virtual environment, site-packages."""
    paths = {sys.base_prefix, sys.prefix, os.path.dirname(os.path.realpath(sys.executable))}
    paths.update(p for p in sys.path if p and os.path.isdir(p) and "site-packages" in p)
    return sorted(p for p in paths if os.path.isdir(p))


@lru_cache(maxsize=None)
def bwrap_sizes_tmpfs(binary: str) -> bool:
    """Whether this bubblewrap can size a tmpfs: it offers `--size` (recent releases), and is not installed setuid
    (where it refuses the option)."""
    try:
        if os.stat(binary).st_mode & stat.S_ISUID:
            return False
        shown = subprocess.run([binary, "--help"], env=CLEAN_ENV, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return "--size" in shown.stdout + shown.stderr


def bwrap_command(binary: str, tmpfs_bytes: int = TMPFS_BYTES) -> list[str]:
    """bubblewrap's arguments; its private /tmp (which holds the children's scratch folders) and /dev/shm are
    tmpfs of `tmpfs_bytes` each where bubblewrap can size them (their pages are memory no rlimit counts)."""
    size = ["--size", str(tmpfs_bytes)] if bwrap_sizes_tmpfs(binary) else []
    cmd = [binary, "--die-with-parent", "--new-session", "--unshare-net", "--unshare-pid",
           "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try", "--hostname", "sandbox"]
    for path in SYSTEM_DIRS:
        cmd += ["--ro-bind-try", path, path]
    cmd += ["--proc", "/proc", "--dev", "/dev", *size, "--tmpfs", "/tmp", *size, "--tmpfs", "/dev/shm"]
    made: set[str] = set()

    def bind(source: str, target: str, option: str = "--ro-bind") -> None:
        # bwrap creates missing parents as 0700 root folders, which the unprivileged child cannot
        # cross; make them traversable first.
        for parent in reversed(Path(target).parents):
            text = str(parent)
            if text != "/" and text not in made and not text.startswith(SYSTEM_DIRS):
                cmd.extend(["--perms", "0755", "--dir", text])
                made.add(text)
        cmd.extend([option, source, target])

    bind("/sys/devices/system/cpu", "/sys/devices/system/cpu", "--ro-bind-try")
    for path in python_paths():
        bind(path, path)
    bind(str(HARNESS_DIR), HARNESS_MOUNT)
    cmd += ["--chdir", "/tmp", "--clearenv", "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "HOME", "/tmp",
            "--setenv", "ATTNKIT_PID_NAMESPACE", "1", "--setenv", "ATTNKIT_SCRATCH", "/tmp"]
    return cmd


_early_probe: subprocess.Popen | None = None


def _self_test(binary: str) -> subprocess.Popen:
    return subprocess.Popen([*bwrap_command(binary), sys.executable, "-I", "-c", "pass"], env=CLEAN_ENV,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def probe_bwrap_early(requested: str = "auto") -> None:
    """Start bubblewrap's self-test now, for `resolve` to collect: it then runs on another core while the
    grading process reads the class, instead of in front of the fork server's launch."""
    global _early_probe
    binary = bwrap_binary() if requested in ("auto", "bwrap") else None
    if binary is not None and _early_probe is None:
        try:
            _early_probe = _self_test(binary)
        except OSError:
            _early_probe = None  # bwrap_works starts it again and says why it cannot start


def bwrap_works() -> tuple[bool, str]:
    global _early_probe
    binary = bwrap_binary()
    if binary is None:
        return False, "bubblewrap (bwrap) is not installed" + (" (hidden by ATTNKIT_BWRAP)"
                                                                if "ATTNKIT_BWRAP" in os.environ else "")
    probe, _early_probe = _early_probe, None
    if probe is not None and probe.args[0] != binary:  # started for another bubblewrap (ATTNKIT_BWRAP changed)
        probe.kill()
        probe.wait()
        probe = None
    try:
        probe = probe or _self_test(binary)
        _, stderr = probe.communicate(timeout=120)
    except (OSError, subprocess.TimeoutExpired) as exc:
        if probe is not None:
            probe.kill()
            probe.wait()
        return False, f"bubblewrap cannot start here: {exc}"
    if probe.returncode != 0:
        return False, f"bubblewrap cannot start here: {stderr.strip()[:200]}"
    return True, "bubblewrap"


def landlock_abi() -> int:
    return confine.landlock_abi() if os.environ.get("ATTNKIT_LANDLOCK", "1") == "1" else 0


def who() -> str:
    return "root" if os.getuid() == 0 else f"uid {os.getuid()}"


def describe(mode: str, abi: int, why_no_bwrap: str = "") -> Isolation:
    landlock = f"Landlock ABI {abi}" if abi else "no Landlock (kernel too old or Landlock disabled)"
    if mode == "bwrap":
        return Isolation(mode, f"full: bubblewrap namespaces + {landlock} + seccomp")
    if mode == "landlock":
        uid = "a separate uid per student" if os.getuid() == 0 else "the grading user's uid"
        reason = f" ({why_no_bwrap})" if why_no_bwrap else ""
        return Isolation(mode, f"no namespaces{reason}; {landlock} + seccomp + {uid}")
    return Isolation(mode, f"WEAK: no namespaces and no Landlock; resource limits + seccomp only, as {who()}",
                     warning=("WARNING: weak isolation (" + ALLOW_WEAK_FLAG + "): neither bubblewrap nor Landlock "
                              "works here, so student code ran with resource limits and seccomp only. It could "
                              "read every file the grading user can read (reference solutions, hidden tests, "
                              "classmates' work)" + ("" if os.getuid() == 0 else ", and write to them") +
                              ". Do not trust these scores for graded work; see docs/isolation.md."))


NOTICES = {
    "landlock": ("Isolation: no namespaces (bubblewrap could not start, as in most containers). Student code "
                 "was confined by Landlock (reads only the Python installation, writes only a private scratch "
                 "folder) and seccomp (no network, no signals, tracing or memory access to other processes), "
                 "under a uid of its own when graded as root. It could see that other processes exist. "
                 "See docs/isolation.md."),
    "rlimits": ("WARNING: weak isolation: student code was NOT sandboxed by namespaces or Landlock (neither was "
                "available, and grading was explicitly allowed anyway). It ran with resource limits and seccomp "
                "only and could read "
                "every file the grading user can read, the reference solutions and hidden tests included. Do "
                "not trust these scores for graded work. See docs/isolation.md."),
}


def notice(mode: str) -> str | None:
    """What instructors must be told about a result graded with `mode`; None for full isolation."""
    if mode == FULL:
        return None
    return NOTICES.get(mode, NOTICES["rlimits"].replace("weak isolation:", f"unknown isolation ({mode!r}):"))


def resolve(requested: str = "auto", allow_weak: bool = False) -> Isolation:
    """The strongest isolation that works here, or the one asked for (raising if it cannot start)."""
    if requested not in ("auto", *MODES):
        raise ValueError(f"unknown isolation {requested!r}")
    why = ""
    if requested in ("auto", "bwrap"):
        ok, why = bwrap_works()
        if ok:
            return describe("bwrap", landlock_abi())
        if requested == "bwrap":
            raise SandboxUnavailable(why)
    abi = landlock_abi()
    if requested in ("auto", "landlock"):
        if abi:
            return describe("landlock", abi, why)
        if requested == "landlock":
            raise SandboxUnavailable("Landlock is not available on this kernel (Linux 5.13 or later, "
                                     "with Landlock enabled)")
    if not allow_weak:
        raise SandboxUnavailable(
            "Refusing to grade: student code cannot be isolated here. " + (f"{why}; " if why else "")
            + "and Landlock is not available on this kernel. Install bubblewrap (or allow user namespaces), or "
            "use Linux 5.13+ with Landlock; to grade anyway with resource limits only (student code could read "
            f"the hidden tests and reference solutions), pass {ALLOW_WEAK_FLAG}.")
    return describe("rlimits", 0)
