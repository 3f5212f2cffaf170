"""`python -m autograder.quiz export --format gift|qti|moodle --out DIR [--quizzes DIR]`,
`python -m autograder.quiz student --out DIR` (handouts + answer templates) and
`python -m autograder.quiz check [--quizzes DIR]` (check every quiz in full, and stamp it so that grading
runs need not check it again: checked.py)."""

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
    check = sub.add_parser("check", help="check every quiz in full (formula misconceptions too) and stamp it")
    for command in (export, student):
        command.add_argument("--out", type=Path, required=True)
    for command in (export, student, check):
        command.add_argument("--quizzes", type=Path, default=Path("quizzes"))
    args = parser.parse_args(argv)

    try:
        quizzes = load_quizzes(args.quizzes)
    except QuizFormatError as exc:
        print(exc, file=sys.stderr)
        return 1
    if args.command == "check":
        print(f"{len(quizzes)} quizzes checked: {', '.join(quizzes)}")
        return 0
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


if __name__ == "__main__":
    sys.exit(main())
