"""The student handout's README.md and requirements.txt, generated from the kit's own sources.

Versions come from the kit's requirements.txt, points from the masters' hidden tests and the quiz files,
file names from the assignments and quizzes: nothing here is typed twice, so the README cannot drift.
"""
from __future__ import annotations

import re

from .. import paths
from ..course import Parts, released
from ..quiz import Quiz, answer_file_name, load_quizzes
from .master import read_master

# What a student's machine needs to run the notebooks, the .py twins and their public checks.
STUDENT_PACKAGES = ("torch", "numpy", "matplotlib", "otter-grader")
HANDOUT_FOLDER = "attention-kit"


def pinned_versions(requirements: str | None = None) -> dict[str, str]:
    text = requirements if requirements is not None else (paths.ROOT / "requirements.txt").read_text(encoding="utf-8")
    pins = dict(re.findall(r"^([A-Za-z0-9_.\-]+)==([^\s#]+)", text, re.M))
    return {name: pins[name] for name in STUDENT_PACKAGES}


def student_requirements() -> str:
    lines = ["# Packages for the attention exercises (exact versions: the grader uses the same)."]
    return "\n".join(lines + [f"{name}=={version}" for name, version in pinned_versions().items()]) + "\n"


def assignment_points(assignments: tuple[str, ...] | None = None) -> dict[str, dict[str, float]]:
    """assignment -> exercise -> points (from the hidden tests' points markers)."""
    return {name: {e: p for e, p in read_master(paths.SOURCE_DIR / f"{name}.py").points().items() if p}
            for name in (paths.ASSIGNMENTS if assignments is None else assignments)}


def assignment_titles(assignments: tuple[str, ...] | None = None) -> dict[str, str]:
    titles = {}
    for name in paths.ASSIGNMENTS if assignments is None else assignments:
        first = next(c.source for c in read_master(paths.SOURCE_DIR / f"{name}.py").cells if c.role == "markdown")
        titles[name] = first.splitlines()[0].lstrip("# ").strip()
    return titles


def _points(value: float) -> str:
    return f"{value:g}"


_NUMBERS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def counted(count: int, singular: str, plural: str) -> str:
    """"two programming assignments", "one quiz": a count in words (figures from 11 on)."""
    word = _NUMBERS[count] if count < len(_NUMBERS) else str(count)
    return f"{word} {singular if count == 1 else plural}"


def contents_sentence(titles: list[str], quizzes: list[Quiz]) -> str:
    """What the handout holds, counted from what exists: "Two programming assignments and two knowledge-check
    quizzes for the lessons *Attention* and *Attention Score* (Module 10.1)."."""
    held = [counted(len(titles), "programming assignment", "programming assignments")] if titles else []
    held += [counted(len(quizzes), "knowledge-check quiz", "knowledge-check quizzes")] if quizzes else []
    text = " and ".join(held) or "nothing yet"
    lessons = list(dict.fromkeys(q.lesson_name for q in quizzes)) or titles
    shared = re.fullmatch(r".*?( \([^()]+\))", lessons[0]) if len(lessons) > 1 else None
    if shared and all(name.endswith(shared.group(1)) for name in lessons):  # "(Module 10.1)" said once
        lessons = [name.removesuffix(shared.group(1)) for name in lessons]
    if lessons:
        named = [f"*{name}*" for name in lessons]
        text += (" for the lesson " if len(named) == 1 else " for the lessons ") + \
            (named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1])
        text += shared.group(1) if shared else ""
    return text[0].upper() + text[1:] + "."


def student_readme(quizzes: dict[str, Quiz] | None = None, parts: Parts | None = None) -> str:
    """The handout's README for `parts` of the course (default: what the course file releases)."""
    parts = parts or released()
    quizzes = quizzes if quizzes is not None else load_quizzes(paths.QUIZZES_DIR)
    quizzes = {qid: quiz for qid, quiz in quizzes.items() if parts.has_quiz(qid)}
    assignments = parts.assignments
    points = assignment_points(assignments)
    titles = assignment_titles(assignments)
    versions = pinned_versions()
    code_total = sum(sum(p.values()) for p in points.values())
    quiz_total = sum(q.max_score for q in quizzes.values())
    total = code_total + quiz_total
    first = assignments[0] if assignments else "<assignment>"
    lines = [
        "# Attention exercises: student handout",
        "",
        contents_sentence([titles[name] for name in assignments], list(quizzes.values())),
        "",
        "## What is graded",
        "",
        "| part | what you hand in | points |",
        "|---|---|---|",
    ]
    for name in assignments:
        lines.append(f"| {titles[name]} | `{name}.ipynb` or `{name}.py` | {_points(sum(points[name].values()))} |")
    for quiz in quizzes.values():
        lines.append(f"| Quiz: {quiz.lesson_name} ({len(quiz.questions)} questions) | `{answer_file_name(quiz)}` | "
                     f"{_points(quiz.max_score)} |")
    lines += [f"| **total** | | **{_points(total)}** |", "",
              (f"The code is {_points(code_total)} of the {_points(total)} points and the quizzes "
               f"{_points(quiz_total)}. " if quizzes and points else "") + "Points per exercise:", ""]
    for name in assignments:
        each = ", ".join(f"`{e}` {_points(p)}" for e, p in points[name].items())
        lines.append(f"- `{name}`: {each}")
    lines += [
        "",
        "The grader runs hidden tests, more thorough than the public checks you get: passing every public "
        "check is a good sign, not a guarantee.",
        "",
        "## Set up (once)",
        "",
        "You need Python 3.10 or newer. In a terminal, inside this folder:",
        "",
        "```sh",
        "python -m venv .venv",
        "source .venv/bin/activate            # Windows: .venv\\Scripts\\activate",
        "pip install -r requirements.txt",
        "```",
        "",
        "`requirements.txt` pins the versions the grader uses: "
        + ", ".join(f"{name} {version}" for name, version in versions.items()) + ". "
        "On Linux without a GPU you can save several GB by installing the CPU build of torch "
        f"{versions['torch']} first, with the `--index-url` PyTorch's installation page gives for \"CPU\".",
        "",
        "For notebooks, any Jupyter front end works (JupyterLab, Jupyter Notebook, VS Code) once its kernel is "
        "this environment's Python: `pip install jupyterlab` in the same environment if you have none.",
        "",
        "## Do the exercises",
        "",
        "Each assignment comes twice, with the same content: pick the notebook **or** the plain Python file.",
        "",
        f"**In Jupyter:** open `{first}/{first}.ipynb`, fill in every `raise NotImplementedError(...)` line, "
        "and run the `grader.check(\"...\")` cell under each exercise: it says, in the lesson's terms, what is "
        "wrong. The last cell runs every check in the notebook's order. Run the notebook from the top after a "
        "restart before you hand it in.",
        "",
        f"**In plain Python:** edit `{first}/{first}.py`, then in its folder:",
        "",
        "```sh",
        f"python {first}.py             # every public check; exits with status 1 while any check fails",
        f"python {first}.py --explore   # the checks, then the experiments and their plots",
        "```",
        "",
        "Without a display (a remote machine, a container), `--explore` saves each plot as a PNG in a "
        "`figures/` folder next to the file and prints its path.",
        "",
        "**Quizzes:** the questions are in `quizzes/<quiz>.md`. Write your answers in the answer files "
        "`quizzes/quiz_<quiz>.yaml`, which list every question id:",
        "",
        "```yaml",
        "q-01: c               # multiple choice: the option letter",
        "q-02: false           # true/false",
        "q-03: 3/4             # numeric: a number or an expression (0,75 and 2^-1 + 1/4 work too)",
        "q-04: |-              # short answer: on the line below, indented by two spaces",
        "  your answer here",
        "```",
        "",
        "(`q-01` ... stand for the question ids in your answer file.)",
        "",
        "Short answers are read by meaning where that can be computed: formulas in any notation (plain text, "
        "Unicode or LaTeX), PyTorch expressions by what they compute. Answers in your own words are read by "
        "your instructor. Keep the `|-` form for short answers: there, backslashes, colons and quotes need no "
        "escaping. If one answer still breaks the file, only that answer is affected, and your feedback "
        "names its line.",
        "",
        "## Hand in",
        "",
        "Hand in these files, with these names:",
        "",
    ]
    lines = _released_only(lines, bool(assignments), bool(quizzes))
    for name in assignments:
        lines.append(f"- `{name}.ipynb` **or** `{name}.py` (if you hand in both, the one you changed is graded; "
                     "if you changed both, the notebook)")
    for quiz in quizzes.values():
        lines.append(f"- `{answer_file_name(quiz)}` (your filled-in answer file from `quizzes/`)")
    lines += [
        "",
        "Your instructor says where (a course folder, an upload on the course site, or Gradescope). Upload "
        "the files themselves, or a zip of them; the `tests/` folders, figures and the other handout files are "
        "not needed. A missing file scores 0 for its part only.",
        "",
    ]
    return "\n".join(lines)


def _released_only(lines: list[str], assignments: bool, quizzes: bool) -> list[str]:
    """The "Do the exercises" section without its code part when no assignment is released, and without its
    quiz part when no quiz is: the handout speaks only of what it holds."""
    code = next(i for i, line in enumerate(lines) if line.startswith("Each assignment comes twice"))
    quiz = next(i for i, line in enumerate(lines) if line.startswith("**Quizzes:**"))
    end = lines.index("## Hand in")
    return lines[:code] + (lines[code:quiz] if assignments else []) + (lines[quiz:end] if quizzes else []) \
        + lines[end:]
