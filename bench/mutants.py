"""`make mutants`: mutation testing of the hidden graders over the reference solutions.

cosmic-ray (pinned in the Makefile target) enumerates the mutations of each assignment's reference code
(the solution cells of source/<assignment>.py, with the set-up imports) into its work database. Each
mutant is then graded like a student file: a fresh sandboxed child, the hidden tests of that assignment
(stopping at the first that fails). A mutant is killed when some hidden test fails on it. Results are
stored in cosmic-ray's database (so `cr-report build/mutants/<assignment>.sqlite` works too), and the
survivors are compared with bench/mutants_equivalent.md: every survivor must be listed there with a
reason it is equivalent (same behaviour on every input the exercise allows). Exit 1 otherwise.

    python bench/mutants.py [--workers 2] [--only attention_scores]
"""
from __future__ import annotations

import argparse
import concurrent.futures
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from cosmic_ray import plugins  # noqa: E402
from cosmic_ray.commands import init  # noqa: E402
from cosmic_ray.mutating import mutate_code  # noqa: E402
from cosmic_ray.work_db import WorkDB, use_db  # noqa: E402
from cosmic_ray.work_item import TestOutcome, WorkerOutcome, WorkResult  # noqa: E402

from autograder import paths  # noqa: E402
from autograder.authoring.master import read_master  # noqa: E402
from autograder.authoring.render import answer_code  # noqa: E402
from seed_sweep import Fixtures, hidden_tests, run_tests  # noqa: E402

WORK = ROOT / "build" / "mutants"
NOTES = ROOT / "bench" / "mutants_equivalent.md"
SLOW_LAST = ("saturation", "entropy_falls", "gradient_shrinks")


def reference_module(assignment: str) -> str:
    """The reference code only: set-up imports and the solution cells (no explorations, no checks)."""
    master = read_master(paths.SOURCE_DIR / f"{assignment}.py")
    parts = [c.source for c in master.of("setup")]
    parts += [answer_code(master, e, False) for e in master.exercises() if master.of("solution", e)]
    return "\n\n\n".join(parts) + "\n"


def order(tests: dict) -> list[str]:
    """Cheap tests first: a mutant is killed by its first failure."""
    return sorted(tests, key=lambda n: (any(s in n for s in SLOW_LAST), n))


def grade_mutants(job: tuple[str, list[tuple[str, str]]]) -> list[tuple[str, str, str]]:
    """Worker: (assignment, [(job id, mutant text)]) -> [(job id, outcome, first failing test)]."""
    from autograder.sandbox import ForkServer
    assignment, mutants = job
    tests = hidden_tests(assignment)
    chosen = order(tests)
    fixtures, server, results = Fixtures(), ForkServer(), []
    try:
        for job_id, text in mutants:
            outcomes = run_tests(server, fixtures, tests, chosen, assignment, text, first_failure=True)
            failed = [n for n, o in outcomes.items() if o != "pass"]
            errors = [f"{n}: {o}" for n, o in outcomes.items() if o not in ("pass", "fail")]
            results.append((job_id, "error" if errors else ("killed" if failed else "survived"),
                            "; ".join(errors) or (failed[0] if failed else "")))
    finally:
        server.close()
    return results


def equivalence_notes() -> list[tuple[str, str, str]]:
    """(assignment, exact mutated line, reason) from bench/mutants_equivalent.md table rows."""
    notes = []
    for line in NOTES.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0] in paths.ASSIGNMENTS:
            notes.append((cells[0], cells[1].strip("`").replace("\\|", "|"), cells[2]))
    return notes


def changed_line(original: str, mutant: str) -> str:
    for a, b in zip(original.splitlines(), mutant.splitlines()):
        if a != b:
            return b.strip()
    return ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--only", default="", help="one assignment")
    args = parser.parse_args()
    WORK.mkdir(parents=True, exist_ok=True)
    notes = equivalence_notes()
    total_killed = total = 0
    unexplained = []
    started = time.perf_counter()
    for assignment in [a for a in paths.ASSIGNMENTS if not args.only or a == args.only]:
        module = WORK / f"{assignment}.py"
        original = reference_module(assignment)
        module.write_text(original, encoding="utf-8")
        with use_db(str(WORK / f"{assignment}.sqlite"), WorkDB.Mode.create) as db:
            init([module], db, {})
            mutants, by_id = [], {}
            for item in db.work_items:
                spec = item.mutations[0]
                operator = plugins.get_operator(spec.operator_name)(**spec.operator_args)
                text = mutate_code(original, operator, spec.occurrence)
                if text is None or text == original:
                    db.set_result(item.job_id, WorkResult(WorkerOutcome.NO_TEST))
                    continue
                mutants.append((item.job_id, text))
                by_id[item.job_id] = (spec, text)
            shards = [(assignment, mutants[i::args.workers]) for i in range(args.workers)]
            with concurrent.futures.ProcessPoolExecutor(args.workers) as pool:
                results = [r for shard in pool.map(grade_mutants, shards) for r in shard]
            killed = 0
            for job_id, outcome, detail in results:
                spec, text = by_id[job_id]
                test_outcome = {"killed": TestOutcome.KILLED, "survived": TestOutcome.SURVIVED}.get(
                    outcome, TestOutcome.INCOMPETENT)
                db.set_result(job_id, WorkResult(WorkerOutcome.NORMAL, output=detail, test_outcome=test_outcome,
                                                 diff=changed_line(original, text)))
                if outcome == "killed":
                    killed += 1
                    continue
                line = changed_line(original, text)
                note = next((reason for a, l, reason in notes if a == assignment and l == line), None)
                where = f"line {spec.start_pos[0]} ({spec.operator_name.split('/')[-1]})"
                if outcome == "error":
                    unexplained.append(f"{assignment} {where}: grader error on `{line}`: {detail}")
                elif note is None:
                    unexplained.append(f"{assignment} {where}: survived `{line}`")
                else:
                    print(f"  equivalent  {assignment} {where}: `{line}` -- {note}")
        total += len(results)
        total_killed += killed
        print(f"{assignment}: {killed}/{len(results)} mutants killed ({100 * killed / max(1, len(results)):.1f}%)",
              flush=True)
    print(f"\nall: {total_killed}/{total} killed ({100 * total_killed / max(1, total):.1f}%) in "
          f"{time.perf_counter() - started:.0f} s; {total - total_killed - len(unexplained)} equivalent survivors "
          f"(bench/mutants_equivalent.md), {len(unexplained)} unexplained")
    for line in unexplained:
        print("  UNEXPLAINED", line)
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
