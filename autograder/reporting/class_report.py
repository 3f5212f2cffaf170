"""report.html: one self-contained page about the whole class, for the instructor.

Everything is inline (CSS, and charts as base64 PNG data URIs), so the file opens offline and can be mailed
as is. Every piece of text that comes from a submission or a grader (ids, test output, reasons) goes
through `esc` (escape.py's HTML rule: `html.escape` after control and bidirectional characters are made
visible): a student id may be `<script>...</script>`.
"""
from __future__ import annotations

import base64
from collections.abc import Iterable
from pathlib import Path

from ..grading.skipped import UNREAD, split_skipped
from ..results import StudentResult
from ..sandbox.isolation import notice
from . import heatmap
from .attention import GRADER, counts, needs_attention
from .repairs import no_repairs_sentence, repairs_by_edit
from .provisional import arrival_lists, late_label, late_students, mean_points, pending, review_banner_text
from .class_stats import (CLASS_MEAN, ITEM_STATS_MIN_TAKERS, LOW_DISCRIMINATION, MIN_TAKERS, diagnosed_mistakes,
                          grader_problems, item_analysis, percent, score_overview, test_stats, undiagnosed_failures,
                          weak_isolation)
from .escape import html_text

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
nav ul { columns: 2; padding-left: 1.2em; }
code.small { font-size: .8em; color: #555; }
td.wide { width: 55%; }
.side-by-side { display: flex; flex-wrap: wrap; gap: 0 2.5em; align-items: flex-start; }
.side-by-side h3 { margin-bottom: .2em; }
details > summary { cursor: pointer; }
""" + heatmap.CSS


esc = html_text  # escape.py's HTML rule: every text the page did not write itself


def image(png: bytes, alt: str) -> str:
    return f'<img alt="{esc(alt)}" src="data:image/png;base64,{base64.b64encode(png).decode("ascii")}">'


def table(headers: Iterable[str], rows: Iterable[str | Iterable[str]], table_id: str = "") -> str:
    """headers are plain text; a row is a finished `<tr>` string or a list of cells that are HTML already
    (callers escape), either bare or wrapped in their own `<td>`."""
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    body = "".join(row if isinstance(row, str) else "<tr>" + "".join(cell(c) for c in row) + "</tr>" for row in rows)
    ident = f' id="{esc(table_id)}"' if table_id else ""
    return f"<table{ident}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


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


def review_banner(results: list[StudentResult], out: Path | None = None) -> str:
    """While answers wait for review, every total is provisional: said first, where nobody misses it."""
    text = review_banner_text(results, out)
    return f'<div class="note" id="review-banner"><p>{esc(text)}</p></div>' if text else ""


def overview_section(results: list[StudentResult], late: list[str] = (), arrivals=()) -> str:
    """`arrivals`: provisional.arrival_lists (who was late, with which part; extensions; later uploads)."""
    o = score_overview(results)
    if not results:
        return "<h2>Class overview</h2><p>No students were graded: there is nothing to report.</p>"
    rows = [
        ["students graded", num(o["students"])],
        [f"class mean ({CLASS_MEAN})", f'<td class="num">{esc(mean_points(o["mean"], o["mean_pending"], 2))}</td>'],
        ["median score", num(o["median"])],
        ["lowest / highest", f'<td class="num">{o["min"]:g} / {o["max"]:g}</td>'],
        ["maximum possible", num(o["max_score"])],
        ["full marks", num(o["full_marks"])],
        ["passed every code test", num(o["passed_every_test"])],
        ["with a file not handed in", num(o["not_handed_in"])],
        ["with a file handed in that could not be graded", num(o["ungradable"])],
        ["grader problems (checks)", num(o["grader_problems"])],
    ]
    waiting = [r for r in results if pending(r)]
    if waiting:
        rows.insert(5, ["quiz points pending review (not in the scores above)",
                        f'<td class="num">{sum(map(pending, waiting)):g} ({len(waiting)} students)</td>'])
    for label, text in arrivals:
        rows.append([label.split(" (")[0].lower(), f'<td class="num">{esc(label.split(" (")[1].rstrip(")"))}: '
                                                   f'{esc(text)}</td>'])
    return '<h2 id="overview">Class overview</h2>' + table(["", "value"], rows)


def heatmap_section(results: list[StudentResult], late: list[str] = ()) -> str:
    if not results:
        return ""
    return ('<h2 id="students">Who needs help, on what</h2><p class="muted">One row per student, lowest total '
            "first; one column per question and quiz (the gradebook's columns). A cell is the share of that "
            "question's points the student earned; hover for points and reasons.</p>"
            + heatmap.heatmap_html(results, late))


# A chart of a class of one shows nothing its tables do not (one bar at 0 or 100%); it is also the most
# expensive part of grading one late submission, so it is drawn from two students on.
CHARTS_MIN_STUDENTS = 2
NO_CHARTS = (f'<p class="muted no-charts">Charts are drawn for {CHARTS_MIN_STUDENTS} or more students; the '
             "table below has every figure.</p>")


def charts(results) -> "object | None":
    """The chart module (matplotlib) when this class gets charts, else None."""
    if len(results) < CHARTS_MIN_STUDENTS:
        return None
    from . import plots  # noqa: PLC0415 - matplotlib: imported only when a chart is drawn

    return plots


def distribution_section(results: list[StudentResult]) -> str:
    if not results:
        return ""
    plots = charts(results)
    if plots is None:
        return ""  # one student: the heatmap and the gradebook hold the score
    chart = plots.score_histogram_png([percent(r) for r in results])
    return '<h2 id="distribution">Score distribution</h2>' + image(chart, "histogram of total scores")


def check_cell(name: str, test_id: str, visibility: str = "visible") -> str:
    """A check's name, with its function (to find it in the graders) and its visibility when not visible."""
    shown = "" if visibility == "visible" else f' <span class="muted">({esc(visibility)})</span>'
    return f'{esc(name)}{shown}<br><code class="small">{esc(test_id.split("::")[-1])}</code>'


def pass_rate_section(results: list[StudentResult]) -> str:
    stats = test_stats(results)
    if not stats:
        return '<h2 id="tests">Pass rate of every grader test</h2><p>No tests were run.</p>'
    # instructor-only zero-point probes (hidden flags) stay in the table, out of the chart: they test no skill
    probes = {t.test_id for r in results for t in r.tests if t.max_score == 0 and t.visibility == "hidden"}
    rated = [s for s in stats if s.pass_rate is not None and s.test_id not in probes]
    targets = {t.test_id: t.tags for r in results for t in r.tests}
    plots = charts(results)
    chart = "" if not rated else NO_CHARTS if plots is None else image(plots.pass_rate_png(
        [s.test_id.split("::")[-1] for s in rated], [s.pass_rate for s in rated], [s.assignment for s in rated]),
        "bar chart of pass rates")
    rows, group = [], None
    for s in stats:
        if (s.assignment, s.question) != group:
            group = (s.assignment, s.question)
            rows.append(f'<tr class="group"><th colspan="6">{esc(s.assignment)} / {esc(s.question)}</th></tr>')
        rows.append([check_cell(s.name, s.test_id, s.visibility), esc(", ".join(targets.get(s.test_id, ()))),
                     num(s.passed), num(s.failed), num(s.grader_errors),
                     num(None if s.pass_rate is None else 100 * s.pass_rate, "{:.0f}%")])
    return ('<h2 id="tests">Pass rate of every grader test</h2><p class="muted">Grouped by assignment / question. '
            "Grader problems are left out of the pass rate. <em>Targets</em> are the test's tags: what it was "
            "written to catch, not what any student did. The chart leaves out zero-point checks only you see "
            "(hidden), listed in the table.</p>" + chart
            + table(["test", "targets", "passed", "failed", "grader problem", "pass rate"], rows, "pass-rates"))


def mistakes_section(results: list[StudentResult]) -> str:
    mistakes = diagnosed_mistakes(results)
    head = ('<h2 id="mistakes">Misconceptions: diagnosed mistakes</h2><p class="muted">Counted from diagnoses '
            "only: a student is listed under a mistake when a failed check ran that mistake's model on the same "
            "inputs and it reproduced the student's result. A check whose result several mistakes reproduce "
            "proves none of them: those students are listed as <em>possibly</em>, unless another check proves "
            "one. Test tags say what a check targets and are not counted here.</p>")
    if not mistakes:
        return head + '<p id="no-diagnoses">No failed check named a mistake.</p>'
    plots = charts(results)
    chart = NO_CHARTS if plots is None else image(plots.mistakes_png(mistakes[:15]),
                                                  "bar chart of students per diagnosed mistake")
    none = '<span class="muted">—</span>'
    rows = [[esc(m.title), f"<code>{esc(m.mistake)}</code>", num(len(m.made)), esc(", ".join(m.made)) or none,
             esc(", ".join(m.possible)) or none,
             "<br>".join(f"<code>{esc(t.split('::')[-1])}</code>" for t in m.tests), esc(m.where)]
            for m in mistakes]
    return head + chart + table(["mistake", "id", "students", "made it", "possibly", "named by checks", "exercise"], rows,
                                "diagnoses")


def repairs_section(results: list[StudentResult]) -> str:
    """Repairs counted by edit: the failed questions that one or two small edits of the student's own code make
    pass every check (the edits themselves are in each student's feedback)."""
    found = repairs_by_edit(results)
    head = ('<h2 id="repairs">Repairs: failures one or two edits away</h2><p class="muted">A failed function or '
            "class is counted here when one or two small edits of the student's own code make every hidden check "
            "of it pass, run like the student's code on the same inputs. A repair is what would fix the code, "
            "not what the student meant.</p>")
    if not found:
        return head + f'<p id="no-repairs">{esc(no_repairs_sentence(results))}</p>'
    rows = [[f"<code>{esc(c.edit)}</code>", num(len(c.students)), esc(", ".join(c.students)),
             esc(", ".join(c.questions))] for c in found]
    return head + table(["edit", "students", "who", "in"], rows, "repairs")


def undiagnosed_section(results: list[StudentResult]) -> str:
    found = undiagnosed_failures(results)
    head = ('<h2 id="undiagnosed">Failed for no diagnosed reason</h2><p class="muted">The place to look for new '
            "mistakes: checks that students attempted and failed, where no mistake model reproduced their result "
            "and no small edit of their code made the part pass. "
            "Each student's symptom is what the check saw. Parts not attempted (no file, an untouched stub) are "
            "not listed.</p>")
    if not found:
        return head + ("<p>Every failed check was explained by a diagnosed mistake, or failed in a part where "
                       "another check found one.</p>")
    rows = []
    for entry in found:
        symptoms = "".join(f"<li><strong>{esc(student)}</strong>: {esc(symptom)}</li>"
                           for student, symptom in entry.students)
        rows.append([f"<strong>{esc(entry.test.question)}</strong>: " + check_cell(entry.test.name, entry.test.test_id),
                     num(len(entry.students)),
                     f'<td class="wide"><ul>{symptoms}</ul></td>' if len(entry.students) <= 3 else
                     f'<td class="wide"><details><summary>{esc(", ".join(s for s, _ in entry.students))}</summary>'
                     f"<ul>{symptoms}</ul></details></td>"])
    return head + table(["check", "students", "who, and what the check saw"], rows, "undiagnosed")


def item_section(results: list[StudentResult]) -> str:
    items = item_analysis(results)
    head = '<h2 id="items">Quiz item analysis</h2>'
    if not items:
        return head + "<p>No quizzes were graded.</p>"
    quizzes: dict[str, list] = {}
    for item in items:
        quizzes.setdefault(item.quiz_id, []).append(item)
    small = {quiz_id: quiz[0].takers for quiz_id, quiz in quizzes.items() if quiz[0].takers < ITEM_STATS_MIN_TAKERS}
    parts = [head]
    if small:
        parts.append(small_class_note(small, len(results)))
        counts = [f'<div><h3>Quiz {esc(quiz_id)}</h3>'
                  + table(["item", "max", "full marks"], [[f"<code>{esc(i.question_id)}</code>", num(i.max_score),
                                                           f'<td class="num">{i.full_marks} of {i.takers}'
                                                           + (f" ({i.pending} pending review)" if i.pending else "")
                                                           + "</td>"]
                                                          for i in quizzes[quiz_id]], f"item-counts-{quiz_id}")
                  + "</div>" for quiz_id in small]
        parts.append(f'<div class="side-by-side">{"".join(counts)}</div>')
    large = [quiz_id for quiz_id in quizzes if quiz_id not in small]
    if large:
        parts.append(item_note())
    for quiz_id in large:
        quiz = quizzes[quiz_id]
        parts.append(f"<h3>Quiz {esc(quiz_id)} ({quiz[0].takers} students with a readable answers file)</h3>")
        from . import plots  # noqa: PLC0415 - shown for 30 or more takers only: a class gets charts there

        parts.append(image(plots.item_statistics_png(quiz), f"difficulty and discrimination of each item of {quiz_id}"))
        waiting = (f'<td class="num" colspan="2">not shown: {ITEM_STATS_MIN_TAKERS} scored answers needed, '
                   "{} now (the rest wait for review)</td>")
        rows = [[f"<code>{esc(i.question_id)}</code>", num(i.max_score), num(i.takers), num(i.pending),
                 *((num(i.difficulty, "{:.2f}"), num(i.discrimination, "{:.2f}")) if i.shown
                   else (waiting.format(i.scored),)),
                 '<span class="flag">low discrimination</span>' if i.flagged else ""] for i in quiz]
        parts.append(table(["item", "max", "students", "pending review", "difficulty", "discrimination", "flag"],
                           rows, f"item-stats-{quiz_id}"))
    return "".join(parts)


def small_class_note(takers: dict[str, int], class_size: int | None = None) -> str:
    """Said where the statistics would be: the threshold, and how far each quiz is from it (a class of 30 in
    which two handed in no answers file has 28 takers)."""
    size = class_size if class_size is not None else max(takers.values(), default=0)
    which = "; ".join(f"{esc(quiz_id)}: {n} of the class's {size}" for quiz_id, n in takers.items())
    return (f'<p class="item-stats-hidden"><strong>Difficulty and discrimination are shown from '
            f"{ITEM_STATS_MIN_TAKERS} takers</strong> (students with a readable answers file for the quiz, whatever "
            f"the class's size); here: {which}. "
            "Below that size the sampling error of a correlation (about 1/&radic;(n&minus;1): 0.58 for 4 students, "
            f"0.33 for 10, 0.19 for 30) is larger than the gap between an item that separates no one (0) and the "
            f"flag line ({LOW_DISCRIMINATION}), so a flag would mostly report chance: a good item (true "
            "discrimination 0.4) would be flagged in about 4 classes in 10 at 4 students, 3 in 10 at 10 students, "
            "1 in 8 at 30. The counts below are facts about these students, not estimates.</p>")


def item_note() -> str:
    return ('<p class="muted">Difficulty = mean score / max score (1 means everyone got it right). Discrimination = '
            "<strong>corrected point-biserial</strong>: the correlation between the item score and the rest of "
            "the quiz score (quiz total minus this item), over the students who handed in a readable answers "
            f"file. Items with discrimination below {LOW_DISCRIMINATION} are flagged; — means undefined (fewer "
            f"than {MIN_TAKERS} students, or everyone scored the same). <em>Students</em> counts every one with a "
            "readable file; answers pending review have no score yet, so difficulty and discrimination leave them "
            f"out (and are not shown while fewer than {ITEM_STATS_MIN_TAKERS} answers are scored).</p>")


def grader_problem_cell(output: str, detail: str) -> str:
    if not detail:
        return esc(output)
    return f"<details><summary>{esc(output or 'details')}</summary><pre>{esc(detail)}</pre></details>"


def problem_section(results: list[StudentResult], skipped: list[str] = ()) -> str:
    """Needs your attention: every student with something not graded, graded under another name, graded
    definition by definition, a quiz file not read or a grader problem (attention.py), then the entries of
    SUBMISSIONS that were no student's."""
    found = needs_attention(results)
    rows = [[esc(a.student), esc(a.kind), esc(a.reason)] for a in found if a.kind != GRADER]
    bugs = [[esc(student), esc(test.name), f"<code>{esc(test.test_id)}</code>",
             grader_problem_cell(test.output, test.grader_detail)] for student, test in grader_problems(results)]
    people = len({a.student for a in found if a.kind != GRADER})
    parts = ['<h2 id="problems">Needs your attention</h2>']
    if rows:
        parts.append(f'<p>{people} student(s); by file or answer: {esc(counts([a for a in found if a.kind != GRADER]))}. Nothing here '
                     "was scored in silence: each line says what was not graded, or how it was graded.</p>"
                     + table(["student", "what", "why"], rows, "attention"))
    else:
        parts.append("<p>Every submitted file was found and graded as handed in.</p>")
    unread, skipped = split_skipped(list(skipped))
    if unread:
        parts.append("<h3>Named like a student's submission, but not read, so not graded</h3><ul>"
                     + "".join(f"<li>{esc(line.removeprefix(UNREAD))}</li>" for line in unread) + "</ul>")
    if skipped:
        parts.append("<h3>Not a student's submission, so not graded</h3><ul>"
                     + "".join(f"<li>{esc(line)}</li>" for line in skipped) + "</ul>")
    parts.append('<h2 id="grader-problems">Grader problems, not students\' fault</h2>')
    parts.append("<p>These checks crashed inside the grader; they scored 0 and need a regrade once fixed.</p>"
                 + table(["student", "test", "test id", "what happened"], bugs) if bugs
                 else "<p>No grader problems.</p>")
    return "".join(parts)


SECTIONS = [("overview", "Class overview"), ("students", "Who needs help, on what"),
            ("mistakes", "Misconceptions: diagnosed mistakes"), ("repairs", "Repairs: failures one or two edits away"),
            ("undiagnosed", "Failed for no diagnosed reason"),
            ("distribution", "Score distribution"), ("tests", "Pass rate of every grader test"),
            ("items", "Quiz item analysis"), ("problems", "Needs your attention"),
            ("grader-problems", "Grader problems")]


def class_report_html(results: list[StudentResult], skipped: list[str] = (), identities=None,
                      out: Path | None = None) -> str:
    """`identities`: what the platform said of each student (importers.Identity): who was late. `out`: the
    output folder, named in the review banner's command."""
    results = list(results)
    graded = [r.student_id for r in results]
    late = {sid: late_label(identities, sid) for sid in late_students(identities) if sid in graded}
    parts = [isolation_section(results) + review_banner(results, out),
             overview_section(results, late, arrival_lists(identities, graded))]
    if results:
        parts += [heatmap_section(results, late), mistakes_section(results), repairs_section(results),
                  undiagnosed_section(results),
                  distribution_section(results), pass_rate_section(results), item_section(results)]
    parts.append(problem_section(results, list(skipped)))
    if results:  # links to the sections this report has (a class of one has no score distribution)
        body = "".join(parts)
        parts[1:1] = ["<nav><ul>" + "".join(f'<li><a href="#{k}">{esc(v)}</a></li>' for k, v in SECTIONS
                                            if f'id="{k}"' in body) + "</ul></nav>"]
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>Class report</title><style>{CSS}</style></head><body><h1>Class report</h1>{''.join(parts)}"
            "</body></html>\n")
