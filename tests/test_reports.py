"""Class-level reports: report.html, canvas.csv, feedback, results.json and the terminal summary, for the demo
class and for hand-made classes (empty, all failing, hostile ids, diagnosed mistakes, a quiz whose item
statistics are worked out by hand). report.html is read with a real HTML parser, and in headless Chromium
when it is installed."""
from __future__ import annotations

import base64
import csv
import html
import io
import math
import re
from dataclasses import replace
from itertools import combinations

import pytest

from autograder.results import GRADER_ERROR, PASSED, Diagnosis, QuizResult, StudentResult, load
from autograder.results import TestResult as CheckResult  # aliased so pytest does not collect it
from autograder.reporting import plots
from autograder.reporting.canvas import STUDENT_COLUMNS, canvas_csv
from autograder.reporting.class_report import class_report_html
from autograder.reporting.class_stats import ITEM_STATS_MIN_TAKERS, diagnosed_mistakes, item_analysis
from autograder.reporting.explain import plan_explanations
from autograder.reporting.feedback import feedback_markdown
from autograder.reporting.gradescope import results_json
from autograder.reporting.summary import plain_summary
from tests import report_screenshots
from tests.html_tree import Node, parse_html
from tests.markdown_read import shown_text
from tests.report_classes import MASK_AFTER, RENORMALISED, check, diagnosed_class, quiz, student

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
CANVAS_RESERVED = ("Current Score", "Current Points", "Current Grade", "Final Score", "Final Points",
                   "Final Grade", "Override Score", "Override Grade", "Override Status")


# ---------- reading what the renderers wrote ----------

def parse_csv(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text, newline="")))


def images(report: str) -> list[bytes]:
    return [base64.b64decode(data) for data in re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', report)]


def table_row(report: str, first_cell: str) -> str:
    """The <tr> whose first cell is exactly first_cell (already escaped)."""
    match = re.search(rf"<tr><td>{re.escape(first_cell)}</td>.*?</tr>", report)
    assert match, f"no table row starting with {first_cell!r}"
    return match.group(0)


def heatmap_cells(document: Node) -> dict[str, dict[str, Node]]:
    """student -> {column "group/question" -> <td>} from the heatmap's two header rows and its body."""
    table = document.find("table", id="heatmap")
    group_row, question_row = list(table.find("thead").iter("tr"))
    groups = []
    for th in group_row.iter("th"):
        groups += [th.text()] * int(th.attrs.get("colspan") or 1)
    groups = groups[1:-1]  # student and total span both rows
    columns = [f"{g}/{th.text()}" for g, th in zip(groups, question_row.iter("th"))]
    cells = {}
    for row in table.find("tbody").iter("tr"):
        tds = [td for td in row.children if isinstance(td, Node)]
        cells[row.attrs["data-student"]] = dict(zip(columns, tds[1:-1]))
    return cells


def table_rows(document: Node, table_id: str) -> list[list[str]]:
    """The text of each body row's cells; rows of headers only (group rows) are left out."""
    table = document.find("table", id=table_id)
    rows = [[td.text() for td in row.iter("td")] for row in table.find("tbody").iter("tr")]
    return [row for row in rows if row]


# ---------- (a) the demo class, graded once through the command line ----------

@pytest.fixture(scope="session")
def demo(demo_graded):
    out, run = demo_graded
    results = [load(p) for p in sorted((out / ".state").glob("*.json"))]  # tests only: quizzes come later
    return out, run, results


@pytest.mark.slow
def test_demo_report_holds_every_student_and_test(demo):
    out, _, results = demo
    report = (out / "report.html").read_text(encoding="utf-8")
    assert {r.student_id for r in results} == {"ada", "grace", "linus", "margaret", "alan", "barbara lee"}
    for result in results:
        assert html.escape(result.student_id) in report
        for test in result.tests:
            assert html.escape(test.name) in report
    pngs = images(report)
    assert len(pngs) >= 2 and all(png.startswith(PNG_MAGIC) for png in pngs)
    assert "http://" not in report and "https://" not in report
    assert "<script" not in report.lower() and "<link" not in report.lower()  # nothing to fetch, nothing to run
    assert "Grader problems, not students' fault" in report
    assert "no single_head_attention.py or single_head_attention.ipynb" in report  # margaret is ungradable
    sandboxed = all(r.isolation == "bwrap" for r in results)
    assert ("NOT sandboxed" in report) != sandboxed


@pytest.mark.slow
def test_demo_report_parses_with_heatmap_and_diagnoses(demo):
    """The demo report read by an HTML parser: one heatmap row per student, cells in the right state, and
    misconceptions only from diagnoses: every mistake autograder/authoring/demo.py plants, under the students
    who made it, and nothing else."""
    out, _, results = demo
    document = parse_html((out / "report.html").read_text(encoding="utf-8"))
    cells = heatmap_cells(document)
    assert set(cells) == {r.student_id for r in results}
    for result in results:
        for question, (score, top) in result.question_scores().items():
            group = "quizzes" if question.startswith("quiz:") else next(
                t.assignment for t in result.tests if t.question == question)
            cell = cells[result.student_id][f"{group}/{question.removeprefix('quiz:')}"]
            if cell.attrs["data-state"] == "score":
                assert float(cell.attrs["data-share"]) == pytest.approx(score / top, abs=1e-4)
            else:
                assert score == 0
    assert all(c.attrs["data-state"] == "score" and c.attrs["data-share"] == "1.0000" for c in cells["ada"].values())
    margaret = cells["margaret"]
    assert {margaret[f"single_head_attention/{q}"].attrs["data-state"] for q in ("attention", "SingleHeadAttention")} \
        == {"not-attempted"}  # no file handed in
    # invalid YAML, read one answer at a time: graded, not unreadable
    assert margaret["quizzes/attention"].attrs["data-state"] == "score"
    assert {c.attrs["data-state"] for q, c in cells["alan"].items()} == {"not-attempted"}  # stubs, no answers
    legend = document.find("div", id="heatmap-legend").text()
    assert "not attempted" in legend and "could not be read" in legend and "grader problem" in legend
    assert not list(document.iter("p", id="no-diagnoses"))
    diagnosed = {row[1]: row[3] for row in table_rows(document, "diagnoses")}
    assert diagnosed == {"scale-by-dk": "linus", "softmax-wrong-dim": "linus", "mask-after-softmax": "linus",
                         "k-at-q": "margaret", "entropy-nan-at-zero": "barbara lee",
                         "keys-values-from-xq": "barbara lee"}
    # margaret's K Q^T also breaks the gradient check (a raw shape error in the backward pass): each of her
    # failures names k-at-q or points to the check of the same part that does; none is left undiagnosed
    assert not list(document.iter("table", id="undiagnosed"))
    margaret_result = next(r for r in results if r.student_id == "margaret")
    plan = plan_explanations(margaret_result)
    failed = [t for t in margaret_result.tests if t.status == "failed" and t.attempted]
    assert failed and all({d.mistake for d in t.diagnoses} | {m.diagnosis.mistake for m in plan.nearby(t)} == {"k-at-q"}
                          for t in failed)
    assert document.find("p", class_="item-stats-hidden")  # six students: no item statistics


@pytest.mark.slow
def test_demo_canvas_csv_matches_the_gradebook(demo):
    out, _, results = demo
    rows = parse_csv((out / "canvas.csv").read_text(encoding="utf-8"))
    header, points, students = rows[0], rows[1], rows[2:]
    from autograder import course, paths

    quizzes = course.quiz_ids()
    assert header == STUDENT_COLUMNS + [f"{a} code" for a in paths.ASSIGNMENTS] + [f"quiz {q}" for q in quizzes]
    first_quiz = len(STUDENT_COLUMNS) + len(paths.ASSIGNMENTS)
    quiz_cells = slice(first_quiz, first_quiz + len(quizzes))
    assert points[:5] == ["    Points Possible", "", "", "", ""]  # as Canvas exports it
    with open(out / "gradebook.csv", newline="", encoding="utf-8") as handle:
        gradebook = {row["student_id"]: row for row in csv.DictReader(handle)}
    assert sorted(row[0] for row in students) == sorted(gradebook) == sorted(r.student_id for r in results)
    assert any("" in row[quiz_cells] for row in students)  # the demo has quiz answers waiting for review
    for row in students:
        assert row[1] == row[2] == row[3] == row[4] == ""  # plain folders: no id, and a folder name is no login
        assert sum(float(cell) for cell in points[5:]) == pytest.approx(float(gradebook[row[0]]["max_score"]))
        for cell, quiz_id in zip(row[quiz_cells], quizzes):
            # a quiz with answers waiting for review is not final: Canvas gets no cell for it yet
            assert cell == gradebook[row[0]][f"quiz:{quiz_id}"] or (cell == "" and float(gradebook[row[0]]["pending"]) > 0)
        if "" not in row[5:]:
            assert sum(float(cell) for cell in row[5:]) == pytest.approx(float(gradebook[row[0]]["score"]))


@pytest.mark.slow
def test_demo_summary_is_printed(demo):
    out, run, _ = demo
    assert "Class summary: 6 students" in run.stderr
    assert "Hardest tests" in run.stderr and "Most common diagnosed mistakes" in run.stderr
    assert "[mask-after-softmax]" in " ".join(run.stderr.split())
    # every failure of the demo is diagnosed or in a part where a check found a mistake
    assert "Failed for no diagnosed reason:" not in run.stderr and "misconceptions (tags" not in run.stderr
    # margaret handed in no single_head_attention file: not handed in, not "could not be graded"
    from autograder import paths

    missing = [s for s in paths.DEMO_CLASS_DIR.iterdir() if any(
        not (s / f"{a}.py").exists() and not (s / f"{a}.ipynb").exists() for a in paths.ASSIGNMENTS)]
    assert "Could not be graded: 0 student(s)" in run.stderr
    assert f"Not handed in: {len(missing)} student(s)" in run.stderr
    assert "Grader problems (not the students' fault): 0 check(s)" in run.stderr
    assert str(out / "report.html") in run.stderr.replace("\n", "")


# ---------- (b) an empty class ----------

def test_empty_class_renders():
    report = class_report_html([])
    assert "No students were graded" in report and "<img" not in report
    assert parse_csv(canvas_csv([])) == [STUDENT_COLUMNS, ["    Points Possible", "", "", "", ""]]
    assert "no students" in plain_summary([])


def test_a_class_of_one_gets_its_tables_and_no_charts_and_two_get_charts():
    """Charts start at two students (a class of one's bars are its table); every figure stays in the tables."""
    one, two = all_failing_class()[:1], all_failing_class()[:2]
    report = class_report_html(one)
    assert not images(report) and "Charts are drawn for 2 or more students" in report
    for document in (report, class_report_html(two)):  # every link of the contents has its section
        assert all(f'id="{target}"' in document for target in re.findall(r'<a href="#([^"]+)"', document))
    assert 'href="#distribution"' not in report and 'href="#distribution"' in class_report_html(two)
    assert 'id="pass-rates"' in report and "test_values" in report
    assert len(images(class_report_html(two))) >= 2 and "Charts are drawn" not in class_report_html(two)


def test_grading_one_student_at_the_desk_never_imports_matplotlib(tmp_path):
    """One late submission: no chart to draw, so matplotlib is not imported at all (it was half a second)."""
    import subprocess
    import sys

    from autograder import paths

    folder = tmp_path / "class" / "late"
    folder.mkdir(parents=True)
    for name in paths.ASSIGNMENTS:
        (folder / f"{name}.py").write_text((paths.SOLUTIONS_DIR / name / f"{name}.py").read_text())
    code = ("import sys\nfrom autograder.cli import main\n"
            "main(['grade', sys.argv[1], '--out', sys.argv[2]], standalone_mode=False)\n"
            "print('matplotlib' in sys.modules)")
    run = subprocess.run([sys.executable, "-c", code, str(tmp_path / "class"), str(tmp_path / "out")],
                         cwd=paths.ROOT, capture_output=True, text=True)
    assert (tmp_path / "out" / "report.html").is_file(), run.stderr[-2000:]
    assert run.stdout.strip().splitlines()[-1] == "False", run.stdout[-2000:]


# ---------- (c) everyone fails; grader problems and a weak sandbox ----------

def all_failing_class() -> list[StudentResult]:
    tests = [check("test_shape", tags=("wrong transpose",)),
             check("test_values", points=2, tags=("wrong scale factor",)),
             check("test_layer", assignment="single_head_attention", question="attention",
                   tags=("mask after softmax",))]
    return [student(name, tests, [quiz([0, 0, 0])]) for name in ("ann", "ben", "cy")]


def test_all_failing_class_renders_sensible_text():
    results = all_failing_class()
    report = class_report_html(results)
    document = parse_html(report)
    assert [row[-1] for row in table_rows(document, "pass-rates")] == ["0%"] * 3
    cells = heatmap_cells(document)
    assert all(c.attrs["data-share"] == "0.0000" for row in cells.values() for c in row.values())
    assert "low discrimination" not in report  # all zeros: discrimination undefined, not "low"
    assert len(images(report)) == 2  # histogram and pass rates; no diagnoses, no item statistics for 3
    # tags say what a test targets: shown as targets, never as something a student did
    assert "wrong scale factor" in table_rows(document, "pass-rates")[1][1]  # the second test's targets
    assert not list(document.iter("table", id="diagnoses")) and diagnosed_mistakes(results) == []
    assert [row[1] for row in table_rows(document, "undiagnosed")] == ["3", "3", "3"]
    summary = plain_summary(results)
    assert "3 students, mean 0.0 / 7" in summary and "0%  attention_scores::test_shape" in summary
    assert "mask after softmax" not in summary and "no failed check named a mistake" in summary
    assert "Failed for no diagnosed reason: 9 failure(s) of 3 check(s), 3 student(s)" in summary
    rows = parse_csv(canvas_csv(results))
    assert rows[1][5:] == ["3.00", "1.00", "3.00"] and all(row[5:] == ["0", "0", "0"] for row in rows[2:])


def test_grader_problems_are_kept_apart_and_weak_sandbox_is_loud():
    bug = CheckResult("attention_scores::test_values", "values work", "attention_scores", "dot_scores", 0.0, 2.0,
                     GRADER_ERROR, output="A grader problem, not in your code.", grader_detail="KeyError: 'x'")
    results = [student("ann", [check("test_shape", PASSED), bug], isolation="rlimits"),
               student("ben", [check("test_shape", PASSED), check("test_values", PASSED, 2)])]
    report = class_report_html(results)
    section = report.split("Grader problems, not students' fault", 1)[1]
    assert "ann" in section and "KeyError: &#x27;x&#x27;" in section and "ben" not in section
    assert "NOT sandboxed" in report and "rlimits: ann" in report
    summary = plain_summary(results)
    assert "Grader problems (not the students' fault): 1 check(s)" in summary and "rlimits" in summary
    rows = {row[0]: row for row in parse_csv(canvas_csv(results))[2:]}
    assert rows["ann"][5] == "" and rows["ben"][5] == "3"  # a grader's 0 is never uploaded


# ---------- (d) hostile ids ----------

HOSTILE = ["<script>alert(1)</script>", 'a,b "c"', "Zoë Ñ", "line\nbreak", "Points Possible (really)"]


def test_hostile_ids_are_escaped_in_html():
    odd = Diagnosis("odd-one", "<u>title</u>", "<script>evidence()</script>")
    results = [student(i, [check("test_shape", tags=("<b>tag</b>",), output="<img src=x onerror=alert(2)>"),
                           check("test_values", output="<em>x</em>", diagnoses=(odd,))],
                       problems=("<i>file</i>.py: bad",)) for i in HOSTILE]
    report = class_report_html(results)
    assert "<script>alert(1)</script>" not in report and "&lt;script&gt;alert(1)&lt;/script&gt;" in report
    assert "a,b &quot;c&quot;" in report and "Zoë Ñ" in report
    assert "<b>tag</b>" not in report and "<i>file</i>" not in report and "onerror=alert(2)>" not in report
    assert "<u>title</u>" not in report and "<script>evidence" not in report and "<em>x</em>" not in report
    report.encode("utf-8")  # no lone surrogates or other unencodable text
    document = parse_html(report)  # escaped text never opens an element
    assert not list(document.iter("script")) and not list(document.iter("u")) and not list(document.iter("b"))
    assert set(heatmap_cells(document)) == set(HOSTILE)


def test_hostile_ids_round_trip_through_canvas_csv():
    results = [student(i, [check("test_shape", PASSED)]) for i in HOSTILE]
    text = canvas_csv(results).encode("utf-8").decode("utf-8")
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    assert rows[0]["Student"] == "    Points Possible"
    assert [row["SIS Login ID"] for row in rows[1:]] == [""] * len(HOSTILE)  # a folder name is never a login
    shown = [i.replace("\n", "\\n") for i in HOSTILE]  # a line break is shown, never a second line of the file
    assert [row["Student"] for row in rows[1:]] == shown[:-1] + [""]  # else Canvas takes it for the points row
    assert len(text.splitlines()) == len(rows) + 1


# ---------- (e) Canvas's import layout ----------

def test_canvas_header_and_points_possible_row():
    results = [student("ann", [check("test_shape", PASSED), check("test_values", points=2),
                               check("test_layer", PASSED, 4, assignment="single_head_attention")],
                       [quiz([1, 0.5], [1, 2], quiz_id="attention")])]
    rows = parse_csv(canvas_csv(results))
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section",
                       "attention_scores code", "single_head_attention code", "quiz attention"]
    assert rows[1] == ["    Points Possible", "", "", "", "", "3.00", "4.00", "3.00"]  # as Canvas exports it
    assert rows[2] == ["ann", "", "", "", "", "1", "4", "1.5"]  # a folder name is a name, never a login
    assert not any(word in column for column in rows[0][5:] for word in CANVAS_RESERVED)
    with_ids = parse_csv(canvas_csv(results, canvas_ids={"quiz attention": 4521}))
    assert with_ids[0][-1] == "quiz attention (4521)"  # Canvas matches "Title (id)" to an existing assignment


# ---------- (f) item analysis worked out by hand, and hidden for small classes ----------

HAND_QUIZ = [[1, 1, 1, 1], [1, 1, 0, 1], [1, 0, 0, 1], [0, 0, 1, 1]]


def hand_class(copies: int) -> list[StudentResult]:
    """`copies` students per answer pattern above, and one whose answers file was unreadable (left out)."""
    results = [student(f"s{copy}-{k}", quizzes=[quiz(scores)])
               for copy in range(copies) for k, scores in enumerate(HAND_QUIZ)]
    return results + [student("late", quizzes=[quiz([0, 0, 0, 0], problem="q.yaml: invalid YAML")])]


def test_item_analysis_by_hand():
    stats = {i.question_id: i for i in item_analysis(hand_class(1))}
    assert [s.takers for s in stats.values()] == [4, 4, 4, 4]
    # difficulty = mean score / max over the four takers
    assert [stats[q].difficulty for q in ("q-01", "q-02", "q-03", "q-04")] == [0.75, 0.5, 0.5, 1.0]
    # q-01: scores (1,1,1,0) against rest-of-quiz (3,2,1,2) -> means .75 and 2; cross products .25,0,-.25,0 -> r = 0
    assert stats["q-01"].discrimination == pytest.approx(0.0, abs=1e-12)
    # q-02: (1,1,0,0) vs rest (3,2,2,2): sxy = .5, sxx = 1, syy = .75 -> r = .5 / sqrt(.75) = 1/sqrt(3)
    assert stats["q-02"].discrimination == pytest.approx(1 / math.sqrt(3))
    # q-03: (1,0,0,1) vs rest (3,3,2,1): sxy = -.5, sxx = 1, syy = 2.75 -> r = -.5 / sqrt(2.75)
    assert stats["q-03"].discrimination == pytest.approx(-0.5 / math.sqrt(2.75))
    # q-04: everyone right: no variance, so no discrimination
    assert stats["q-04"].discrimination is None
    assert [stats[q].full_marks for q in stats] == [3, 2, 2, 4]
    assert not any(s.shown or s.flagged for s in stats.values())  # four takers: nothing is flagged
    # Eight students per pattern: every correlation is the same, and now the class is large enough to show it.
    large = {i.question_id: i for i in item_analysis(hand_class(8))}
    assert all(large[q].takers == 32 and large[q].shown for q in large)
    for question in stats:
        assert large[question].difficulty == pytest.approx(stats[question].difficulty)
        assert large[question].discrimination == pytest.approx(stats[question].discrimination, abs=1e-12)
    assert [q for q in large if large[q].flagged] == ["q-01", "q-03"]  # q-04 undefined, not "low"
    report = class_report_html(hand_class(8))
    assert table_row(report, "<code>q-03</code>").count("low discrimination") == 1
    assert '<td class="num">0.58</td>' in table_row(report, "<code>q-02</code>")
    assert "item-stats-hidden" not in report and len(images(report)) == 2  # histogram and items (no code tests)


def test_answers_pending_review_count_as_takers_and_stay_out_of_the_statistics():
    """Five hand in readable answers, three of them wait for review on q-02: five takers, two scored."""
    def waiting(scores: list[float]) -> QuizResult:
        graded = quiz(scores)
        items = tuple(replace(i, score=0.0, pending=True) if i.question_id == "q-02" else i for i in graded.items)
        return replace(graded, items=items, score=graded.score - scores[1], pending=1.0)
    results = [student(f"s{k}", quizzes=[quiz(scores)]) for k, scores in enumerate(HAND_QUIZ[:2])]
    results += [student(f"p{k}", quizzes=[waiting(scores)]) for k, scores in enumerate(HAND_QUIZ[1:])]
    stats = {i.question_id: i for i in item_analysis(results)}
    assert [(s.takers, s.pending, s.scored) for s in stats.values()] == [(5, 0, 5), (5, 3, 2), (5, 0, 5), (5, 0, 5)]
    assert stats["q-02"].difficulty == 1.0  # the two scored answers, both right: not diluted by pending zeros
    assert stats["q-01"].difficulty == pytest.approx(4 / 5)
    document = parse_html(class_report_html(results))
    assert table_rows(document, "item-counts-q")[1] == ["q-02", "1", "2 of 5 (3 pending review)"]
    assert document.find("div", id="review-banner") is not None
    assert "Review unfinished: 3 quiz point(s) of 3 student(s)" in document.find("div", id="review-banner").text()
    assert "review-banner" not in class_report_html(results[:2])  # nothing waits: no banner


def test_class_of_four_shows_no_item_statistics_and_says_why():
    report = class_report_html(hand_class(1))
    document = parse_html(report)
    note = document.find("p", class_="item-stats-hidden").text()
    assert f"shown from {ITEM_STATS_MIN_TAKERS} takers" in note and "q: 4 of the class's 5" in note
    assert "sampling error" in note and "flag line (0.2)" in note
    headers = {th.text() for th in document.iter("th")}
    assert "difficulty" not in headers and "discrimination" not in headers and "low discrimination" not in report
    assert table_rows(document, "item-counts-q") == [["q-01", "1", "3 of 4"], ["q-02", "1", "2 of 4"],
                                                      ["q-03", "1", "2 of 4"], ["q-04", "1", "4 of 4"]]
    assert len(images(report)) == 1  # the score histogram only: no item chart


def test_charts_are_png_and_deterministic():
    first = plots.score_histogram_png([0, 35.5, 100])
    assert first.startswith(PNG_MAGIC) and first == plots.score_histogram_png([0, 35.5, 100])
    assert b"Software" not in first


# ---------- (h) one fault, one explanation ----------

def test_one_mistake_failing_three_checks_is_explained_once():
    ben = diagnosed_class()[1]  # masking after the softmax fails three checks worth 1, 2 and 1 points
    raw = feedback_markdown(ben)
    markdown = shown_text(raw)
    assert markdown.count(MASK_AFTER.evidence) == 1 and markdown.count("Mistake: ") == 1
    anchor = markdown.split("Mistake: ", 1)[1].split("Same mistake as in", 1)[0]
    assert "It costs 4 points in 3 checks" in anchor
    assert "attention: Causal and padding masks (2 points)" in anchor
    assert "SingleHeadAttention: A causal mask hides future keys in self-attention (1 point)" in anchor
    pointers = [line for line in markdown.splitlines() if "Same mistake as in" in line]
    assert len(pointers) == 2 and all('"attention_weights: forbidden keys get weight' in p for p in pointers)
    assert "2 points lost here" in pointers[0] and "1 point lost here" in pointers[1]
    assert "row 0 sums to 0.31" not in markdown  # a pointer's symptom is covered by the explanation
    assert "**the mask is applied after the softmax**: 4 points in 3 checks" in raw
    # Gradescope shows the same: one test explains, two point back; the summary names the mistake once.
    data = results_json(ben)
    outputs = [shown_text(t["output"]) for t in data["tests"]
               if t.get("status") == "failed" and "quiz" not in t["tags"]]
    assert len(outputs) == 3 and sum(MASK_AFTER.evidence in o for o in outputs) == 1
    assert sum(o.startswith("Same mistake as in") for o in outputs) == 2
    assert shown_text(data["output"]).count("the mask is applied after the softmax") == 1


def test_the_explanation_sits_on_a_check_the_student_can_see():
    tests = [check("test_a", diagnoses=(MASK_AFTER,), visibility="hidden", name="secret probe"),
             check("test_b", diagnoses=(MASK_AFTER,), name="open probe", points=2)]
    result = student("ann", tests)
    markdown = shown_text(feedback_markdown(result))
    assert "secret probe" not in markdown and markdown.count(MASK_AFTER.evidence) == 1
    assert "also fails: 1 hidden check (1 point). It costs 3 points in 2 checks." in markdown  # counted, not named
    outputs = {t["name"]: shown_text(t["output"]) for t in results_json(result)["tests"]}
    assert MASK_AFTER.evidence in outputs["dot_scores: open probe"]
    assert outputs["dot_scores: secret probe"].startswith('Same mistake as in "dot_scores: open probe"')


def test_several_matching_mistakes_are_all_named_and_none_is_claimed():
    eve = diagnosed_class()[4]
    markdown = feedback_markdown(eve)
    assert MASK_AFTER.evidence in markdown and RENORMALISED.evidence in markdown
    assert "matches more than one known mistake" in markdown
    stats = {m.mistake: m for m in diagnosed_mistakes([eve])}
    assert stats["mask-after-softmax"].made == () and stats["mask-after-softmax"].possible == ("eve",)
    # once another check names one of them alone, that one is proven and the other is not even possible
    proven = student("eve", [*eve.tests, check("test_extra", diagnoses=(MASK_AFTER,))])
    stats = {m.mistake: m for m in diagnosed_mistakes([proven])}
    assert stats["mask-after-softmax"].made == ("eve",) and stats["mask-after-softmax-renormalised"].possible == ()


def test_not_attempted_parts_are_called_so_in_feedback():
    fay = diagnosed_class()[5]  # handed in no single_head_attention file: one line says so, not one per check
    markdown = feedback_markdown(fay)
    assert not [line for line in markdown.splitlines() if "A causal mask hides" in line]
    assert "single\\_head\\_attention was not handed in (see above), so its checks score 0 of 5 points." in markdown
    gil = student("gil", [check("test_causal", attempted=False, question="SingleHeadAttention",
                                assignment="single_head_attention", name="A causal mask hides future keys"),
                          check("test_shape", PASSED, assignment="single_head_attention")])
    lines = [line for line in feedback_markdown(gil).splitlines() if "A causal mask hides" in line]
    assert lines == ["- **SingleHeadAttention** — A causal mask hides future keys: not attempted (0/1)"]


# ---------- (i) the class report counts diagnoses, not tags ----------

def test_report_counts_diagnosed_students_and_lists_the_undiagnosed_apart():
    results = diagnosed_class()
    document = parse_html(class_report_html(results))
    mistakes = {row[1]: row for row in table_rows(document, "diagnoses")}
    assert list(mistakes) == ["mask-after-softmax", "scale-by-dk", "mask-after-softmax-renormalised"]
    assert mistakes["mask-after-softmax"][2:5] == ["2", "ben, cy", "eve"]  # made: ben, cy; possibly: eve
    assert mistakes["scale-by-dk"][2:4] == ["1", "cy"]
    assert mistakes["mask-after-softmax-renormalised"][2:5] == ["0", "—", "eve"]
    everyone_listed = " ".join(" ".join(row) for row in mistakes.values())
    assert "dee" not in everyone_listed  # dee's failures matched no mistake model
    assert "graph cut" not in everyone_listed and "inverted mask" not in everyone_listed  # tags are not mistakes
    undiagnosed = table_rows(document, "undiagnosed")
    assert [row[0].split(":")[0] for row in undiagnosed] == ["dot_scores", "scaled_dot_scores"]
    assert all(row[1] == "1" and "dee" in row[2] for row in undiagnosed)
    assert "entries [0, 2, 1] and [0, 3, 4] differ by 0.7" in undiagnosed[0][2]  # the symptom, as the check saw it
    assert not any(name in " ".join(map(" ".join, undiagnosed)) for name in ("ben", "cy", "eve", "fay", "gus"))
    summary = plain_summary(results)
    assert "2 students  the mask is applied after the softmax [mask-after-softmax]" in summary
    assert "Failed for no diagnosed reason: 2 failure(s) of 2 check(s), 1 student(s)" in summary


def test_report_heatmap_shows_every_cell_state_with_a_legend():
    results = diagnosed_class()
    document = parse_html(class_report_html(results))
    cells = heatmap_cells(document)
    rows = [row.attrs["data-student"] for row in document.find("table", id="heatmap").find("tbody").iter("tr")]
    assert rows[0] == "fay" and rows[-1] == "ada"  # weakest first
    state = {(s, c): td.attrs["data-state"] for s, row in cells.items() for c, td in row.items()}
    assert state["fay", "single_head_attention/attention"] == "not-attempted"      # no file handed in
    assert state["fay", "quizzes/attention"] == "not-attempted"                    # no answers file
    assert state["gus", "attention_scores/dot_scores"] == "unreadable"             # a broken notebook
    assert state["hal", "single_head_attention/attention"] == "grader-problem"
    assert cells["ben"]["single_head_attention/attention"].attrs["data-share"] == "0.5000"
    assert cells["ben"]["single_head_attention/attention"].text() == "50%"
    assert {td.text() for (s, c), td in ((k, cells[k[0]][k[1]]) for k in state)
            if state[s, c] != "score"} == {"—", "file", "grader"}
    legend = document.find("div", id="heatmap-legend")
    assert {span.attrs["class"] for span in legend.iter("span", class_="swatch")} >= {
        "swatch not-attempted", "swatch unreadable", "swatch grader-problem"}
    footer = [td.text() for td in document.find("table", id="heatmap").find("tfoot").iter("td")]
    assert footer[0] == "75%"  # dot_scores over all eight students: gus (an unreadable file) counts 0 (6 of 8)


# ---------- (j) chart labels never overlap ----------

def overlapping_labels(figure) -> list[tuple[str, str]]:
    """Pairs of tick labels whose drawn boxes intersect, measured with the figure's own renderer."""
    renderer = figure.canvas.get_renderer()
    pairs = []
    for axes in figure.axes:
        labels = [t for t in axes.get_yticklabels() + axes.get_xticklabels() if t.get_visible() and t.get_text()]
        boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in labels]
        pairs += [(a, b) for (a, box_a), (b, box_b) in combinations(boxes, 2) if box_a.overlaps(box_b)]
    return pairs


def test_chart_labels_never_overlap():
    from autograder.reporting.class_stats import ItemStats, MistakeStats

    items = [ItemStats("attention", f"attention-item-{k:02d}", 1.0, 40, k / 60, (k % 9 - 4) / 5, 10)
             for k in range(40)]
    mistakes = [MistakeStats(f"m-{k}", f"a long title in the lesson's words, number {k}, that will need to wrap "
                             "over several lines", ("a",) * k, ("b",), ("t",)) for k in range(15)]
    figures = [plots.item_statistics_figure(items), plots.item_statistics_figure(items[:1]),
               plots.mistakes_figure(mistakes),
               plots.pass_rate_figure([f"test_function_number_{k}" for k in range(50)], [0.5] * 50, ["a"] * 50)]
    for figure in figures:
        assert overlapping_labels(figure) == []
    # the check itself can fail: the same labels squeezed into a fixed height do overlap
    squeezed = plots.build(lambda ax: ax.set_yticks(range(40), labels=[i.question_id for i in items]), 6, 3)
    assert overlapping_labels(squeezed)


# ---------- (k) the report in a real browser ----------

@pytest.mark.skipif(report_screenshots.chromium() is None,
                    reason="chromium is not installed (apt-get install chromium); the HTML-parsing tests still run")
def test_report_renders_in_headless_chromium(tmp_path):
    import numpy
    from PIL import Image

    report = tmp_path / "report.html"
    report.write_text(class_report_html(diagnosed_class()), encoding="utf-8")
    png = report_screenshots.screenshot(report, tmp_path / "report.png")
    with Image.open(png) as image:
        pixels = numpy.asarray(image.convert("RGB")).reshape(-1, 3).astype(int)
    assert image.size == (report_screenshots.WIDTH, report_screenshots.PAGE)

    def area(colour: str) -> int:  # pixels within 3 levels of the colour: the browser painted those cells
        rgb = numpy.array([int(colour[i:i + 2], 16) for i in (1, 3, 5)])
        return int((numpy.abs(pixels - rgb).max(axis=1) <= 3).sum())

    assert area("#0571b0") > 5000  # full-marks cells, the most common in this class
    assert area("#ca0020") > 300 and area("#3b3b3b") > 300  # a 0% cell; the grader-problem cell
    assert area("#e0e0e0") > 300  # not-attempted cells


@pytest.mark.parametrize("name", ["studenttest", "Test Student", "Student, Test"])
def test_canvas_test_student_is_graded_but_in_no_class_statistic(name):
    """Canvas's student view (the teacher trying the assignment) is no one's work: listed and graded, but no
    count, mean, full-marks or pass rate of the class includes it (found by an instructor walk)."""
    from autograder.reporting.class_stats import score_overview, test_stats

    right = check("test_dot_scores_values", PASSED)
    wrong = check("test_dot_scores_values")
    students = [student("ann", [wrong]), student("bob", [wrong])]
    with_view = students + [student(name, [right])]
    assert score_overview(with_view) == score_overview(students)
    assert score_overview(with_view)["full_marks"] == 0 and score_overview(with_view)["students"] == 2
    assert [s.pass_rate for s in test_stats(with_view)] == [0.0]
    assert name in plain_summary(with_view) or name in class_report_html(with_view)  # still listed


def test_an_assignment_not_handed_in_is_one_line_of_feedback_not_one_per_check():
    """A student who handed in nothing read the same reason under every check (117 lines; found by an
    instructor walk): one line per missing assignment, with the points it costs."""
    missing = "no attention_scores.py or attention_scores.ipynb in the submission"
    tests = [check(f"test_{n}", output=missing) for n in ("a", "b", "c", "d")]
    tests.append(check("test_layer", assignment="single_head_attention", output="wrong shape"))
    markdown = feedback_markdown(student("ann", tests, problems=(missing,)))
    shown = shown_text(markdown)
    assert shown.count("attention_scores.py or attention_scores.ipynb") == 1  # said once, in the problems
    assert "attention_scores was not handed in (see above), so its checks score 0 of 4 points." in shown
    assert "test_layer works" in shown and "test_a works" not in shown


def test_an_item_short_of_30_scored_answers_says_the_threshold_where_its_statistics_would_be():
    """A class of 32 takers in which 4 answers to q-02 wait for review: q-02 has 28 scored answers, so its
    difficulty and discrimination are not shown, and the cell says why and how many it has."""
    def waiting(scores: list[float]) -> QuizResult:
        graded = quiz(scores)
        items = tuple(replace(i, score=0.0, pending=True) if i.question_id == "q-02" else i for i in graded.items)
        return replace(graded, items=items, score=graded.score - scores[1], pending=1.0)
    results = hand_class(8)[:-1]
    results[:4] = [student(r.student_id, quizzes=[waiting(HAND_QUIZ[k])]) for k, r in enumerate(results[:4])]
    document = parse_html(class_report_html(results))
    rows = {row[0]: row for row in table_rows(document, "item-stats-q") if row and row[0].startswith("q-")}
    assert rows["q-02"][2:5] == ["32", "4", f"not shown: {ITEM_STATS_MIN_TAKERS} scored answers needed, 28 now "
                                             "(the rest wait for review)"]
    assert rows["q-01"][4] != "" and "not shown" not in " ".join(rows["q-01"])  # 32 scored: shown


def repairs_paragraph(results) -> str:
    found = re.search(r'<p id="no-repairs">(.*?)</p>', class_report_html(results))
    return html.unescape(found.group(1)) if found else ""


def test_the_no_repair_sentence_says_what_is_true_of_the_failed_parts():
    """The search runs only on failed parts no mistake names: its sentence never reads as a fact about parts it
    skipped (a class whose failures are all named by mistakes), and counts what it did search."""
    named = [student("ann", [check("f", question="f", diagnoses=(MASK_AFTER,), output="wrong")]),
             student("bob", [check("g", question="g", diagnoses=(MASK_AFTER,), output="wrong")])]
    text = repairs_paragraph(named)
    assert "small edits away" not in text and "2 failed parts named by a diagnosed or declared mistake" in text, text
    searched = [student("cy", [replace(check("f", question="f", output="wrong"), repair_tried=12)])]
    assert repairs_paragraph(searched) == ("None of the 1 failed part that no mistake named was one or two small "
                                           "edits away from passing.")
    both = repairs_paragraph(named + searched)
    assert "None of the 1 failed part" in both and "2 failed parts named" in both, both
    assert repairs_paragraph([student("dee", [check("f", status=PASSED)])]) == \
        "No part failed, so no repair was searched for."


def test_a_part_python_cannot_parse_is_shown_as_the_legend_says_for_it():
    from autograder.reporting.heatmap import LEGEND, NOT_ATTEMPTED, UNREADABLE, code_cell
    broken = check("f", question="split_heads", attempted=False,
                   output="split_heads: name 'split_heads' is not defined in your file. Running your file stopped "
                          "with SyntaxError: invalid syntax (line 3), so later definitions may be missing.")
    stub = check("f", question="split_heads", attempted=False,
                 output="split_heads is not implemented yet (it still raises NotImplementedError).")
    assert code_cell(student("ann", [broken]), [broken]).state == UNREADABLE
    assert "cannot parse" in LEGEND[UNREADABLE]
    assert code_cell(student("bob", [stub]), [stub]).state == NOT_ATTEMPTED
