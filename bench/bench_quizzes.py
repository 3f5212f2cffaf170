"""Quiz grading cost for a class: answer files read, code answers evaluated in the sandbox (one fork server per
run, one child per distinct answer), everything else in the parent; then the same class again (cached verdicts).

    .venv/bin/python bench/bench_quizzes.py --n 200

Answers are drawn from tests/quiz/labelled_answers.yaml, so the class shares answers as a real one does.
"""
from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from autograder import paths  # noqa: E402
from autograder.grading.quizzes import grade_class_quizzes, load_class_quizzes  # noqa: E402


def write_class(root: Path, n: int, seed: int = 0) -> dict[str, Path]:
    labelled = yaml.safe_load((paths.ROOT / "tests" / "quiz" / "labelled_answers.yaml").read_text(encoding="utf-8"))
    quizzes = load_class_quizzes()
    rng = random.Random(seed)
    folders = {}
    for index in range(n):
        folder = root / f"student{index:04d}"
        folder.mkdir(parents=True)
        for quiz in quizzes:
            lines = []
            for question in quiz.questions:
                if question.id in labelled:
                    answer = rng.choice(labelled[question.id])["answer"]
                    lines.append(f"{question.id}: |-\n  {answer}")
                elif question.type == "multiple_choice":
                    lines.append(f"{question.id}: {rng.choice([o.id for o in question.options])}")
                else:
                    lines.append(f"{question.id}: {rng.choice(['true', 'false'])}")
            (folder / f"quiz_{quiz.id}.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
        folders[folder.name] = folder
    return folders


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folders = write_class(Path(scratch) / "class", args.n)
        out = Path(scratch) / "out"
        start = time.perf_counter()
        results = grade_class_quizzes(folders, out)
        first = time.perf_counter() - start
        cache = (out / ".state" / "quiz" / "code-verdicts.json").read_text(encoding="utf-8").count('"equal"')
        start = time.perf_counter()
        grade_class_quizzes(folders, out)
        second = time.perf_counter() - start
    pending = sum(q.pending > 0 for r in results.values() for q in r)
    print(f"{args.n} students, 2 quizzes each: first run {first:.1f} s ({first / args.n * 1000:.0f} ms per student), "
          f"{cache} distinct code answers evaluated in the sandbox; re-run {second:.1f} s "
          f"({second / args.n * 1000:.0f} ms per student, verdicts cached); {pending} quiz results with points pending")


if __name__ == "__main__":
    main()
