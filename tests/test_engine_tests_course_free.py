"""The engine's tests hold on any course: they never list this course's parts by hand (tests/test_course.py does).

`bench/course_shape.py` runs the engine's test modules (its ENGINE_MODULES) in a copy of the kit with a third
assignment and quiz added (minutes: outside `make test`). This cheap check keeps those modules, and the helpers
they build classes with, from writing down the course's shape: a collection or a sentence that names every
assignment (or every quiz) of the course, or the number of assignments or quizzes compared with a constant. A
test may still name one assignment to use its content; the course's list comes from `paths.ASSIGNMENTS` and
`course.quiz_ids()`."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from autograder import paths
from tests.test_course import ASSIGNMENTS, QUIZZES

BENCH = paths.ROOT / "bench" / "course_shape.py"
HELPERS = ("tests/platforms.py", "tests/classroom.py")


def engine_modules() -> tuple[str, ...]:
    tree = ast.parse(BENCH.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and [t.id for t in node.targets if isinstance(t, ast.Name)] == \
                ["ENGINE_MODULES"]:
            return tuple(ast.literal_eval(node.value))
    raise AssertionError(f"{BENCH} defines no ENGINE_MODULES")


def module_strings(tree: ast.Module) -> dict[str, str]:
    """Module-level names bound to a string (`AS, SHA = "attention_scores", ...` included)."""
    bound: dict[str, str] = {}
    for node in tree.body:
        if not isinstance(node, ast.Assign):
            continue
        for target in node.targets:
            pairs = [(target, node.value)]
            if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
                pairs = list(zip(target.elts, node.value.elts))
            for name, value in pairs:
                if isinstance(name, ast.Name) and isinstance(value, ast.Constant) and isinstance(value.value, str):
                    bound[name.id] = value.value
    return bound


def as_text(node: ast.AST, bound: dict[str, str]) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        return bound.get(node.id)
    if isinstance(node, ast.JoinedStr):
        return "".join(as_text(v, bound) or "{}" for v in node.values)
    if isinstance(node, ast.FormattedValue):
        return as_text(node.value, bound)
    return None


def names_every(texts: list[str], parts: tuple[str, ...], whole: bool) -> bool:
    if len(parts) < 2:
        return False
    if whole:
        return set(parts) <= set(texts)
    return all(any(part in text for text in texts) for part in parts)


def quiz_ids_named(texts: list[str]) -> list[str]:
    """The quizzes these texts refer to as quizzes: `quiz_<id>.yaml`, `quiz:<id>`, `quiz <id>`."""
    return [t.removeprefix("quiz_").removesuffix(".yaml") if t.startswith("quiz_") else t[5:]
            for t in texts if t.startswith(("quiz_", "quiz:", "quiz "))]


def not_judged(tree: ast.Module) -> set[int]:
    """Docstrings, and the values of `A, B = "...", "..."` (names for one assignment each, used one at a time)."""
    skipped = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef)) and node.body and \
                isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant):
            skipped.add(id(node.body[0].value))
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Tuple) and \
                all(isinstance(t, ast.Tuple) for t in node.targets):
            skipped.update({id(node.value), *(id(t) for t in node.targets)})
    return skipped


def shape_written_down(path: Path) -> list[str]:
    """Where a module writes down the course's parts: line and what."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    bound, skipped = module_strings(tree), not_judged(tree)
    found = []
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, (ast.Tuple, ast.List, ast.Set, ast.Dict)):
            elements = node.keys if isinstance(node, ast.Dict) else node.elts
            texts = [t for t in (as_text(e, bound) for e in elements if e is not None) if t is not None]
            for kind, parts, named in (("assignments", ASSIGNMENTS, texts), ("quizzes", QUIZZES, quiz_ids_named(texts))):
                if names_every(named, parts, whole=True):
                    found.append(f"line {node.lineno}: a hand-kept list of the course's {kind}")
        elif isinstance(node, (ast.Constant, ast.JoinedStr)) and not isinstance(getattr(node, "value", None), bytes):
            text = as_text(node, bound)
            if text and names_every([text], ASSIGNMENTS, whole=False) and text not in ASSIGNMENTS:
                found.append(f"line {node.lineno}: a sentence naming every assignment: {text[:80]!r}")
        elif isinstance(node, ast.Compare) and any(isinstance(c, ast.Constant) and isinstance(c.value, int)
                                                   for c in node.comparators + [node.left]):
            sides = ast.unparse(node)
            if "len(paths.ASSIGNMENTS)" in sides or "len(quiz_ids())" in sides or "len(course.quiz_ids())" in sides:
                found.append(f"line {node.lineno}: the number of the course's parts as a constant: {sides}")
    return sorted(set(found))


def test_the_bench_runs_modules_that_exist():
    modules = engine_modules()
    assert len(modules) >= 10 and all((paths.ROOT / m).is_file() for m in modules), modules
    assert "tests/test_course.py" not in modules  # the course's own facts are the one place for its shape


@pytest.mark.parametrize("module", engine_modules() + HELPERS)
def test_an_engine_test_module_does_not_write_down_the_course(module):
    assert shape_written_down(paths.ROOT / module) == [], module


def test_the_check_finds_a_course_written_down(tmp_path):
    """The check itself: each way of writing the course down is found, and naming one assignment is not."""
    first, second = ASSIGNMENTS[:2]
    probe = tmp_path / "test_probe.py"
    probe.write_text(f"A, B = {first!r}, {second!r}\nLIST = (A, B)\nFOLDERS = {{A: 'week3', B: 'week4'}}\n"
                     f"QUIZ = ['quiz_{QUIZZES[0]}.yaml', 'quiz_{QUIZZES[1]}.yaml']\n"
                     f"SAID = f'{first} and {{B}} handed in'\nONE = {first!r}\n"
                     "def test():\n    assert len(paths.ASSIGNMENTS) == 2\n", encoding="utf-8")
    found = shape_written_down(probe)
    assert [line.split(":")[0] for line in found] == ["line 2", "line 3", "line 4", "line 5", "line 8"], found
