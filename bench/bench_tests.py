"""`python bench/bench_tests.py [--n 12]`: where one student's grading time goes, hidden test by hidden test.

Grades N copies of the reference solutions in this process (one shard, as `attnkit grade` does for a small
class), once to warm up and once under cProfile, and prints each hidden test's time per student (the child's
computing included: the grading process waits for it inside the test), largest first.
"""
from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from autograder import paths  # noqa: E402
from autograder.grading.runner import grade_class  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=12, help="copies of the reference solutions")
    parser.add_argument("--top", type=int, default=40)
    args = parser.parse_args()
    os.environ["ATTNKIT_INPROCESS"] = "1"
    with tempfile.TemporaryDirectory(prefix="attnkit-bench-tests-") as scratch:
        root = Path(scratch)
        for index in range(args.n):
            folder = root / "class" / f"s{index:03d}"
            folder.mkdir(parents=True)
            for name in paths.ASSIGNMENTS:
                source = paths.SOLUTIONS_DIR / name / f"{name}.py"
                (folder / f"{name}.py").write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
        grade_class(root / "class", root / "warm", workers=1)
        profile = cProfile.Profile()
        profile.enable()
        grade_class(root / "class", root / "out", workers=1)
        profile.disable()
    rows = [(cumulative, name) for (filename, _, name), (_, _, _, cumulative, _) in pstats.Stats(profile).stats.items()
            if name.startswith("test_") and Path(filename).parent == paths.GRADERS_DIR]
    for cumulative, name in sorted(rows, reverse=True)[:args.top]:
        print(f"{cumulative / args.n * 1000:8.1f} ms per student  {name}")
    print(f"{sum(c for c, _ in rows) / args.n:8.3f} s per student in all hidden tests ({args.n} students)")


if __name__ == "__main__":
    main()
