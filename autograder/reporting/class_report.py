"""report.html: one self-contained page about the whole class, for the instructor.

Everything is inline (CSS, and charts as base64 PNG data URIs), so the file opens offline and can be mailed
as is. Every piece of text that comes from a submission or a grader (ids, test output, reasons) goes
through `html.escape`: a student id may be `<script>...</script>`.
"""
from __future__ import annotations

import base64
import html
from collections.abc import Iterable

from ..grading.results import FAILED, PASSED, StudentResult
from ..sandbox.isolation import notice
from . import plots
from .class_stats import (LOW_DISCRIMINATION, MIN_TAKERS, grader_problems, item_analysis, misconceptions,
                          percent, score_overview, test_stats, weak_isolation)

CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 70em; padding: 0 1em; color: #222; }
table { border-collapse: collapse; margin: .5em 0 1.5em; }
th, td { border: 1px solid #ccc; padding: .25em .6em; text-align: left; vertical-align: top; }
th { background: #f2f2f2; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.group th { background: #e4ecf7; }
.alarm { background: #fde2e1; border: 3px solid #c0392b; padding: .8em 1em; font-weight: bold; }
.note { background: #fff8e1; border: 2px solid #e0a800; padding: .6em 1em; }
.flag { color: #c0392b; font-weight: bold; }
.muted { color: #666; }
pre { white-space: pre-wrap; max-height: 15em; overflow: auto; background: #f7f7f7; padding: .5em; }
img { max-width: 100%; }
"""


def esc(value: object) -> str:
    return html.escape(str(value), quote=True)


def image(png: bytes, alt: str) -> str:
    return f'<img alt="{esc(alt)}" src="data:image/png;base64,{base64.b64encode(png).decode("ascii")}">'


def table(headers: Iterable[str], rows: Iterable[str | Iterable[str]]) -> str:
    """headers are plain text; a row is a finished `<tr>` string or a list of cells that are HTML already
    (callers escape), either bare or wrapped in their own `<td>`."""
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    body = "".join(row if isinstance(row, str) else "<tr>" + "".join(cell(c) for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def cell(content: str) -> str:
    return content if content.startswith("<td") else f"<td>{content}</td>"


def num(value: float | None, form: str = "{:g}") -> str:
    return '<td class="num">' + ("—" if value is None else esc(form.format(value))) + "</td>"


def isolation_section(results: list[StudentResult]) -> str:
    parts = []
    for mode, ids in weak_isolation(results).items():
        kind = "note" if mode == "landlock" else "alarm"
        parts.append(f'<div class="{kind}"><p>{esc(notice(mode))}</p><ul><li>{esc(mode)}: {esc(", ".join(ids))}'
                     "</li></ul></div>")
    return "".join(parts)


def overview_section(results: list[StudentResult]) -> str:
    o = score_overview(results)
    if not results:
        return "<h2>Class overview</h2><p>No students were graded: there is nothing to report.</p>"
    rows = [
        ["students graded", num(o["students"])],
        ["mean score", num(o["mean"], "{:.2f}")],
        ["median score", num(o["median"])],
        ["lowest / highest", f'<td class="num">{o["min"]:g} / {o["max"]:g}</td>'],
        ["maximum possible", num(o["max_score"])],
        ["full marks", num(o["full_marks"])],
        ["passed every code test", num(o["passed_every_test"])],
        ["with ungradable files", num(o["ungradable"])],
        ["grader problems (checks)", num(o["grader_problems"])],
    ]
    students = [[esc(r.student_id), num(r.score), num(r.max_score), num(percent(r), "{:.0f}%"),
                 num(sum(1 for t in r.tests if t.status == PASSED)), num(sum(1 for t in r.tests if t.status == FAILED)),
                 esc("; ".join(r.problems))] for r in results]
    return ("<h2>Class overview</h2>" + table(["", "value"], rows)
            + "<h3>Students</h3>"
            + table(["student", "score", "max", "%", "tests passed", "tests failed", "ungradable files"], students))


def distribution_section(results: list[StudentResult]) -> str:
    if not results:
        return ""
    return "<h2>Score distribution</h2>" + image(plots.score_histogram_png([percent(r) for r in results]),
                                                 "histogram of total scores")


def pass_rate_section(results: list[StudentResult]) -> str:
    stats = test_stats(results)
    if not stats:
        return "<h2>Pass rate of every grader test</h2><p>No tests were run.</p>"
    rated = [s for s in stats if s.pass_rate is not None]
    chart = image(plots.pass_rate_png([s.test_id.split("::")[-1] for s in rated], [s.pass_rate for s in rated],
                                      [s.assignment for s in rated]), "bar chart of pass rates") if rated else ""
    rows, group = [], None
    for s in stats:
        if (s.assignment, s.question) != group:
            group = (s.assignment, s.question)
            rows.append(f'<tr class="group"><th colspan="7">{esc(s.assignment)} / {esc(s.question)}</th></tr>')
        rows.append([esc(s.name), f"<code>{esc(s.test_id.split('::')[-1])}</code>", esc(s.visibility),
                     num(s.passed), num(s.failed), num(s.grader_errors),
                     num(None if s.pass_rate is None else 100 * s.pass_rate, "{:.0f}%")])
    return ("<h2>Pass rate of every grader test</h2><p class=\"muted\">Grouped by assignment / question. "
            "Grader problems are left out of the pass rate.</p>" + chart
            + table(["test", "function", "visibility", "passed", "failed", "grader problem", "pass rate"], rows))


def misconception_section(results: list[StudentResult]) -> str:
    common = misconceptions(results)
    head = ("<h2>Most common misconceptions</h2><p class=\"muted\">Each grader test is tagged with the "
            "misconceptions it targets; a student counts under a tag when a test carrying it failed.</p>")
    if not common:
        return head + "<p>No failing tests, so no misconceptions to report.</p>"
    shown = common[:12]
    chart = image(plots.misconception_png([t for t, _ in shown], [len(ids) for _, ids in shown]),
                  "bar chart of misconceptions")
    rows = [[esc(tag), num(len(ids)), esc(", ".join(ids))] for tag, ids in common]
    return head + chart + table(["misconception", "students", "students affected"], rows)


def item_section(results: list[StudentResult]) -> str:
    items = item_analysis(results)
    head = ("<h2>Quiz item analysis</h2><p class=\"muted\">Difficulty = mean score / max score (1 means everyone "
            "got it right). Discrimination = <strong>corrected point-biserial</strong>: the correlation between "
            "the item score and the rest of the quiz score (quiz total minus this item), over the students who "
            f"handed in a readable answers file. Items with discrimination below {LOW_DISCRIMINATION} are flagged; "
            f"— means undefined (fewer than {MIN_TAKERS} students, or everyone scored the same).</p>")
    if not items:
        return head + "<p>No quizzes were graded.</p>"
    parts = [head]
    if any(i.discrimination is not None for i in items):
        parts.append(image(plots.item_analysis_png(items), "difficulty against discrimination per quiz item"))
    for quiz_id in dict.fromkeys(i.quiz_id for i in items):
        rows = [[f"<code>{esc(i.question_id)}</code>", num(i.max_score), num(i.takers),
                 num(i.difficulty, "{:.2f}"), num(i.discrimination, "{:.2f}"),
                 '<span class="flag">low discrimination</span>' if i.flagged else ""]
                for i in items if i.quiz_id == quiz_id]
        parts.append(f"<h3>Quiz {esc(quiz_id)}</h3>"
                     + table(["item", "max", "students", "difficulty", "discrimination", "flag"], rows))
    return "".join(parts)


def grader_problem_cell(output: str, detail: str) -> str:
    if not detail:
        return esc(output)
    return f"<details><summary>{esc(output or 'details')}</summary><pre>{esc(detail)}</pre></details>"


def problem_section(results: list[StudentResult]) -> str:
    ungradable = [[esc(r.student_id), "<ul>" + "".join(f"<li>{esc(p)}</li>" for p in r.problems) + "</ul>"]
                  for r in results if r.problems]
    quiz_files = [[esc(r.student_id), esc(q.quiz_id), esc(q.problem)]
                  for r in results for q in r.quizzes if q.problem]
    bugs = [[esc(student), esc(test.name), f"<code>{esc(test.test_id)}</code>",
             grader_problem_cell(test.output, test.grader_detail)] for student, test in grader_problems(results)]
    parts = ["<h2>Ungradable submissions</h2>",
             table(["student", "why"], ungradable) if ungradable else "<p>Every submitted file could be graded.</p>"]
    if quiz_files:
        parts.append("<h3>Quiz answer files not graded</h3>" + table(["student", "quiz", "why"], quiz_files))
    parts.append("<h2>Grader problems, not students' fault</h2>")
    parts.append("<p>These checks crashed inside the grader; they scored 0 and need a regrade once fixed.</p>"
                 + table(["student", "test", "test id", "what happened"], bugs) if bugs
                 else "<p>No grader problems.</p>")
    return "".join(parts)


def class_report_html(results: list[StudentResult]) -> str:
    results = list(results)
    body = "".join([
        isolation_section(results), overview_section(results), distribution_section(results),
        pass_rate_section(results), misconception_section(results), item_section(results),
        problem_section(results),
    ])
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>Class report</title><style>{CSS}</style></head><body><h1>Class report</h1>{body}</body></html>\n")
