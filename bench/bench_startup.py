"""`make bench-startup`: what grading spends before and around the students' code (issue 21).

Two parts, from one run:
1. A start-up profile per class size (default 1, 10, 80 and 1000): `attnkit grade` runs with
   ATTNKIT_PROFILE set, so every stage records timestamped events (the CLI, each worker, pytest
   collection, each fork server's launch, torch import, warm-up and self-check, the quizzes, the
   reports); they are printed as one timeline per process, with wall time, CPU time (all processes)
   and the peak memory (PSS) of the grading tree. The class of 1000 is made of empty folders unless
   --full (each such student costs collection and reporting, no sandboxed child).
2. Side by side, alternating, --repeats rounds: `attnkit grade` on one student (the reference solution,
   no quiz files), a bare `python -c "import torch"`, `otter run` on one notebook, and the Gradescope
   entry point (`python -m autograder.gradescope.run SUBMISSION RESULTS`, as run_autograder starts it in
   a container without namespaces). Medians of wall and CPU time, and their ratios to the bare import:
   on a shared machine the CPU ratio is the steadier figure.

--kit-root runs another checkout of the kit (e.g. an export of the main branch) to compare with.
"""
from __future__ import annotations

import argparse
import atexit
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from autograder import paths, profiling  # noqa: E402
from bench.bench_grading import TreeMemory, make_class, otter_command, prepare_otter  # noqa: E402


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


class TreeCPU(threading.Thread):
    """CPU seconds of every process of our tree, sampled: a sandbox's zygote runs in bubblewrap's PID
    namespace and is killed, never waited for, so its CPU time never reaches RUSAGE_CHILDREN."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.seen: dict[tuple[int, int], float] = {}  # (pid, start tick) -> own CPU seconds, last sampled
        self.running = True
        self.memory = TreeMemory()

    def run(self) -> None:
        ticks = os.sysconf("SC_CLK_TCK")
        while self.running:
            for pid in self.memory.tree()[1:]:
                try:
                    with open(f"/proc/{pid}/stat") as stat:
                        fields = stat.read().rsplit(")", 1)[1].split()
                    self.seen[pid, int(fields[19])] = (int(fields[11]) + int(fields[12])) / ticks
                except (OSError, ValueError, IndexError):
                    pass
            time.sleep(0.05)

    def total(self) -> float:
        self.running = False
        self.join()
        return sum(self.seen.values())


def timed(command: list[str], cwd: Path, env: dict | None = None, memory: bool = False) -> tuple[float, float, int]:
    """(wall s, CPU s of the whole process tree, peak PSS bytes or 0) of one command, which must succeed.
    CPU: the larger of what the finished descendants report (RUSAGE_CHILDREN) and the sampled sum over
    every process seen in the tree (which also counts processes nobody waits for)."""
    start, cpu = time.perf_counter(), children_cpu()
    sampler = TreeCPU()
    sampler.start()
    if memory:
        with TreeMemory() as tree:
            run = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
        peak = tree.peak
    else:
        run, peak = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True), 0
    wall, cpu = time.perf_counter() - start, max(children_cpu() - cpu, sampler.total())
    if run.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({run.returncode}):\n{run.stdout[-1500:]}\n{run.stderr[-3000:]}")
    return wall, cpu, peak


def one_student(root: Path) -> Path:
    folder = root / "student"
    folder.mkdir(parents=True)
    for name in paths.ASSIGNMENTS:
        shutil.copy(paths.SOLUTIONS_DIR / name / f"{name}.py", folder)
    return root


def empty_class(root: Path, count: int) -> Path:
    for index in range(count):
        (root / f"student{index:04d}").mkdir(parents=True)
    return root


class Kit:
    """Commands of one checkout of the kit, run with this interpreter."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.cache = Path(tempfile.mkdtemp(prefix="attnkit-bench-cache-"))  # stamps of checked quiz files
        atexit.register(shutil.rmtree, self.cache, True)

    def env(self, **extra: str) -> dict:
        return {**os.environ, "PYTHONPATH": str(self.root), "PYTHONDONTWRITEBYTECODE": "1",
                "ATTNKIT_CACHE": str(self.cache), **extra}

    def check_quizzes(self) -> None:
        """What the Gradescope image's setup.sh (and a teacher's first grading run) does once: check the quiz
        files in full and stamp them (a kit without quiz/checked.py checks them at every run anyway)."""
        if (self.root / "autograder" / "quiz" / "checked.py").exists():
            subprocess.run([sys.executable, "-m", "autograder.quiz", "check", "--quizzes", str(self.root / "quizzes")],
                           cwd=self.root, env=self.env(), check=True, capture_output=True)

    def grade(self, submissions: Path, out: Path, profile: Path | None = None, memory: bool = False):
        shutil.rmtree(out, ignore_errors=True)
        env = self.env(**({profiling.ENV: str(profile)} if profile else {}))
        return timed([sys.executable, "-m", "autograder.cli", "grade", str(submissions), "--out", str(out)],
                     self.root, env, memory)

    def gradescope(self, submission: Path, results: Path):
        results.unlink(missing_ok=True)
        env = {"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/tmp"), "PYTHONPATH": str(self.root),
               "PYTHONDONTWRITEBYTECODE": "1", "ATTNKIT_BWRAP": "",  # a container: no namespaces
               "ATTNKIT_CACHE": str(self.cache)}  # as run_autograder sets it, stamped by setup.sh
        measured = timed([sys.executable, "-m", "autograder.gradescope.run", str(submission), str(results)],
                         self.root, env)
        if not results.exists():
            raise RuntimeError("the Gradescope entry point wrote no results.json")
        return measured


def profile_sizes(kit: Kit, sizes: list[int], scratch: Path, full: bool) -> None:
    kit.check_quizzes()
    for count in sizes:
        if count == 1:
            submissions = one_student(scratch / "profile-1")
        elif count >= 1000 and not full:
            submissions = empty_class(scratch / f"profile-{count}", count)
        else:
            submissions = make_class(scratch / f"profile-{count}", count)
        log = scratch / f"profile-{count}.jsonl"
        wall, cpu, peak = kit.grade(submissions, scratch / f"out-profile-{count}", log, memory=True)
        kind = "empty folders" if count >= 1000 and not full else "real submissions"
        print(f"\n== class of {count} ({kind}): {wall:.2f} s wall, {cpu:.2f} s CPU (all processes), "
              f"peak {peak / 2**20:.0f} MiB PSS ==")
        print(profiling.timeline(profiling.read(str(log))) if log.exists() else
              "  (no events: this checkout of the kit records no profile)")


def side_by_side(kit: Kit, scratch: Path, repeats: int, otter: bool, other: Kit | None = None) -> None:
    submissions = one_student(scratch / "one")
    otter_work = prepare_otter(scratch) if otter else None
    gs_submission = submissions / "student"
    for each in (kit, other):
        if each is not None:
            each.check_quizzes()
    rows: dict[str, list[tuple[float, float]]] = {}
    for round_ in range(repeats):
        rows.setdefault("attnkit grade, 1 student", []).append(kit.grade(submissions, scratch / "out-one")[:2])
        if other is not None:
            rows.setdefault("  other kit: attnkit grade", []).append(
                other.grade(submissions, scratch / "out-one-other")[:2])
        rows.setdefault("bare import torch", []).append(
            timed([sys.executable, "-c", "import torch"], scratch)[:2])
        if otter_work is not None:
            rows.setdefault("otter run, 1 notebook", []).append(timed(otter_command(otter_work), otter_work)[:2])
        rows.setdefault("gradescope entry, 1 submission", []).append(
            kit.gradescope(gs_submission, scratch / "results.json")[:2])
        if other is not None:
            rows.setdefault("  other kit: gradescope entry", []).append(
                other.gradescope(gs_submission, scratch / "results-other.json")[:2])
        print(f"round {round_ + 1}/{repeats}: " + "; ".join(f"{k} {v[-1][0]:.2f} s" for k, v in rows.items()),
              flush=True)
    medians = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for k, v in rows.items()}
    bare_wall, bare_cpu = medians["bare import torch"]
    print(f"\nmedians of {repeats} alternating rounds (kit at {kit.root}; {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f}):")
    print(f"  {'':34s} {'wall s':>8s} {'CPU s':>8s} {'wall/bare':>10s} {'CPU/bare':>9s}")
    for name, (wall, cpu) in medians.items():
        print(f"  {name:34s} {wall:8.2f} {cpu:8.2f} {wall / bare_wall:10.2f} {cpu / bare_cpu:9.2f}")
    if "otter run, 1 notebook" in medians:
        otter_wall, otter_cpu = medians["otter run, 1 notebook"]
        for name in ("attnkit grade, 1 student", "  other kit: attnkit grade"):
            if name in medians:
                print(f"  {name.strip()} / otter run: {medians[name][0] / otter_wall:.2f} (wall), "
                      f"{medians[name][1] / otter_cpu:.2f} (CPU)")
    if other is not None:
        print(f"  (other kit at {other.root})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1,10,80,1000", help="class sizes to profile (comma-separated; '' for none)")
    parser.add_argument("--full", action="store_true", help="the class of 1000 with real submissions (slow)")
    parser.add_argument("--repeats", type=int, default=3, help="alternating rounds of the side-by-side timing")
    parser.add_argument("--no-otter", action="store_true")
    parser.add_argument("--kit-root", type=Path, default=ROOT, help="the checkout of the kit to time")
    parser.add_argument("--compare-root", type=Path, default=None,
                        help="another checkout (e.g. an export of the main branch), timed in the same rounds")
    args = parser.parse_args()
    kit = Kit(args.kit_root.resolve())
    with tempfile.TemporaryDirectory(prefix="attnkit-startup-") as scratch_name:
        scratch = Path(scratch_name)
        sizes = [int(n) for n in args.sizes.split(",") if n.strip()]
        if sizes:
            profile_sizes(kit, sizes, scratch, args.full)
            if args.compare_root is not None:
                print(f"\n-- the same classes graded by the other kit ({args.compare_root}) --")
                profile_sizes(Kit(args.compare_root.resolve()), sizes, scratch / "other", args.full)
        if args.repeats > 0:
            other = Kit(args.compare_root.resolve()) if args.compare_root is not None else None
            side_by_side(kit, scratch, args.repeats, not args.no_otter, other)


if __name__ == "__main__":
    main()
