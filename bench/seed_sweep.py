"""`make sweep`: every hidden test, on many seeds, against the reference and the whole catalogue.

For each seed shift s (ATTNKIT_SEED_SHIFT, which moves every probe's inputs to other seeds together) and
each student file (the reference solutions, every correct catalogue entry, every wrong entry), the hidden
test functions run as in grading: a fresh sandboxed child per file and seed, the same fixtures. The sweep
passes when, on every seed,
- the reference and every correct entry pass every hidden test of their assignment;
- every wrong entry fails every test in its CAUGHT_BY (entries marked KNOWN_GAP are reported, not required).
It prints one line per student and a summary, and exits 1 on any violation (or any grader error).

    python bench/seed_sweep.py --seeds 200 [--only NAME,...] [--workers 2]
"""
from __future__ import annotations

import argparse
import concurrent.futures
import importlib.util
import inspect
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from autograder import paths  # noqa: E402
from autograder.grading.student import SEED_SHIFT, StudentFault, StudentFile  # noqa: E402
from autograder.grading.submissions import SourceFile  # noqa: E402

CATALOGUE = ROOT / "tests" / "catalogue"
REFERENCE = "reference_solutions"


def load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def students(only: set[str] | None) -> list[dict]:
    """{name, assignment, text, expect: "pass" | "fail", tests (None = all), gap}"""
    found = []
    for assignment in paths.ASSIGNMENTS:
        text = (paths.SOLUTIONS_DIR / assignment / f"{assignment}.py").read_text(encoding="utf-8")
        found.append({"name": f"{REFERENCE}:{assignment}", "assignment": assignment, "text": text,
                      "expect": "pass", "tests": None, "gap": None})
    for kind in ("correct", "wrong"):
        for path in sorted((CATALOGUE / kind).glob("*.py")):
            entry = load(path, f"sweep_{kind}_{path.stem}")
            text = entry.CODE
            if kind == "wrong" or getattr(entry, "ON_REFERENCE", False):
                reference = (paths.SOLUTIONS_DIR / entry.ASSIGNMENT / f"{entry.ASSIGNMENT}.py").read_text("utf-8")
                text = reference + "\n\n" + entry.CODE
            found.append({"name": path.stem, "assignment": entry.ASSIGNMENT, "text": text,
                          "expect": "pass" if kind == "correct" else "fail",
                          "tests": None if kind == "correct" else list(entry.CAUGHT_BY),
                          "gap": getattr(entry, "KNOWN_GAP", None)})
    return [s for s in found if only is None or s["name"] in only or s["name"].split(":")[0] in only]


class Fixtures:
    """The hidden graders' fixtures, built the way autograder/graders/conftest.py builds them."""

    def __init__(self) -> None:
        self.conftest = load(paths.GRADERS_DIR / "conftest.py", "sweep_conftest")
        self.ref_scores = self.conftest.load_reference("attention_scores")

    def value(self, name: str, student: StudentFile):
        if name == "student":
            return student
        if name == "ref_scores":
            return self.ref_scores
        if name == "saturation_reference":
            return self.conftest.saturation_entropies(self.ref_scores)
        raise KeyError(f"the sweep does not know the fixture {name!r}")


def hidden_tests(assignment: str) -> dict:
    import warnings
    with warnings.catch_warnings():  # the grading plugin registers these markers; outside it they are unknown
        warnings.filterwarnings("ignore", message="Unknown pytest.mark")
        return _hidden_tests(assignment)


def _hidden_tests(assignment: str) -> dict:
    graders = load(paths.GRADERS_DIR / f"test_{assignment}.py", f"sweep_graders_{assignment}")
    return {n: f for n, f in vars(graders).items() if n.startswith("test_") and callable(f)}


def run_tests(server, fixtures: Fixtures, tests: dict, chosen: list[str], assignment: str, text: str,
              first_failure: bool = False) -> dict[str, str]:
    """Grade one file as the engine does (a fresh child), test by test: name -> "pass" | "fail" | error text."""
    handle = StudentFile(server, SourceFile(assignment, f"{assignment}.py", (text,)))
    outcomes = {}
    try:
        for name in chosen:
            function = tests.get(name)
            if function is None:
                outcomes[name] = "no such hidden test"
                continue
            try:
                function(*[fixtures.value(p, handle) for p in inspect.signature(function).parameters])
                outcomes[name] = "pass"
            except StudentFault:
                outcomes[name] = "fail"
                if first_failure:
                    break
            except Exception as exc:  # noqa: BLE001 - a grader bug: report it, keep going
                outcomes[name] = f"grader error: {exc!r}"[:300]
    finally:
        handle.close()
    return outcomes


def sweep_one(student: dict, seeds: int) -> dict:
    """Runs in a worker process: one fork server, a fresh child per seed."""
    from autograder.sandbox import ForkServer
    import torch
    torch.set_num_threads(1)  # as in grading (autograder/graders/conftest.py)
    tests = hidden_tests(student["assignment"])
    chosen = student["tests"] or sorted(tests)
    fixtures = Fixtures()
    server = ForkServer()
    outcomes = {name: {"pass": 0, "fail": 0, "error": 0, "first_error": ""} for name in chosen}
    started = time.perf_counter()
    try:
        for shift in student.get("shifts") or range(seeds):
            os.environ[SEED_SHIFT] = str(shift)
            for name, outcome in run_tests(server, fixtures, tests, chosen, student["assignment"],
                                           student["text"]).items():
                if outcome in ("pass", "fail"):
                    outcomes[name][outcome] += 1
                else:
                    outcomes[name]["error"] += 1
                    outcomes[name]["first_error"] = outcomes[name]["first_error"] or f"seed {shift}: {outcome}"
    finally:
        server.close()
        os.environ.pop(SEED_SHIFT, None)
    return {"student": student, "outcomes": outcomes, "seconds": time.perf_counter() - started}


def verdict(result: dict) -> list[str]:
    student, problems = result["student"], []
    for name, counts in result["outcomes"].items():
        if counts["error"]:
            problems.append(f"{name}: grader error ({counts['first_error']})")
        elif student["expect"] == "pass" and counts["fail"]:
            problems.append(f"{name}: failed on {counts['fail']} seeds")
        elif student["expect"] == "fail" and counts["pass"]:
            problems.append(f"{name}: passed on {counts['pass']} seeds")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--only", default="", help="comma-separated student names (catalogue stems, or "
                                                   f"{REFERENCE})")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    chosen = students(set(args.only.split(",")) if args.only else None)
    failures, gaps = 0, 0
    started = time.perf_counter()
    with concurrent.futures.ProcessPoolExecutor(args.workers) as pool:
        for result in pool.map(sweep_one, chosen, [args.seeds] * len(chosen)):
            student, problems = result["student"], verdict(result)
            tests = len(result["outcomes"])
            state = "ok" if not problems else ("known gap" if student["gap"] else "VIOLATION")
            print(f"{state:9} {student['name']:45} {student['expect']:4} {tests:2} tests x {args.seeds} seeds "
                  f"({result['seconds']:.0f} s)", flush=True)
            for problem in problems:
                print(f"          {problem}", flush=True)
            if problems and student["gap"]:
                gaps += 1
            elif problems:
                failures += 1
    print(f"\n{len(chosen)} students x {args.seeds} seeds in {time.perf_counter() - started:.0f} s: "
          f"{failures} violations, {gaps} known gaps")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
