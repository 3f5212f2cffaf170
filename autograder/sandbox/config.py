"""Limits of the sandbox, resolved once into an immutable settings object."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class SandboxLimits:
    call_seconds: float = 10.0          # wall clock for one probe (one call into student code)
    load_seconds: float = 20.0          # wall clock for running a student's file top to bottom
    submission_seconds: float = 90.0    # wall clock for everything one student file may use
    memory_bytes: int = 3 << 30         # extra address space on top of the warm interpreter
    cpu_seconds: int = 120              # CPU time of one child
    processes: int = 32                 # processes of the sandbox user: bounds a fork storm
    file_bytes: int = 0                 # no file data at all: bwrap leaves nothing writable either, and
                                        # without it (rlimits) a child could fill the disk 1 MiB at a time
    open_files: int = 64
    reply_bytes: int = 256 << 20        # largest message accepted from a child


@dataclass(frozen=True)
class SandboxConfig:
    isolation: str = "auto"             # "auto", "bwrap" (required) or "rlimits" (no namespaces)
    limits: SandboxLimits = field(default_factory=SandboxLimits)
