"""`python bench/bench_repairs.py`: how many mistaken files get a repair (the edit of their own code that makes
every check of the part pass) or a named mistake, and whether any statement made about them is wrong.

Three sets, each graded as a class through the real engine (sandbox, hidden tests, diagnosis, repair search):

    python bench/bench_repairs.py catalogue                      # every wrong entry of tests/catalogue/wrong
    python bench/bench_repairs.py generated [--singles 120] [--pairs 80] [--seed 0]
    python bench/bench_repairs.py folder DIR --labels LABELS.yaml

`generated`: fresh mistakes made by AST mutation (bench/heldout_mistakes.py's operators, not the repair search's)
of every correct style in tests/catalogue/correct and of the reference solutions, one edit or two (in one
function or in two), kept when the hidden checks fail them.

`folder`: a held-out set of students' .py files (one assignment each), with a labels file in YAML:

    set: round-4                          # optional: a name for the set
    files:
      s01.py:                             # a file of DIR
        assignment: attention_scores      # optional: else read from the file name or the definitions in it
        mistakes:
          - function: AdditiveScore       # the function or class the mistake is in (the gradebook question)
            description: tanh on each projection instead of on their sum
      s02.py:
        - {function: attention, description: K and V swapped}   # a list alone is the mistakes

A file counts as *repaired* when every labelled function of it carries a repair, *named* when every one has a
diagnosed mistake on a failed check, *named or repaired* when every one has either. A *wrong statement* is a
repair that does not hold: each repair is applied to the file here, independently of the search (its old code
replaced by its new code in the statement on its line), and the fixed file graded again; the part must then pass
every check. A diagnosis or repair on a function the labels do not list is reported apart ("beside the labels"):
it may be a failure the labelled mistake causes there.
"""
from __future__ import annotations

import argparse
import ast
import importlib.util
import random
import re
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from autograder import paths  # noqa: E402

ASSIGNMENTS = ("attention_scores", "single_head_attention")


@dataclass
class Case:
    name: str
    assignment: str
    text: str
    mistakes: list[tuple[str, str]]          # (function, description)
    two: str = ""                            # "", "one function", "two functions"
    outcome: dict = field(default_factory=dict)


# --- the three sets ------------------------------------------------------------------------------------

def load_entry(path: Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def solution(assignment: str) -> str:
    return (paths.SOLUTIONS_DIR / assignment / f"{assignment}.py").read_text(encoding="utf-8")


def defined(code: str) -> list[str]:
    return [n.name for n in ast.parse(code).body if isinstance(n, (ast.FunctionDef, ast.ClassDef))]


def catalogue_cases() -> list[Case]:
    cases = []
    for path in sorted((ROOT / "tests" / "catalogue" / "wrong").glob("*.py")):
        entry = load_entry(path)
        text = solution(entry.ASSIGNMENT) + "\n\n" + entry.CODE
        cases.append(Case(path.stem, entry.ASSIGNMENT, text, [(f, entry.MISTAKE) for f in defined(entry.CODE)]))
    return cases


def styles() -> list[tuple[str, str, str, str]]:
    """(name, assignment, prefix, code): the reference and every correct style; a style's file is prefix + code."""
    found = [(f"reference-{a}", a, "", solution(a)) for a in ASSIGNMENTS]
    for path in sorted((ROOT / "tests" / "catalogue" / "correct").glob("*.py")):
        entry = load_entry(path)
        prefix = solution(entry.ASSIGNMENT) + "\n\n" if getattr(entry, "ON_REFERENCE", False) else ""
        found.append((path.stem, entry.ASSIGNMENT, prefix, entry.CODE))
    return found


def generated_cases(singles: int, pairs: int, seed: int) -> list[Case]:
    import heldout_mistakes as held  # noqa: PLC0415 - the mutation operators

    rng = random.Random(seed)
    one, two = [], []
    for name, assignment, prefix, code in styles():
        graded = [f for f in held.FUNCTIONS[assignment] if f in defined(code)]
        found = []
        for function in graded:
            try:
                found += held.edits(code, function)
            except Exception:  # noqa: BLE001 - a style the operators cannot walk
                continue
        for edit in found:
            text = held.apply(code, [edit])
            if text:
                one.append(Case(f"{name}:{edit.label}", assignment, prefix + text, [(edit.function, edit.label)]))
        for _ in range(pairs * 2):
            if len(found) < 2:
                break
            first, second = rng.sample(found, 2)
            if (first.function, first.method, first.index) == (second.function, second.method, second.index):
                continue
            text = held.apply(code, [first, second])
            if text:
                kind = "one function" if first.function == second.function else "two functions"
                two.append(Case(f"{name}:{first.label} + {second.label}", assignment, prefix + text,
                                [(first.function, first.label), (second.function, second.label)], kind))
    rng.shuffle(one)
    rng.shuffle(two)
    return one[:singles] + two[:pairs]


def folder_cases(folder: Path, labels: Path) -> list[Case]:
    import yaml  # noqa: PLC0415

    data = yaml.safe_load(labels.read_text(encoding="utf-8")) or {}
    files = data.get("files", data) if isinstance(data, dict) else {}
    cases = []
    for name, spec in files.items():
        if name == "set":
            continue
        mistakes = spec.get("mistakes", []) if isinstance(spec, dict) else spec or []
        text = (folder / name).read_text(encoding="utf-8")
        assignment = spec.get("assignment") if isinstance(spec, dict) else None
        assignment = assignment or guess_assignment(name, text)
        listed = [(str(m["function"]), str(m.get("description", ""))) for m in mistakes]
        functions = {f for f, _ in listed}
        two = "" if len(listed) < 2 else "one function" if len(functions) == 1 else "two functions"
        cases.append(Case(name, assignment, text, listed, two))
    return cases


def guess_assignment(name: str, text: str) -> str:
    for assignment in ASSIGNMENTS:
        if assignment in name:
            return assignment
    try:
        names = set(defined(text))
    except SyntaxError:
        names = set()
    return "single_head_attention" if {"attention", "SingleHeadAttention"} & names else "attention_scores"


# --- grading and judging -------------------------------------------------------------------------------

def grade(cases: list[Case], workers: int) -> dict[str, object]:
    from tests.classroom import grade as grade_class, write_class  # noqa: PLC0415
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        write_class(root / "in", {f"c{i:04d}": {f"{c.assignment}.py": c.text} for i, c in enumerate(cases)})
        results = grade_class(root / "in", root / "out", workers=workers)
    return {f"c{i:04d}": results[f"c{i:04d}"] for i in range(len(cases))}


def judge(case: Case, result) -> None:
    tests = [t for t in result.tests if t.assignment == case.assignment]
    failed = {t.question for t in tests if t.score < t.max_score}
    repaired = {t.question: t.repair for t in tests if t.repair}
    named = {t.question for t in tests if t.diagnoses and t.score < t.max_score}
    # the labelled functions that lost points: one whose checks a mistake elsewhere explains is charged there
    functions = {f for f, _ in case.mistakes} & failed
    case.outcome = {"failed": bool(functions),
                    "repaired": functions <= set(repaired), "named": functions <= named,
                    "either": all(f in repaired or f in named for f in functions),
                    "beside": sorted((set(repaired) | named) - functions), "repairs": repaired,
                    "tried": {t.question: t.repair_tried for t in tests if t.repair_tried}}


def fixed_text(text: str, fixes) -> str | None:
    """The file with each fix made by text, independently of the search: in the statement on the fix's line,
    its old code (as Python writes it back) replaced by its new code. None when the old code is not found there."""
    lines = text.splitlines(keepends=True)
    tree = ast.parse(text)
    for fix in sorted(fixes, key=lambda f: -line_of(f.where)):
        line = line_of(fix.where)
        statements = [n for n in ast.walk(tree) if isinstance(n, ast.stmt) and n.lineno <= line <= n.end_lineno
                      and not isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.If, ast.For, ast.While, ast.With))]
        if not statements:
            return None
        statement = max(statements, key=lambda n: n.lineno)
        source = ast.unparse(statement)
        if "(moved " in fix.new or fix.old not in source:
            return None   # a moved statement is not made by text here: counted as unverifiable
        indent = re.match(r"\s*", lines[statement.lineno - 1]).group()
        new = source.replace(fix.old, fix.new, 1)
        lines[statement.lineno - 1:statement.end_lineno] = [indent + row + "\n" for row in new.splitlines()]
        try:
            tree = ast.parse("".join(lines))
        except SyntaxError:
            return None
    return "".join(lines)


def line_of(where: str) -> int:
    return int(re.search(r"line (\d+)", where).group(1))


def verify(cases: list[Case], workers: int) -> None:
    """Each repair made by text and graded again: the part must pass every check."""
    todo = []
    for case in cases:
        for question, fixes in case.outcome.get("repairs", {}).items():
            try:
                text = fixed_text(case.text, fixes)
            except (SyntaxError, ValueError, AttributeError):
                text = None
            if text is None:
                case.outcome.setdefault("unverifiable", []).append(question)
            else:
                todo.append((case, question, Case(case.name, case.assignment, text, [])))
    if not todo:
        return
    results = grade([c for _, _, c in todo], workers)
    for number, (case, question, _) in enumerate(todo):
        tests = [t for t in results[f"c{number:04d}"].tests if t.assignment == case.assignment and t.question == question]
        if any(t.score < t.max_score for t in tests):
            case.outcome.setdefault("wrong", []).append(question)


def report(cases: list[Case]) -> str:
    kept = [c for c in cases if c.outcome.get("failed")]
    groups = {"one mistake": [c for c in kept if len(c.mistakes) == 1],
              "two, one function": [c for c in kept if c.two == "one function"],
              "two, two functions": [c for c in kept if c.two == "two functions"]}
    lines = ["| files | failed | repaired | named | named or repaired | wrong statements | beside the labels |",
             "|---|---|---|---|---|---|---|"]
    for kind, group in [*groups.items(), ("all", kept)]:
        if not group:
            continue
        n = len(group)
        share = lambda key: f"{sum(bool(c.outcome.get(key)) for c in group)} ({100 * sum(bool(c.outcome.get(key)) for c in group) / n:.0f}%)"  # noqa: E731
        lines.append(f"| {kind} | {n} | {share('repaired')} | {share('named')} | {share('either')} | "
                     f"{sum(bool(c.outcome.get('wrong')) for c in group)} | {sum(bool(c.outcome.get('beside')) for c in group)} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("set", choices=["catalogue", "generated", "folder"])
    parser.add_argument("folder", nargs="?", type=Path)
    parser.add_argument("--labels", type=Path)
    parser.add_argument("--singles", type=int, default=120)
    parser.add_argument("--pairs", type=int, default=80)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--list", action="store_true", help="one line per file: its repair, or why none")
    args = parser.parse_args()
    started = time.perf_counter()
    if args.set == "catalogue":
        cases = catalogue_cases()
    elif args.set == "generated":
        cases = generated_cases(args.singles, args.pairs, args.seed)
    else:
        if not args.folder or not args.labels:
            parser.error("folder needs DIR and --labels LABELS.yaml")
        cases = folder_cases(args.folder, args.labels)
    results = grade(cases, args.workers)
    for number, case in enumerate(cases):
        judge(case, results[f"c{number:04d}"])
    verify(cases, args.workers)
    print(report(cases))
    print(f"\n{len(cases)} files graded in {time.perf_counter() - started:.0f} s")
    for case in cases:
        if args.list or case.outcome.get("wrong"):
            fixes = "; ".join(f"{q}: " + " and ".join(f"{f.where}: `{f.old}` -> `{f.new}`" for f in fx)
                              for q, fx in case.outcome.get("repairs", {}).items())
            status = "WRONG " if case.outcome.get("wrong") else ""
            why = "" if fixes else ("passes" if not case.outcome.get("failed") else
                                    "no edit found (" + ", ".join(f"{q}: {n} tried" for q, n in
                                                                  case.outcome.get("tried", {}).items()) + ")")
            print(f"  {status}{case.name}: {fixes or why}")
    return 1 if any(c.outcome.get("wrong") for c in cases) else 0


if __name__ == "__main__":
    sys.exit(main())
