"""Limits of the sandbox, resolved once into an immutable settings object."""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field, fields, replace

LIMITS_VARIABLE = "ATTNKIT_SANDBOX_LIMITS"  # JSON, e.g. {"call_seconds": 20}: a course with slower exercises


@dataclass(frozen=True)
class SandboxLimits:
    # Time limits count the student's CPU time (a busy machine cannot make honest code time out);
    # code that waits instead of computing is stopped after wall_factor times as long.
    call_seconds: float = 10.0          # one probe (one call into student code)
    sequence_call_seconds: float = 0.1  # more for each call of a sequence sent in one round trip (the largest
                                        # sizes take a few seconds in code written with loops)
    load_seconds: float = 20.0          # running a student's file top to bottom
    wall_factor: float = 3.0
    submission_seconds: float = 180.0   # wall clock for everything one student file may use
    memory_bytes: int = 3 << 30         # extra address space on top of the warm interpreter
    group_memory_bytes: int = 3 << 30   # memory charged to the student's cgroup, where there is one
                                        # (what the child touches beyond the pages it shares with the zygote)
    cpu_seconds: int = 120              # CPU time of one child process (the kernel's limit)
    processes: int = 32                 # processes of the sandbox user: bounds a fork storm
    file_bytes: int = 0                 # no file data at all: only names in the private scratch folder,
                                        # so nothing can fill the disk and nothing is left for the next student
    open_files: int = 64
    scratch_entries: int = 1024         # names one child may create (folders, empty files), counted by the fork
                                        # server: bounds the disk or memory its metadata takes, and the wipe
    scratch_folders: int = 128          # of which folders (a block each on a disk, and the slow part of a wipe)
    scratch_tmpfs_bytes: int = 64 << 20  # size of the private /tmp and /dev/shm under bubblewrap
    reply_bytes: int = 256 << 20        # largest message accepted from a child

    @classmethod
    def from_environment(cls) -> "SandboxLimits":
        """The defaults, with the overrides in ATTNKIT_SANDBOX_LIMITS (unknown names are an error)."""
        text = os.environ.get(LIMITS_VARIABLE, "").strip()
        if not text:
            return cls()
        overrides = json.loads(text)
        known = {f.name: f.type for f in fields(cls)}
        unknown = set(overrides) - set(known)
        if unknown:
            raise ValueError(f"{LIMITS_VARIABLE}: unknown limits {sorted(unknown)}; known: {sorted(known)}")
        return replace(cls(), **overrides)


@dataclass(frozen=True)
class SandboxConfig:
    isolation: str = "auto"             # "auto", or one of "bwrap", "landlock", "rlimits" (isolation.py)
    allow_weak: bool = False            # grade with "rlimits" when nothing stronger works
    limits: SandboxLimits = field(default_factory=SandboxLimits)
