"""`python -m autograder.quiz export --format gift|qti|moodle --out DIR [--quizzes DIR]`,
`python -m autograder.quiz student --out DIR` (handouts + answer templates) and
`python -m autograder.quiz check [--quizzes DIR]` (check every quiz in full, and stamp it so that grading
runs need not check it again: checked.py) and `python -m autograder.quiz learn OUT [--write]` (what a finished
review in OUT/review.yaml would add to the quiz files, as a diff; learn.py)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import QuizFormatError, load_quizzes, to_gift, write_qti, write_student_files
from .export_moodle import write_moodle_xml


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder.quiz")
    sub = parser.add_subparsers(dest="command", required=True)
    export = sub.add_parser("export", help="write every quiz as GIFT text, a Canvas QTI zip or Moodle XML")
    export.add_argument("--format", choices=("gift", "qti", "moodle"), required=True)
    student = sub.add_parser("student", help="write handouts and answer templates (no answers)")
    check = sub.add_parser("check", help="check every quiz in full (formulas under sympy, code answers run in the sandbox) and stamp it")
    learn = sub.add_parser("learn", help="list what a finished review teaches the quizzes, as a diff of their files")
    learn.add_argument("out", type=Path, help="the graded class's OUT folder (its review.yaml)")
    learn.add_argument("--write", action="store_true", help="write the additions into the quiz files")
    learn.add_argument("--quizzes", type=Path, default=Path("quizzes"))
    for command in (export, student):
        command.add_argument("--out", type=Path, required=True)
    for command in (export, student, check):
        command.add_argument("--quizzes", type=Path, default=Path("quizzes"))
    args = parser.parse_args(argv)

    try:
        quizzes = load_quizzes(args.quizzes, code=args.command == "check")
    except QuizFormatError as exc:
        print(exc, file=sys.stderr)
        return 1
    if args.command == "check":
        print(f"{len(quizzes)} quizzes checked: {', '.join(quizzes)}")
        return 0
    if args.command == "learn":
        return _learn(args.out, quizzes, args.write)
    args.out.mkdir(parents=True, exist_ok=True)
    for quiz in quizzes.values():
        if args.command == "student":
            written = list(write_student_files(quiz, args.out))
        elif args.format == "gift":
            written = [args.out / f"{quiz.id}.gift"]
            written[0].write_text(to_gift(quiz), encoding="utf-8")
        elif args.format == "moodle":
            written = [write_moodle_xml(quiz, args.out / f"{quiz.id}.moodle.xml")]
        else:
            written = [write_qti(quiz, args.out / f"{quiz.id}.qti.zip")]
        for path in written:
            print(path)
    return 0


def _learn(out: Path, quizzes: dict, write: bool) -> int:
    import yaml

    from ..results import write_atomic
    from .kit_scored import NoRecord, read_kit_scored
    from .learn import diff, learn
    from .review import REVIEW_FILE

    path = out / REVIEW_FILE
    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        print(f"{path} could not be read ({exc}): review the class first (attnkit review {out})", file=sys.stderr)
        return 1
    try:  # the answers the kit scored by itself are decided too: without their record nothing is learned
        kit = read_kit_scored(out)
    except NoRecord as exc:
        print(exc, file=sys.stderr)
        return 1
    sources = {quiz_id: Path(quiz.source_path) for quiz_id, quiz in quizzes.items() if quiz.source_path}
    candidates, changed = learn(document, sources, kit=kit)
    added = [c for c in candidates if not c.refused]
    for c in added:
        print(f"add     {c.describe()}")
    for c in candidates:
        if c.refused and c.kind != "none":
            print(f"refused {c.describe()}")
    skipped = sum(1 for c in candidates if c.kind == "none")
    print(f"{len(added)} addition(s), {len(candidates) - len(added) - skipped} refused, {skipped} decided "
          f"wording(s) that teach nothing by themselves", file=sys.stderr)
    print(diff(sources, changed), end="")
    if write:
        for quiz_id, text in changed.items():
            write_atomic(sources[quiz_id], text)
            print(f"written: {sources[quiz_id]}", file=sys.stderr)
    elif changed:
        print(f"(not written: run again with --write to add them)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
