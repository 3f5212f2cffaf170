"""Who needs help, on what: a student x question table, one cell per gradebook column.

A cell is the share of the question's points the student earned, coloured on a scale that colour-blind
readers can follow (red through white to blue), with the percentage written in it. A quiz whose answers
wait for review shows the share decided so far and the pending points ("15% +4"), outlined: not a final
score. A student whose work the platform marked late is marked "late" beside the name. Three other states are
not scores and look different: the file could not be read (hatched), the part was not attempted (grey, a
dash), or a check hit a grader problem (dark, "grader"). It is an HTML table, so it is searchable, copyable
and parseable; the data-* attributes carry the state and share for tools and tests.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..results import FAILED, GRADER_ERROR, QuizResult, StudentResult, TestResult
from .blank import quiz_not_handed_in
from .class_stats import CLASS_MEAN, percent, score_overview
from .escape import html_text
from .provisional import mean_points, points, score_text

SCORE, NOT_ATTEMPTED, UNREADABLE, GRADER_PROBLEM = "score", "not-attempted", "unreadable", "grader-problem"
QUIZ = "quiz:"
# ColorBrewer RdBu, 5 classes: 0%, 25%, 50%, 75%, 100% of the points.
SCALE = ["#ca0020", "#f4a582", "#f7f7f7", "#92c5de", "#0571b0"]
STATE_TEXT = {NOT_ATTEMPTED: "—", UNREADABLE: "file", GRADER_PROBLEM: "grader"}
LEGEND = {
    NOT_ATTEMPTED: "not attempted: no file handed in, or the stub left as it was",
    UNREADABLE: "file handed in but could not be read, or this part of it Python cannot parse (see Needs your attention)",
    GRADER_PROBLEM: "a check hit a grader problem: not a score, regrade once fixed",
}
# A part missing because Python could not parse its definition (grading/student.py: explain_error): handed in,
# not left as the stub.
BROKEN = re.compile(r"Running your file stopped with (SyntaxError|IndentationError|TabError)\b")
CSS = """
.heatmap-frame { overflow-x: auto; }
table.heatmap { font-size: .9em; }
table.heatmap td.cell { text-align: center; min-width: 2.6em; padding: .2em .25em; font-variant-numeric: tabular-nums; }
table.heatmap th.q { writing-mode: vertical-rl; transform: rotate(180deg); white-space: nowrap;
  font-weight: normal; padding: .4em .15em; vertical-align: bottom; }
table.heatmap td.student { white-space: nowrap; }
.not-attempted { background: #e0e0e0; color: #555; }
.unreadable { background: repeating-linear-gradient(45deg, #bdbdbd 0 4px, #ffffff 4px 8px); font-weight: bold;
  text-shadow: 0 0 2px #fff, 0 0 3px #fff; }
.pending { outline: 2px dashed #e0a800; outline-offset: -3px; }
.late { color: #c0392b; font-size: .85em; font-weight: bold; }
.grader-problem { background: #3b3b3b; color: #fff; font-weight: bold; }
.legend { display: flex; flex-wrap: wrap; gap: .4em 1.2em; align-items: center; margin: .3em 0 1.2em; }
.legend .swatch { display: inline-block; min-width: 3.2em; text-align: center; border: 1px solid #ccc;
  padding: .1em .3em; margin-right: .3em; }
"""


@dataclass(frozen=True)
class Cell:
    state: str
    score: float
    max_score: float
    note: str = ""                   # why the cell is in its state, for the tooltip
    pending: float = 0.0             # quiz points waiting for review: neither earned nor lost

    @property
    def share(self) -> float | None:
        return self.score / self.max_score if self.state == SCORE and self.max_score else None


def code_cell(result: StudentResult, tests: list[TestResult]) -> Cell:
    score, top = sum(t.score for t in tests), sum(t.max_score for t in tests)
    if not tests:
        return Cell(NOT_ATTEMPTED, 0.0, 0.0, "no check of this question ran")
    if any(t.status == GRADER_ERROR for t in tests):
        return Cell(GRADER_PROBLEM, score, top, "a check of this question hit a grader problem")
    scored = [t for t in tests if t.max_score > 0] or tests  # a zero-point flag is not an attempt
    if all(t.status == FAILED and not t.attempted for t in scored):
        if tests[0].assignment in result.unreadable or any(BROKEN.search(t.output) for t in scored):
            return Cell(UNREADABLE, score, top, tests[0].output)
        return Cell(NOT_ATTEMPTED, score, top, tests[0].output)
    return Cell(SCORE, score, top)


def quiz_cell(quiz: QuizResult | None) -> Cell:
    if quiz is None:
        return Cell(NOT_ATTEMPTED, 0.0, 0.0, "no such quiz")
    if quiz.problem:
        state = NOT_ATTEMPTED if quiz_not_handed_in(quiz) else UNREADABLE  # no answer file: not attempted
        return Cell(state, quiz.score, quiz.max_score, quiz.problem)
    if quiz.pending:
        return Cell(SCORE, quiz.score, quiz.max_score, f"{quiz.pending:g} point(s) wait for your review",
                    quiz.pending)
    return Cell(SCORE, quiz.score, quiz.max_score)


def columns(results: list[StudentResult]) -> list[tuple[str, str]]:
    """(group, question) per gradebook column, in gradebook order: the assignment, or "quizzes"."""
    found: dict[str, str] = {}
    for result in results:
        for test in result.tests:
            found.setdefault(test.question, test.assignment)
        for quiz in result.quizzes:
            found.setdefault(QUIZ + quiz.quiz_id, "quizzes")
    return [(group, question) for question, group in found.items()]


def grid(results: list[StudentResult]) -> list[tuple[StudentResult, list[Cell]]]:
    """One row per student, weakest total first (ties by id): the students who need help come first."""
    keys = [question for _, question in columns(results)]
    rows = []
    for result in sorted(results, key=lambda r: (percent(r), r.student_id)):
        quizzes = {QUIZ + q.quiz_id: q for q in result.quizzes}
        rows.append((result, [quiz_cell(quizzes.get(key)) if key.startswith(QUIZ)
                              else code_cell(result, [t for t in result.tests if t.question == key])
                              for key in keys]))
    return rows


def colour(share: float) -> tuple[str, str]:
    """Background and text colour for a score share, interpolated between the SCALE stops."""
    position = min(max(share, 0.0), 1.0) * (len(SCALE) - 1)
    low = min(int(position), len(SCALE) - 2)
    a, b = SCALE[low], SCALE[low + 1]
    mix = [round(int(a[i:i + 2], 16) * (1 - position + low) + int(b[i:i + 2], 16) * (position - low))
           for i in (1, 3, 5)]
    text = "#fff" if share < 0.15 or share > 0.85 else "#222"
    return "#{:02x}{:02x}{:02x}".format(*mix), text


esc = html_text  # escape.py's HTML rule: every text the page did not write itself


def cell_html(cell: Cell, student: str, question: str) -> str:
    tip = (f"{student}, {question}: {points(cell.score, cell.pending)} / {cell.max_score:g}"
           + (f" ({cell.note})" if cell.note else ""))
    if cell.state != SCORE:
        return (f'<td class="cell {cell.state}" data-state="{cell.state}" title="{esc(tip)}">'
                f"{STATE_TEXT[cell.state]}</td>")
    share = cell.share
    if share is None:
        return f'<td class="cell" data-state="{SCORE}" title="{esc(tip)}">·</td>'
    background, text = colour(share)
    if cell.pending:
        return (f'<td class="cell score pending" data-state="{SCORE}" data-share="{share:.4f}" '
                f'data-pending="{cell.pending:g}" title="{esc(tip)}" style="background:{background};color:{text}">'
                f"{100 * share:.0f}% +{cell.pending:g}</td>")
    return (f'<td class="cell score" data-state="{SCORE}" data-share="{share:.4f}" title="{esc(tip)}" '
            f'style="background:{background};color:{text}">{100 * share:.0f}%</td>')


def legend_html() -> str:
    pending = ('<span><span class="swatch pending">15% +4</span>a quiz with answers waiting for your review: the '
               "share decided so far, plus the points pending</span>")
    stops = "".join(f'<span class="swatch" style="background:{c};color:{"#fff" if i in (0, 4) else "#222"}">'
                    f"{25 * i}%</span>" for i, c in enumerate(SCALE))
    states = "".join(f'<span><span class="swatch {state}">{STATE_TEXT[state]}</span>{esc(text)}</span>'
                     for state, text in LEGEND.items())
    return (f'<div class="legend" id="heatmap-legend"><span>{stops} share of the question\'s points</span>'
            f"{states}{pending}</div>")


def heatmap_html(results: list[StudentResult], late=()) -> str:
    """`late`: ids of students whose work the platform marked late, or {id: "late: ps1"} naming the part."""
    late = late if isinstance(late, dict) else dict.fromkeys(late, "late")
    cols = columns(results)
    groups: list[list] = []
    for group, _ in cols:
        if groups and groups[-1][0] == group:
            groups[-1][1] += 1
        else:
            groups.append([group, 1])
    head = ('<tr><th rowspan="2">student</th>' + "".join(f'<th colspan="{n}">{esc(g)}</th>' for g, n in groups)
            + '<th rowspan="2">total</th></tr><tr>'
            + "".join(f'<th class="q" scope="col">{esc(q.removeprefix(QUIZ))}</th>' for _, q in cols) + "</tr>")
    body, rows = [], grid(results)
    for result, cells in rows:
        mark = f' <span class="late">{esc(late[result.student_id])}</span>' if result.student_id in late else ""
        body.append(f'<tr data-student="{esc(result.student_id)}"><td class="student">{esc(result.student_id)}{mark}'
                    "</td>" + "".join(cell_html(c, result.student_id, q) for c, (_, q) in zip(cells, cols))
                    + f'<td class="num">{esc(score_text(result))} ({percent(result):.0f}%)</td></tr>')
    return (f'<div class="heatmap-frame"><table class="heatmap" id="heatmap"><thead>{head}</thead>'
            f'<tbody>{"".join(body)}</tbody>{footer(rows, len(cols))}</table></div>' + legend_html())


def footer(rows: list[tuple[StudentResult, list[Cell]]], width: int) -> str:
    """Mean share per question over every student (class_stats.CLASS_MEAN: a part not handed in, blank or
    unreadable counts 0, a point pending review not yet), and the class mean of the totals under the total
    column; pending points beside them as the cells show them ("40% +0.5", "45.3 + 0.8 pending")."""
    cells = []
    for index in range(width):
        scored = [c for _, row in rows if (c := row[index]).max_score]
        shares = [c.score / c.max_score for c in scored]
        waiting = sum(c.pending for c in scored) / len(scored) if scored else 0.0
        cells.append('<td class="cell num">' + (f"{100 * sum(shares) / len(shares):.0f}%" if shares else "—")
                     + (f" +{waiting:.2g}" if waiting else "") + "</td>")
    overview = score_overview([result for result, _ in rows])  # the one class mean, as the overview's
    mean = ("<td></td>" if overview["mean"] is None else
            f'<td class="num">{esc(mean_points(overview["mean"], overview["mean_pending"]))}</td>')
    return (f'<tfoot><tr><th scope="row" title="{esc(CLASS_MEAN)}">class mean ({esc(CLASS_MEAN)})</th>'
            f'{"".join(cells)}{mean}</tr></tfoot>')
