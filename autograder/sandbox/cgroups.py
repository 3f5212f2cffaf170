"""A cgroup per student child where the kit can have one: memory, pids and CPU bounded per student.

detect() finds what this machine offers, in this order:
- "v2": the unified hierarchy with the memory, pids and cpu controllers available in the cgroup this
  process is in (root, a delegated subtree, or a `systemd-run --user --scope -p Delegate=yes` scope);
  prepare() moves the processes of that cgroup into a leaf (`attnkit-init`) so that the controllers can be
  enabled for its children (the kernel allows no process in a cgroup whose children have controllers);
- "v1": the legacy memory and pids hierarchies (and cpu when mounted) where this process may create a
  child cgroup under its own (root, usually);
- None: no bound but the child's own (one process, RLIMIT_AS; docs/isolation.md).

The parent creates the group and hands the zygote an open `cgroup.procs` per hierarchy; the zygote writes
the new child's pid into it before answering, i.e. before the child receives any student code. The
descriptors are opened here, so the kernel checks this process's rights, not the child's.
"""
from __future__ import annotations

import errno
import itertools
import os
import re
import shutil
import signal
import time
from dataclasses import dataclass
from pathlib import Path

VARIABLE = "ATTNKIT_CGROUP"  # "auto" (default), "none", "v1" or "v2": which kind to use (tests, odd machines)
CONTROLLERS = ("memory", "pids", "cpu")
PREFIX = "attnkit-"
LEAF = "attnkit-init"  # v2: where the processes of our own cgroup go, so that its children may have controllers
CPU_PERIOD_US = 100_000
# attnkit-<owner pid>-<serial>-ns<owner's pid namespace>: a pid means something only in its own namespace, so
# a run sweeps only its namespace's leftovers (another container's live group is never taken for a dead one)
NAME = re.compile(r"^attnkit-(\d+)-\d+(?:-ns(\d+))?$")


_SERIAL = itertools.count(1)


def pid_namespace() -> str:
    try:
        return os.readlink("/proc/self/ns/pid").partition("[")[2].rstrip("]")
    except OSError:
        return "0"


@dataclass(frozen=True)
class GroupLimits:
    memory_bytes: int   # memory charged to the student's processes (resident, kernel, page cache)
    processes: int      # processes and threads at once
    cpu_cores: float = 1.0


@dataclass(frozen=True)
class Usage:
    peak_bytes: int | None  # None where the kernel does not keep a peak (v2 before Linux 5.19)
    oom_kills: int          # processes the kernel killed for this group's memory limit


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def _write(path: Path, text: str) -> None:
    with open(path, "w") as handle:
        handle.write(text)


def _keyed(text: str) -> dict[str, int]:
    """'key value' lines (memory.events, memory.oom_control) as a dict."""
    found = {}
    for line in text.splitlines():
        key, _, value = line.partition(" ")
        if value.strip().lstrip("-").isdigit():
            found[key] = int(value)
    return found


class Group:
    """One child's cgroup: a folder per hierarchy (one in v2; memory, pids and cpu in v1)."""

    def __init__(self, kind: str, folders: list[Path]) -> None:
        self.kind = kind
        self.folders = folders

    def open_procs(self) -> list[int]:
        """Write-only descriptors of each folder's cgroup.procs, for the zygote to write the child's pid into."""
        return [os.open(folder / "cgroup.procs", os.O_WRONLY | os.O_CLOEXEC) for folder in self.folders]

    def pids(self) -> list[int]:
        found: set[int] = set()
        for folder in self.folders:
            found.update(int(p) for p in _read(folder / "cgroup.procs").split() if p.isdigit())
        return sorted(found)

    def usage(self) -> Usage:
        memory = self.folders[0]  # the memory hierarchy comes first
        if self.kind == "v2":
            peak = _read(memory / "memory.peak").strip()
            return Usage(int(peak) if peak.isdigit() else None, _keyed(_read(memory / "memory.events")).get("oom_kill", 0))
        peak = _read(memory / "memory.max_usage_in_bytes").strip()
        return Usage(int(peak) if peak.isdigit() else None,
                     _keyed(_read(memory / "memory.oom_control")).get("oom_kill", 0))

    def remove(self) -> list[str]:
        """Kill what is still in the group and remove its folders; returns the folders that stay."""
        return [str(folder) for folder in self.folders if not _remove_folder(folder)]


def _remove_folder(folder: Path) -> bool:
    """rmdir on a cgroup removes it once no process is left in it (its files go with it)."""
    deadline = time.monotonic() + 5  # a killed process leaves its cgroup once it has fully exited
    while True:
        try:
            folder.rmdir()
            return True
        except FileNotFoundError:
            return True
        except OSError as exc:
            if exc.errno == errno.ENOTEMPTY:  # a plain folder, not a cgroup (a fake cgroupfs in tests)
                shutil.rmtree(folder, ignore_errors=True)
                return not folder.exists()
            if time.monotonic() > deadline:
                return False
        for pid in (int(p) for p in _read(folder / "cgroup.procs").split() if p.isdigit()):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.01)


class Hierarchy:
    """Where this process may create per-child cgroups."""

    def __init__(self, kind: str, bases: dict[str, Path]) -> None:
        self.kind = kind
        self.bases = bases  # controller -> folder that holds our groups (v2: one folder for all)

    @property
    def description(self) -> str:
        return f"a cgroup per student (v{self.kind[1]}: {', '.join(self.bases)})"

    def prepare(self) -> None:
        """v2: enable the controllers for our children, moving our cgroup's processes into a leaf first
        (raises OSError where that is not allowed). v1 needs nothing. Then remove what runs killed left."""
        if self.kind == "v2":
            base = self.bases["memory"]
            enabled = _read(base / "cgroup.subtree_control").split()
            missing = [c for c in CONTROLLERS if c not in enabled]
            if missing:
                leaf = base / LEAF
                leaf.mkdir(exist_ok=True)
                for pid in _read(base / "cgroup.procs").split():
                    try:
                        _write(leaf / "cgroup.procs", pid)
                    except ProcessLookupError:
                        continue
                _write(base / "cgroup.subtree_control", " ".join(f"+{c}" for c in missing))
        self.sweep()

    def sweep(self) -> list[str]:
        """Remove the groups of runs that are gone (killed before they could clean up); returns what stays."""
        left = []
        for base in set(self.bases.values()):
            try:
                names = [entry.name for entry in os.scandir(base) if entry.is_dir(follow_symlinks=False)]
            except OSError:
                continue
            for name in names:
                match = NAME.match(name)
                if match and match.group(2) in (None, pid_namespace()) and not _alive(int(match.group(1))):
                    left += [str(base / name)] if not _remove_folder(base / name) else []
        return left

    def create(self, limits: GroupLimits) -> Group:
        """A fresh group with these limits (raises OSError when the kernel refuses)."""
        # one count per process, not per hierarchy: several fork servers in one process (one per assignment)
        # each hold a Hierarchy, and a shared name let one server's cleanup remove another's live group
        name = f"{PREFIX}{os.getpid()}-{next(_SERIAL)}-ns{pid_namespace()}"
        folders = []
        try:
            for controller, base in self.bases.items():
                folder = base / name
                if folder not in folders:
                    folder.mkdir()
                    folders.append(folder)
                self._limit(controller, folder, limits)
        except OSError:
            Group(self.kind, folders).remove()
            raise
        return Group(self.kind, folders)

    def _limit(self, controller: str, folder: Path, limits: GroupLimits) -> None:
        quota = max(1000, int(limits.cpu_cores * CPU_PERIOD_US))
        if self.kind == "v2":
            {"memory": lambda: (_write(folder / "memory.max", str(limits.memory_bytes)),
                                _write(folder / "memory.swap.max", "0") if (folder / "memory.swap.max").exists() else None),
             "pids": lambda: _write(folder / "pids.max", str(limits.processes)),
             "cpu": lambda: _write(folder / "cpu.max", f"{quota} {CPU_PERIOD_US}")}[controller]()
        elif controller == "memory":
            _write(folder / "memory.limit_in_bytes", str(limits.memory_bytes))
            if (folder / "memory.memsw.limit_in_bytes").exists():  # no swapping past the limit either
                _write(folder / "memory.memsw.limit_in_bytes", str(limits.memory_bytes))
        elif controller == "pids":
            _write(folder / "pids.max", str(limits.processes))
        else:
            _write(folder / "cpu.cfs_period_us", str(CPU_PERIOD_US))
            _write(folder / "cpu.cfs_quota_us", str(quota))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def mounts(mountinfo: str) -> list[tuple[str, str, str, set[str]]]:
    """(mount point, root inside the hierarchy, fstype, super options) of every cgroup mount."""
    found = []
    for line in mountinfo.splitlines():
        before, _, after = line.partition(" - ")
        fields, tail = before.split(), after.split()
        if len(fields) >= 5 and len(tail) >= 3 and tail[0] in ("cgroup", "cgroup2"):
            found.append((fields[4].replace("\\040", " "), fields[3], tail[0], set(tail[2].split(","))))
    return found


def memberships(text: str) -> dict[str, str]:
    """/proc/self/cgroup as controller -> path ('' names the unified hierarchy)."""
    found = {}
    for line in text.splitlines():
        parts = line.split(":", 2)
        if len(parts) == 3:
            for controller in parts[1].split(",") if parts[1] else [""]:
                found[controller] = parts[2]
    return found


def _inside(mount_point: str, mount_root: str, path: str) -> Path | None:
    """The folder of cgroup `path` under a mount whose root is `mount_root`, or None when not visible."""
    root = mount_root.rstrip("/")
    if root and not (path == root or path.startswith(root + "/")):
        return None
    relative = path[len(root):].lstrip("/")
    if relative.endswith(LEAF):  # our own leaf (v2): the groups go beside it
        relative = relative[:-len(LEAF)].rstrip("/")
    return Path(mount_point) / relative if relative else Path(mount_point)


def detect(mountinfo: str | None = None, cgroup: str | None = None, wanted: str | None = None) -> Hierarchy | None:
    """What this process may use (None: no cgroup). `mountinfo`/`cgroup` are /proc/self's (tests pass a fake)."""
    wanted = (wanted or os.environ.get(VARIABLE, "auto")).strip() or "auto"
    if wanted == "none":
        return None
    mountinfo = _read(Path("/proc/self/mountinfo")) if mountinfo is None else mountinfo
    cgroup = _read(Path("/proc/self/cgroup")) if cgroup is None else cgroup
    member, found = memberships(cgroup), mounts(mountinfo)
    if wanted in ("auto", "v2") and "" in member:
        for point, root, fstype, _ in found:
            if fstype == "cgroup2":
                base = _inside(point, root, member[""])
                if base is not None and set(CONTROLLERS) <= set(_read(base / "cgroup.controllers").split()) \
                        and os.access(base, os.W_OK) and os.access(base / "cgroup.subtree_control", os.W_OK):
                    return Hierarchy("v2", {c: base for c in CONTROLLERS})
    if wanted in ("auto", "v1"):
        bases: dict[str, Path] = {}
        for controller in CONTROLLERS:
            for point, root, fstype, options in found:
                if fstype == "cgroup" and controller in options and controller in member:
                    base = _inside(point, root, member[controller])
                    if base is not None and (base / "cgroup.procs").exists() and os.access(base, os.W_OK):
                        bases[controller] = base
                        break
        if "memory" in bases and "pids" in bases:  # cpu where it is mounted; memory first (Group.usage)
            return Hierarchy("v1", bases)
    return None
