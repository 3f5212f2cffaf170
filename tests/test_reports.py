"""Class-level reports: report.html, canvas.csv and the terminal summary, for the demo class and for
hand-made classes (empty, all failing, hostile ids, a quiz whose item statistics are worked out by hand)."""
from __future__ import annotations

import base64
import csv
import html
import io
import math
import re
import subprocess
import sys

import pytest

from autograder import paths
from autograder.grading.results import FAILED, GRADER_ERROR, PASSED, QuizItem, QuizResult, StudentResult, load
from autograder.grading.results import TestResult as CheckResult  # aliased so pytest does not collect it
from autograder.reporting import plots
from autograder.reporting.canvas import STUDENT_COLUMNS, canvas_csv
from autograder.reporting.class_report import class_report_html
from autograder.reporting.class_stats import item_analysis
from autograder.reporting.summary import plain_summary

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
CANVAS_RESERVED = ("Current Score", "Current Points", "Current Grade", "Final Score", "Final Points",
                   "Final Grade", "Override Score", "Override Grade", "Override Status")


# ---------- building classes in memory ----------

def check(function: str, status: str = FAILED, points: float = 1.0, tags: tuple[str, ...] = (),
          assignment: str = "attention_scores", question: str = "dot_scores", output: str = "") -> CheckResult:
    return CheckResult(test_id=f"{assignment}::{function}", name=f"{function} works", assignment=assignment,
                      question=question, score=points if status == PASSED else 0.0, max_score=points,
                      status=status, output=output, tags=tags)


def quiz(scores: list[float], maxima: list[float] | None = None, quiz_id: str = "q", problem: str | None = None):
    maxima = maxima or [1.0] * len(scores)
    items = tuple(QuizItem(f"{quiz_id}-{i + 1:02d}", s, m) for i, (s, m) in enumerate(zip(scores, maxima)))
    return QuizResult(quiz_id, sum(scores), sum(maxima), items, problem)


def student(student_id: str, tests=(), quizzes=(), **extra) -> StudentResult:
    return StudentResult(student_id, tuple(tests), tuple(quizzes), isolation=extra.pop("isolation", "bwrap"), **extra)


def parse_csv(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text, newline="")))


def images(report: str) -> list[bytes]:
    return [base64.b64decode(data) for data in re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', report)]


def table_row(report: str, first_cell: str) -> str:
    """The <tr> whose first cell is exactly first_cell (already escaped)."""
    match = re.search(rf"<tr><td>{re.escape(first_cell)}</td>.*?</tr>", report)
    assert match, f"no table row starting with {first_cell!r}"
    return match.group(0)


# ---------- (a) the demo class, graded once through the command line ----------

@pytest.fixture(scope="session")
def demo(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo-report")
    run = subprocess.run([sys.executable, "-m", "autograder.cli", "grade", "--out", str(out)], cwd=paths.ROOT,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
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
    assert len(pngs) >= 3 and all(png.startswith(PNG_MAGIC) for png in pngs)
    assert "http://" not in report and "https://" not in report
    assert "<script" not in report.lower() and "<link" not in report.lower()  # nothing to fetch, nothing to run
    assert "wrong scale factor" in report and "linus" in table_row(report, "wrong scale factor")
    assert "corrected point-biserial" in report
    assert "Grader problems, not students' fault" in report
    assert "no single_head_attention.py or single_head_attention.ipynb" in report  # margaret is ungradable
    sandboxed = all(r.isolation == "bwrap" for r in results)
    assert ("NOT sandboxed" in report) != sandboxed


@pytest.mark.slow
def test_demo_canvas_csv_matches_the_gradebook(demo):
    out, _, results = demo
    rows = parse_csv((out / "canvas.csv").read_text(encoding="utf-8"))
    header, points, students = rows[0], rows[1], rows[2:]
    assert header == STUDENT_COLUMNS + ["attention_scores code", "single_head_attention code",
                                        "quiz attention", "quiz attention_score"]
    assert points[:5] == ["Points Possible", "", "", "", ""]
    with open(out / "gradebook.csv", newline="", encoding="utf-8") as handle:
        gradebook = {row["student_id"]: row for row in csv.DictReader(handle)}
    assert sorted(row[3] for row in students) == sorted(gradebook) == sorted(r.student_id for r in results)
    assert any("" in row[7:9] for row in students)  # the demo has quiz answers waiting for review
    for row in students:
        assert row[0] == row[3] and row[1] == row[2] == row[4] == ""
        assert sum(float(cell) for cell in points[5:]) == pytest.approx(float(gradebook[row[3]]["max_score"]))
        for cell, quiz_id in ((row[7], "attention"), (row[8], "attention_score")):
            # a quiz with answers waiting for review is not final: Canvas gets no cell for it yet
            assert cell == gradebook[row[3]][f"quiz:{quiz_id}"] or (cell == "" and float(gradebook[row[3]]["pending"]) > 0)
        if "" not in row[5:]:
            assert sum(float(cell) for cell in row[5:]) == pytest.approx(float(gradebook[row[3]]["score"]))


@pytest.mark.slow
def test_demo_summary_is_printed(demo):
    out, run, _ = demo
    assert "Class summary: 6 students" in run.stderr
    assert "Hardest tests" in run.stderr and "Most common misconceptions" in run.stderr
    assert "Ungradable submissions: 1 student(s)" in run.stderr
    assert "Grader problems (not the students' fault): 0 check(s)" in run.stderr
    assert str(out / "report.html") in run.stderr.replace("\n", "")


# ---------- (b) an empty class ----------

def test_empty_class_renders():
    report = class_report_html([])
    assert "No students were graded" in report and "<img" not in report
    assert parse_csv(canvas_csv([])) == [STUDENT_COLUMNS, ["Points Possible", "", "", "", ""]]
    assert "no students" in plain_summary([])


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
    assert report.count('<td class="num">0%</td>') == 3 + 3  # three tests at 0%, three students at 0%
    assert "ann, ben, cy" in table_row(report, "wrong scale factor")
    assert "low discrimination" not in report  # all zeros: discrimination undefined, not "low"
    assert len(images(report)) == 3  # histogram, pass rates, misconceptions; no item chart without data
    summary = plain_summary(results)
    assert "3 students, mean 0.0 / 7" in summary and "0%  attention_scores::test_shape" in summary
    assert "3 students  mask after softmax" in summary
    rows = parse_csv(canvas_csv(results))
    assert rows[1][5:] == ["3", "1", "3"] and all(row[5:] == ["0", "0", "0"] for row in rows[2:])


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
    rows = {row[3]: row for row in parse_csv(canvas_csv(results))[2:]}
    assert rows["ann"][5] == "" and rows["ben"][5] == "3"  # a grader's 0 is never uploaded


# ---------- (d) hostile ids ----------

HOSTILE = ["<script>alert(1)</script>", 'a,b "c"', "Zoë Ñ", "line\nbreak", "Points Possible (really)"]


def test_hostile_ids_are_escaped_in_html():
    results = [student(i, [check("test_shape", tags=("<b>tag</b>",), output="<img src=x onerror=alert(2)>")],
                       problems=("<i>file</i>.py: bad",)) for i in HOSTILE]
    report = class_report_html(results)
    assert "<script>alert(1)</script>" not in report and "&lt;script&gt;alert(1)&lt;/script&gt;" in report
    assert "a,b &quot;c&quot;" in report and "Zoë Ñ" in report
    assert "<b>tag</b>" not in report and "<i>file</i>" not in report and "onerror=alert(2)>" not in report
    report.encode("utf-8")  # no lone surrogates or other unencodable text


def test_hostile_ids_round_trip_through_canvas_csv():
    results = [student(i, [check("test_shape", PASSED)]) for i in HOSTILE]
    text = canvas_csv(results).encode("utf-8").decode("utf-8")
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    assert rows[0]["Student"] == "Points Possible"
    assert [row["SIS Login ID"] for row in rows[1:]] == HOSTILE
    assert [row["Student"] for row in rows[1:]] == HOSTILE[:-1] + [""]  # else Canvas takes it for the points row


# ---------- (e) Canvas's import layout ----------

def test_canvas_header_and_points_possible_row():
    results = [student("ann", [check("test_shape", PASSED), check("test_values", points=2),
                               check("test_layer", PASSED, 4, assignment="single_head_attention")],
                       [quiz([1, 0.5], [1, 2], quiz_id="attention")])]
    rows = parse_csv(canvas_csv(results))
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section",
                       "attention_scores code", "single_head_attention code", "quiz attention"]
    assert rows[1] == ["Points Possible", "", "", "", "", "3", "4", "3"]
    assert rows[2] == ["ann", "", "", "ann", "", "1", "4", "1.5"]
    assert not any(word in column for column in rows[0][5:] for word in CANVAS_RESERVED)
    with_ids = parse_csv(canvas_csv(results, canvas_ids={"quiz attention": 4521}))
    assert with_ids[0][-1] == "quiz attention (4521)"  # Canvas matches "Title (id)" to an existing assignment


# ---------- (f) item analysis worked out by hand ----------

def test_item_analysis_by_hand():
    # Four takers of a three-item 0/1 quiz, and one whose answers file was unreadable (left out).
    results = [student("s1", quizzes=[quiz([1, 1, 1, 1])]), student("s2", quizzes=[quiz([1, 1, 0, 1])]),
               student("s3", quizzes=[quiz([1, 0, 0, 1])]), student("s4", quizzes=[quiz([0, 0, 1, 1])]),
               student("s5", quizzes=[quiz([0, 0, 0, 0], problem="q.yaml: invalid YAML")])]
    stats = {i.question_id: i for i in item_analysis(results)}
    assert [s.takers for s in stats.values()] == [4, 4, 4, 4]
    # difficulty = mean score / max over the four takers
    assert [stats[q].difficulty for q in ("q-01", "q-02", "q-03", "q-04")] == [0.75, 0.5, 0.5, 1.0]
    # q-01: scores (1,1,1,0) against rest-of-quiz (3,2,1,2) -> means .75 and 2; cross products .25,0,-.25,0 -> r = 0
    assert stats["q-01"].discrimination == pytest.approx(0.0, abs=1e-12) and stats["q-01"].flagged
    # q-02: (1,1,0,0) vs rest (3,2,2,2): sxy = .5, sxx = 1, syy = .75 -> r = .5 / sqrt(.75) = 1/sqrt(3)
    assert stats["q-02"].discrimination == pytest.approx(1 / math.sqrt(3)) and not stats["q-02"].flagged
    # q-03: (1,0,0,1) vs rest (3,3,2,1): sxy = -.5, sxx = 1, syy = 2.75 -> r = -.5 / sqrt(2.75)
    assert stats["q-03"].discrimination == pytest.approx(-0.5 / math.sqrt(2.75)) and stats["q-03"].flagged
    # q-04: everyone right: no variance, so no discrimination and no flag
    assert stats["q-04"].discrimination is None and not stats["q-04"].flagged
    report = class_report_html(results)
    assert table_row(report, "<code>q-03</code>").count("low discrimination") == 1
    assert '<td class="num">0.58</td>' in table_row(report, "<code>q-02</code>")


def test_charts_are_png_and_deterministic():
    first = plots.score_histogram_png([0, 35.5, 100])
    assert first.startswith(PNG_MAGIC) and first == plots.score_histogram_png([0, 35.5, 100])
    assert b"Software" not in first
