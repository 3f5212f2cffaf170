"""A readable Markdown feedback file per student: what passed, what failed and why, what to fix."""
from __future__ import annotations

from ..grading.results import FAILED, GRADER_ERROR, PASSED, StudentResult

MARK = {PASSED: "passed", FAILED: "FAILED", GRADER_ERROR: "not graded (grader problem)"}


def feedback_markdown(result: StudentResult) -> str:
    lines = [f"# Feedback for {result.student_id}", "",
             f"**Score: {result.score:g} / {result.max_score:g}**", ""]
    if result.problems:
        lines += ["## Files that could not be graded", ""] + [f"- {p}" for p in result.problems] + [""]
    if result.notes:
        lines += ["## Notes", ""] + [f"- {n}" for n in result.notes] + [""]
    lines += ["| question | score |", "|---|---|"]
    lines += [f"| {q} | {s:g} / {m:g} |" for q, (s, m) in result.question_scores().items()]
    current = None
    for test in result.tests:
        if test.visibility == "hidden":
            continue
        if test.assignment != current:
            current = test.assignment
            lines += ["", f"## {current}", ""]
        lines.append(f"- **{test.question}** — {test.name}: {MARK[test.status]} ({test.score:g}/{test.max_score:g})")
        if test.status != PASSED and test.output:
            lines += [f"  > {line}" for line in test.output.splitlines()]
    for quiz in result.quizzes:
        lines += ["", f"## Quiz: {quiz.quiz_id} ({quiz.score:g} / {quiz.max_score:g})", ""]
        if quiz.problem:
            lines.append(f"- {quiz.problem}")
            continue
        for item in quiz.items:
            lines.append(f"- {item.question_id}: {item.score:g}/{item.max_score:g}")
            if item.feedback:
                lines += [f"  > {line}" for line in item.feedback.splitlines()]
    if result.printed.strip():
        lines += ["", "## What your code printed while being graded", "", "```",
                  result.printed.strip()[:4000].replace("```", "'''"), "```"]
    return "\n".join(lines) + "\n"
