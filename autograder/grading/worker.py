"""One grading worker: a fork server plus pytest sessions over its shard of the class, in chunks.

Run as `python -m autograder.grading.worker MANIFEST`; prints `done <file stem>` per student so
the coordinator can show progress. It reads no submission folder: the manifest carries the text.
"""
from __future__ import annotations

import json
import sys
from dataclasses import asdict
from pathlib import Path

import pytest

from ..paths import GRADERS_DIR
from ..sandbox import ForkServer, SandboxConfig
from .plugin import GradingPlugin
from .submissions import SourceFile, Submission, result_stem



CHUNK = 100  # students per pytest session in one worker


def dump_manifest(path: Path, submissions: list[Submission], state_dir: Path, isolation: str,
                  fingerprints: dict[str, str], graders_dir: Path = GRADERS_DIR) -> None:
    path.write_text(json.dumps({
        "state_dir": str(state_dir), "isolation": isolation, "fingerprints": fingerprints,
        "graders_dir": str(graders_dir),
        "submissions": [asdict(s) for s in submissions]}), encoding="utf-8")


def read_manifest(path: Path) -> dict:
    data = json.loads(path.read_text(encoding="utf-8"))
    data["submissions"] = [
        Submission(s["student_id"], {name: SourceFile(**{**f, "cells": tuple(f["cells"]), "notes": tuple(f["notes"])})
                                     for name, f in s["files"].items()})
        for s in data["submissions"]]
    return data


def run_shard(submissions: list[Submission], state_dir: Path, server: ForkServer,
              fingerprints: dict[str, str] | None = None, on_done=lambda result: None,
              graders_dir: Path = GRADERS_DIR) -> GradingPlugin:
    plugin = GradingPlugin(submissions, state_dir, server, fingerprints, on_done)
    args = [str(graders_dir), "-p", "no:cacheprovider", "-p", "no:terminal", "-p", "no:randomly", "-p", "no:logging",
            "-p", "no:warnings", "--capture=no",
            "--rootdir", str(graders_dir), "-c", "/dev/null", "-W", "ignore::DeprecationWarning"]
    code = pytest.main(args, plugins=[plugin])
    if code not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED) and plugin.finished < len(submissions):
        raise RuntimeError(f"the hidden tests could not be collected or run (pytest exit code {code})")
    return plugin


def main(manifest_path: str) -> int:
    manifest = read_manifest(Path(manifest_path))
    server = ForkServer(SandboxConfig(isolation=manifest["isolation"]))
    if server.warning:
        print(f"warning {server.warning}", flush=True)

    def announce(result) -> None:
        print(f"done {result_stem(result.student_id)}", flush=True)

    submissions = manifest["submissions"]
    try:
        # One pytest session per chunk: collection stays cheap, and memory (pytest keeps every collected
        # item) stays flat however large the class is.
        for start in range(0, len(submissions), CHUNK):
            run_shard(submissions[start:start + CHUNK], Path(manifest["state_dir"]), server,
                      manifest["fingerprints"], announce, Path(manifest["graders_dir"]))
    finally:
        server.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
