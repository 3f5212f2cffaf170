"""`make bench`: how long grading takes per submission, against a bare `import torch` and `otter run`.

Grades N submissions (half copies of the solutions, half a mix of realistic wrong ones from the
demo class) with the full sandbox, and prints, from this one run: the per-submission time (total
and marginal, i.e. after worker start-up), a bare `python -c "import torch"`, `otter run` on the same
exercise where otter can run, and the peak memory (PSS) of the whole grading process tree.
"""
from __future__ import annotations

import argparse
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

from autograder import paths  # noqa: E402
from autograder.grading.runner import grade_class  # noqa: E402

WRONG = ["linus", "margaret", "barbara lee", "alan"]


def catalogue_files() -> dict[str, list[str]]:
    """Per assignment, the catalogue's wrong files (one mistake each: the reference with a wrong definition
    appended), as their text."""
    import importlib.util  # noqa: PLC0415 - only the one-mistake class needs the catalogue
    found: dict[str, list[str]] = {name: [] for name in paths.ASSIGNMENTS}
    for path in sorted((ROOT / "tests" / "catalogue" / "wrong").glob("*.py")):
        spec = importlib.util.spec_from_file_location(f"wrong_{path.stem}", path)
        entry = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(entry)
        reference = (paths.SOLUTIONS_DIR / entry.ASSIGNMENT / f"{entry.ASSIGNMENT}.py").read_text(encoding="utf-8")
        found[entry.ASSIGNMENT].append(reference + "\n\n" + entry.CODE)
    return found


def make_one_mistake_class(root: Path, count: int) -> Path:
    """Every file has one mistake: student i gets the i-th wrong catalogue file of each assignment."""
    files = catalogue_files()
    for index in range(count):
        folder = root / f"student{index:04d}"
        folder.mkdir(parents=True)
        for name, texts in files.items():
            (folder / f"{name}.py").write_text(texts[index % len(texts)], encoding="utf-8")
    return root


def make_class(root: Path, count: int, one_mistake: bool = False) -> Path:
    if one_mistake:
        return make_one_mistake_class(root, count)
    for index in range(count):
        folder = root / f"student{index:04d}"
        if index % 2 == 0:
            folder.mkdir(parents=True)
            for name in paths.ASSIGNMENTS:
                shutil.copy(paths.SOLUTIONS_DIR / name / f"{name}.py", folder)
        else:
            shutil.copytree(paths.DEMO_CLASS_DIR / WRONG[(index // 2) % len(WRONG)], folder)
    return root


class TreeMemory:
    """Peak proportional set size (PSS) of this process and all its descendants, sampled."""

    def __init__(self) -> None:
        self.peak = 0
        self.running = True
        self.thread = threading.Thread(target=self.sample, daemon=True)

    def tree(self) -> list[int]:
        children: dict[int, list[int]] = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open(f"/proc/{entry}/stat") as stat:
                        ppid = int(stat.read().rsplit(")", 1)[1].split()[1])
                    children.setdefault(ppid, []).append(int(entry))
                except (OSError, ValueError):
                    pass
        found, frontier = [os.getpid()], [os.getpid()]
        while frontier:
            kids = children.get(frontier.pop(), [])
            found += kids
            frontier += kids
        return found

    def sample(self) -> None:
        while self.running:
            total = 0
            for pid in self.tree():
                try:
                    with open(f"/proc/{pid}/smaps_rollup") as rollup:
                        total += next(int(l.split()[1]) for l in rollup if l.startswith("Pss:")) * 1024
                except (OSError, StopIteration, ValueError):
                    pass
            self.peak = max(self.peak, total)
            time.sleep(0.2)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.running = False
        self.thread.join()


def cpu_of_children() -> float:
    """CPU seconds (user + system) of every finished descendant that was waited for: the grading workers (and
    bubblewrap). Unlike wall time it does not grow when other jobs share the machine."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


class SandboxCPU(threading.Thread):
    """CPU seconds of the sandbox's fork servers (zygotes) and of the students' processes they forked, sampled.
    A zygote runs in bubblewrap's PID namespace and is killed at the end, never waited for, so neither its own
    CPU time nor that of the students' processes it reaped ever reaches RUSAGE_CHILDREN. A zygote's counters
    (its own and its reaped children's) only grow, so the last sample is kept; what a zygote does in the last
    `period` before it is killed (its final reap) is missed."""

    def __init__(self, period: float = 0.02) -> None:
        super().__init__(daemon=True)
        self.period = period
        self.seen: dict[tuple[int, int], float] = {}  # (pid, start tick) -> own + reaped children's CPU seconds
        self.zygotes: dict[tuple[int, int], bool] = {}
        self.running = True

    def run(self) -> None:
        ticks = os.sysconf("SC_CLK_TCK")
        tree = TreeMemory()
        while self.running:
            stats = {}
            for pid in tree.tree()[1:]:
                try:
                    with open(f"/proc/{pid}/stat") as stat:
                        stats[pid] = stat.read().rsplit(")", 1)[1].split()
                except OSError:
                    pass
            for pid, fields in stats.items():
                try:
                    # a student's process is a fork of the zygote (the same command line): its time is counted
                    # in the zygote's reaped children's once it ends, so only the zygote itself is read
                    if self._zygote(pid, fields) and not self._zygote(int(fields[1]), stats.get(int(fields[1]))):
                        self.seen[pid, int(fields[19])] = sum(int(n) for n in fields[11:15]) / ticks
                except (OSError, ValueError, IndexError):
                    pass
            time.sleep(self.period)

    def _zygote(self, pid: int, fields: list[str] | None) -> bool:
        if fields is None:
            return False
        key = (pid, int(fields[19]))
        if key not in self.zygotes:
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                    words = cmdline.read().rstrip(b"\0").split(b"\0")
                # Python running zygote.py (bubblewrap's own command line ends with it too)
                self.zygotes[key] = words[-1].endswith(b"/zygote.py") and b"bwrap" not in os.path.basename(words[0])
            except OSError:
                return False
        return self.zygotes[key]

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.running = False
        self.join()

    def total(self) -> float:
        return sum(self.seen.values())


def time_grading(count: int, workers: int, scratch: Path, one_mistake: bool = False) -> tuple[float, int, float, float]:
    """(wall s, peak PSS bytes, CPU s of the grading processes, CPU s of the sandbox's processes). With one worker
    the class is graded in this process (grading/inprocess.py): its main thread's CPU time is the grader's."""
    submissions = make_class(scratch / f"class{count}", count, one_mistake)
    with TreeMemory() as memory, SandboxCPU() as sandbox:
        start, cpu, own = time.perf_counter(), cpu_of_children(), time.thread_time()
        results = grade_class(submissions, scratch / f"out{count}", workers=workers)
        elapsed, cpu = time.perf_counter() - start, cpu_of_children() - cpu + time.thread_time() - own
    assert len(results) == count
    return elapsed, memory.peak, cpu, sandbox.total()


def bare_import_torch(repeats: int = 3) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import torch"], check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def prepare_otter(scratch: Path) -> Path | None:
    """An otter autograder for attention_scores and the solution notebook, in scratch/otter; None without otter."""
    otter = Path(sys.executable).with_name("otter")
    if not otter.exists():
        return None
    work = scratch / "otter"
    shutil.copytree(paths.ASSIGNMENTS_DIR / "attention_scores", work)
    shutil.copy(paths.SOLUTIONS_DIR / "attention_scores" / "attention_scores.ipynb", work / "submission.ipynb")
    made = subprocess.run([str(otter), "generate", "-t", "tests", "-o", "autograder.zip"], cwd=work, capture_output=True,
                          text=True)
    if made.returncode != 0 or not (work / "autograder.zip").exists():
        print("otter generate failed:", made.stderr[-500:])
        return None
    return work


def otter_command(work: Path) -> list[str]:
    return [str(Path(sys.executable).with_name("otter")), "run", "-a", "autograder.zip", "submission.ipynb"]


def otter_run(scratch: Path, repeats: int = 3) -> float | None:
    work = prepare_otter(scratch)
    if work is None:
        return None
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run = subprocess.run(otter_command(work), cwd=work, capture_output=True, text=True)
        times.append(time.perf_counter() - start)
        if run.returncode != 0:
            print("otter run failed:", run.stderr[-500:])
            return None
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=200, help="submissions in the large class")
    parser.add_argument("--small", type=int, default=20, help="submissions in the small class (start-up)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--no-otter", action="store_true")
    parser.add_argument("--one-mistake", action="store_true",
                        help="a class where every file has one mistake (the catalogue's wrong files); with "
                             "ATTNKIT_DIAGNOSIS=off in the environment the same class is graded without diagnosis")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="attnkit-bench-") as scratch_name:
        scratch = Path(scratch_name)
        torch_import = bare_import_torch()
        small, _, small_grader, small_sandbox = time_grading(args.small, args.workers, scratch, args.one_mistake)
        large, peak, large_grader, large_sandbox = time_grading(args.n, args.workers, scratch, args.one_mistake)
        small_cpu, large_cpu = small_grader + small_sandbox, large_grader + large_sandbox
        otter = None if args.no_otter else otter_run(scratch)
    marginal = (large - small) / (args.n - args.small)
    print(f"machine: {os.cpu_count()} cores; workers: {args.workers}; sandbox: full (bubblewrap when installed)")
    if args.one_mistake:
        print(f"class: one mistake in every file; diagnosis {os.environ.get('ATTNKIT_DIAGNOSIS', 'on')}")
    print(f"bare `python -c 'import torch'`:     {torch_import:7.3f} s")
    if otter is not None:
        print(f"`otter run`, attention_scores only:  {otter:7.3f} s per submission")
    print(f"grading {args.small:4d} submissions:            {small:7.2f} s total, {small / args.small:.3f} s each")
    print(f"grading {args.n:4d} submissions:            {large:7.2f} s total, {large / args.n:.3f} s each")
    print(f"marginal cost per submission:        {marginal:7.3f} s  "
          f"({marginal / torch_import:.2f} x a bare torch import)")
    if otter is not None:
        print(f"speed-up over otter run:             {otter / (large / args.n):7.1f} x (total), "
              f"{otter / marginal:.1f} x (marginal)")
    print(f"CPU time per submission:             {large_cpu / args.n:7.3f} s  (all processes; marginal "
          f"{(large_cpu - small_cpu) / (args.n - args.small):.3f} s)")
    print(f"  of which the students' processes and fork servers: {large_sandbox / args.n:.3f} s (marginal "
          f"{(large_sandbox - small_sandbox) / (args.n - args.small):.3f} s); grading processes: "
          f"{large_grader / args.n:.3f} s (marginal {(large_grader - small_grader) / (args.n - args.small):.3f} s)")
    print(f"peak memory of the grading tree:     {peak / 2**20:7.0f} MiB (PSS) for {args.n} submissions")


if __name__ == "__main__":
    main()
