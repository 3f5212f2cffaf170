"""A readable Markdown feedback file per student: what passed, what failed and why, what to fix.

A diagnosed mistake is explained once (see explain.py); other checks it fails point back to it. Every text
the kit does not write here goes through escape.py's Markdown rule: a student's id, messages quoting their
values and what their code printed are shown as text, never as links, images or HTML.
"""
from __future__ import annotations

from ..results import FAILED, GRADER_ERROR, PASSED, StudentResult, TestResult
from ..grading.submissions import not_handed_in
from .blank import blank_assignments, student_line
from .escape import markdown_block, markdown_lines, markdown_text as md, visible
from .explain import Plan, count, failure_lines, label, plan_explanations
from .explain import points as lost_points
from .provisional import pending, points, score_text

MARK = {PASSED: "passed", FAILED: "FAILED", GRADER_ERROR: "not graded (grader problem)"}


def mark(test: TestResult) -> str:
    return "not attempted" if test.status == FAILED and not test.attempted else MARK[test.status]


def mistakes_summary(plan: Plan) -> list[str]:
    shown = [m for m in plan.mistakes if m.anchor.visibility != "hidden"]
    if not shown:
        return []
    lines = ["", "## Mistakes found in your code", ""]
    for mistake in shown:
        lines.append(f"- **{md(mistake.diagnosis.title)}**: {lost_points(mistake.points_lost)} in "
                     f"{count(len(mistake.tests), 'check')}; "
                     f"explained under *{md(label(mistake.anchor))}*.")
    return lines


def quoted(texts: list[str]) -> list[str]:
    """Lines of text as a block quote under a list item, shown line by line as written: each line ends in a
    hard break (Markdown would join them into one paragraph) and keeps its indentation (a YAML example the
    student copies must keep its two spaces)."""
    lines = []
    for text in texts:
        if lines:
            lines.append("  >")  # each text a paragraph of its own
        raw = visible(text, keep="\n").split("\n")
        shown = markdown_lines(text)
        for index, (line, escaped) in enumerate(zip(raw, shown)):
            indent = "&nbsp;" * (len(line) - len(line.lstrip(" ")))
            follows = index + 1 < len(raw) and raw[index + 1].strip()
            lines.append(f"  > {indent if escaped else ''}{escaped}{chr(92) if escaped and follows else ''}".rstrip())
    return lines


def not_handed_in_parts(result: StudentResult) -> set[str]:
    """Assignments whose file the student did not hand in (named by the problem that says so)."""
    return {part for part in map(not_handed_in, result.problems) if part}


def arrival_line(arrival: dict | None) -> str:
    """"Submitted 2026-11-20T10:00, marked late." or "" when the platform said nothing: plain text holding the
    time as the platform wrote it, so each output escapes it by its own rule (feedback: `md`)."""
    arrival = arrival or {}
    detail = arrival.get("detail", "")
    if detail.startswith(("When each part arrived", "Submitted:")):  # per part, or an extension: said there
        return detail
    when = f"Submitted {arrival['submitted_at']}" if arrival.get("submitted_at") else ""
    if arrival.get("late") == "yes":
        base = f"{when}, marked late." if when else "Submitted late (as your course site marked it)."
    else:
        base = f"{when}." if when else ""
    return " ".join(filter(None, [base, detail]))


def feedback_markdown(result: StudentResult, arrival: dict | None = None) -> str:
    """`arrival`: {"submitted_at", "late"} as the platform said (provisional.arrival)."""
    plan = plan_explanations(result)
    waiting = pending(result)
    lines = [f"# Feedback for {md(result.student_id)}", "", f"**Score: {score_text(result)}**"
             + (f" ({waiting:g} quiz points wait for your instructor's review: not lost, not yet earned)"
                if waiting else ""), ""]
    if arrival_line(arrival):
        lines[-1:] = ["", md(arrival_line(arrival)), ""]
    if result.problems:
        lines += ["## Files that could not be graded", ""] + [f"- {md(p)}" for p in result.problems] + [""]
    if result.notes:
        lines += ["## Notes", ""] + [f"- {md(n)}" for n in result.notes] + [""]
    lines += ["| question | score |", "|---|---|"]
    waits = {f"quiz:{q.quiz_id}": q.pending for q in result.quizzes}
    lines += [f"| {md(q)} | {points(s, waits.get(q, 0))} / {m:g} |"
              for q, (s, m) in result.question_scores().items()]
    lines += mistakes_summary(plan)
    blank = blank_assignments(result)
    if blank:  # one line, not one "not implemented yet" per check
        lines += ["", student_line(result, blank)]
    missing = [a for a in dict.fromkeys(t.assignment for t in result.tests) if a in not_handed_in_parts(result)]
    for assignment in missing:  # one line, not the same reason under every check
        own = [t for t in result.tests if t.assignment == assignment]
        lines += ["", f"{md(assignment)} was not handed in (see above), so its checks score 0 of "
                      f"{sum(t.max_score for t in own):g} points."]
    current = None
    for test in result.tests:
        if test.visibility == "hidden" or test.assignment in blank or test.assignment in missing:
            continue
        if test.assignment != current:
            current = test.assignment
            lines += ["", f"## {md(current)}", ""]
        lines.append(f"- **{md(test.question)}** — {md(test.name)}: {mark(test)} "
                     f"({test.score:g}/{test.max_score:g})")
        if test.status == FAILED:
            lines += quoted(failure_lines(test, plan))
        elif test.output:  # a grader problem, or a pass that says where the mistake it saw is charged
            lines += quoted([test.output])
    for quiz in result.quizzes:
        lines += ["", f"## Quiz: {md(quiz.quiz_id)} ({score_text(quiz)})", ""]
        if quiz.problem:
            lines.append(f"- {md(quiz.problem)}")
            continue
        for item in quiz.items:
            shown = "pending review" if item.pending else f"{item.score:g}"
            lines.append(f"- {md(item.question_id)}: {shown}/{item.max_score:g}")
            if item.feedback:
                lines += quoted([item.feedback])
    if result.printed.strip():
        lines += ["", "## What your code printed while being graded", "",
                  *markdown_block(result.printed.strip()[:4000])]
    return "\n".join(lines) + "\n"
