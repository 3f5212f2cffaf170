"""What the teacher and the student read is true, whole and short (issue 30), read from what `attnkit grade`
wrote for a class with a blank handout, a missing file, an unreadable file and missing quiz files; and the
quiz feedback of every shipped question."""
from __future__ import annotations

import re
import subprocess
import sys

import pytest

from autograder import paths
from autograder.grading.quizzes import feedback_for
from autograder.quiz import load_quizzes
from autograder.quiz.grade import grade_question
from autograder.reporting.summary import shortened
from tests.classroom import solution_text, stub_text, write_class

TF_WRONG = "att-02: true\n"  # a wrong verdict: the feedback shows the key


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    base = tmp_path_factory.mktemp("words")
    classdir = write_class(base / "class", {
        "blank": {f"{a}.py": stub_text(a) for a in paths.ASSIGNMENTS},          # the handout, untouched
        "half": {"attention_scores.py": solution_text("attention_scores"), "quiz_attention.yaml": TF_WRONG},
        "broken": {"attention_scores.py": b"\x00\x01\x02binary", **{  # every other assignment handed in
            f"{a}.py": solution_text(a) for a in paths.ASSIGNMENTS if a != "attention_scores"}},
        "full": {f"{a}.py": solution_text(a) for a in paths.ASSIGNMENTS},
    })
    out = base / "out"
    run = subprocess.run([sys.executable, "-m", "autograder.cli", "grade", str(classdir), "--out", str(out),
                          "--workers", "1"], cwd=paths.ROOT, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stderr[-3000:]
    return out, run.stderr, (out / "summary.txt").read_text(encoding="utf-8")


def attention_entries(summary: str) -> list[str]:
    return [line.strip() for line in summary.split("Needs your attention (every student, every reason):")[1]
            .splitlines() if line.startswith("  ")]


@pytest.mark.slow
def test_a_file_not_handed_in_is_not_called_ungradable(graded):
    _, terminal, summary = graded
    terminal = " ".join(terminal.split())
    assert "Could not be graded: 1 student(s) (a file handed in that could not be read or was refused)" in terminal
    assert "Not handed in: 1 student(s) without a code file" in terminal
    entries = attention_entries(summary)
    assert "half: not handed in: no single_head_attention.py or single_head_attention.ipynb in the submission" \
        in entries
    assert not [e for e in entries if e.startswith("half: not graded")]


@pytest.mark.slow
def test_quiz_files_that_do_not_exist_are_not_answers_not_read(graded):
    _, terminal, summary = graded
    assert "quiz answers not read" not in terminal and "quiz answers not read" not in summary
    entries = attention_entries(summary)
    assert "half: not handed in: quiz attention_score: no answer file quiz_attention_score.yaml handed in, " \
           "quiz scored 0" in entries


@pytest.mark.slow
def test_a_blank_handout_is_one_line_to_the_student_and_one_entry_for_the_teacher(graded):
    out, _, summary = graded
    feedback = (out / "feedback" / "blank.md").read_text(encoding="utf-8")
    assert "not implemented yet" not in feedback
    assert feedback.count("You handed in the blank handout") == 1
    entries = [e for e in attention_entries(summary) if e.startswith("blank:")]
    *others, last = paths.ASSIGNMENTS
    assert entries == [f"blank: blank handout: {', '.join(others)} and {last} handed in as "
                       "given out (nothing implemented), no quiz answer file"]
    assert (out / "feedback" / "full.md").read_text(encoding="utf-8").count("blank handout") == 0


@pytest.mark.slow
def test_the_terminal_cuts_no_word(graded):
    _, terminal, _ = graded
    for line in terminal.splitlines():
        assert not re.search(r"\w\.\.\.$|\w…$", line) or line.endswith(" …"), line


@pytest.mark.parametrize("text", ["short enough", "word " * 40, "a" * 300, "x" * 100 + " " + "y" * 30,
                                  "quiz attention: " + "averyveryverylongwordwithoutspaces" * 5])
def test_shortened_ends_on_a_whole_word_with_an_ellipsis(text):
    cut = shortened(text, 110)
    assert len(cut) <= 110
    if len(text) <= 110:
        assert cut == text
    else:
        assert cut.endswith(" …") and text.startswith(cut[:-2])
        rest = text[len(cut) - 2:]
        assert not re.match(r"\w", rest) or " " not in text[:110], (cut, rest)  # a word is never cut


def test_quiz_feedback_never_says_the_expected_answer_twice():
    """`Expected: False. False. ...`: an explanation that opens with the key is not preceded by it again."""
    for quiz in load_quizzes(paths.QUIZZES_DIR).values():
        for question in quiz.questions:
            if question.type != "true_false":
                continue
            item = grade_question(question, "false" if question.answer else "true")
            text = feedback_for(item)
            assert "Expected:" in text and item.score == 0
            answer = question.correct_answer_text()
            assert not re.search(rf"Expected: {answer}\W+{answer}\b", text, re.I), text
            assert question.explanation.strip().split(".", 1)[-1].strip()[:20] in text


def grader_docstrings():
    import ast

    for path in sorted(paths.GRADERS_DIR.glob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                yield node.name, ast.get_docstring(node, clean=False) or ""


def test_every_check_title_is_whole():
    """A title wrapped over two source lines ("... keeps the graph and" / "leaves its inputs alone") is shown
    whole: the first paragraph of the docstring, never its first line alone."""
    from autograder.grading.plugin import check_title

    wrapped = 0
    for name, doc in grader_docstrings():
        title = check_title(doc, name)
        paragraph = " ".join(doc.strip().split("\n\n", 1)[0].split())
        assert title == paragraph, name
        assert not re.search(r"\b(and|or|the|a|of|to|with|by|for|in|,)$", title), (name, title)
        wrapped += "\n" in doc.strip().split("\n\n", 1)[0]
    assert wrapped, "some title is wrapped in the source, or this test proves nothing"


@pytest.mark.slow
def test_a_wrapped_title_reaches_the_student_whole(graded):
    import json

    out, _, _ = graded
    names = [t["name"] for t in json.loads((out / "results" / "full.json").read_text(encoding="utf-8"))["tests"]]
    assert any(n.endswith("keeps the graph and leaves its inputs alone") for n in names)
    assert not any(n.endswith(" and") for n in names)


def test_one_class_mean_stated_everywhere():
    """The terminal, the report's overview and its heatmap footer give one mean, over every student, with a part
    not handed in counted 0, and say so."""
    from autograder.reporting.class_report import class_report_html
    from autograder.reporting.class_stats import CLASS_MEAN
    from autograder.reporting.summary import plain_summary
    from tests.report_classes import check, student

    results = [student("ann", [check("test_a", "passed", 2.0), check("test_b", "passed", 2.0)]),
               student("bob", [check("test_a", "failed", 2.0, attempted=False), check("test_b", "passed", 2.0)],
                       problems=("no attention_scores.py or attention_scores.ipynb in the submission",))]
    report = class_report_html(results)
    assert f"mean 3.0 / 4 ({CLASS_MEAN})" in plain_summary(results)
    assert f"class mean ({CLASS_MEAN})" in report and "(scored)" not in report
    footer = report.split("<tfoot>")[1].split("</tfoot>")[0]
    assert '<td class="cell num">75%</td>' in footer and '<td class="num">3.0</td>' in footer  # 4 of 4, 2 of 4


def test_the_class_mean_shows_pending_points_as_every_score_does(tmp_path):
    """Points waiting for review are not in the one class mean (nor in any score); they are written beside it
    as beside a student's score ("51 + 4 pending"), the mean of every student's pending points, in the
    terminal, the overview and the heatmap footer; the banner names the command that reviews them."""
    from dataclasses import replace

    from autograder import paths
    from autograder.reporting.class_report import class_report_html
    from autograder.reporting.class_stats import CLASS_MEAN
    from autograder.reporting.summary import full_table, plain_summary
    from tests.html_tree import parse_html
    from tests.report_classes import check, quiz, student

    graded = quiz([1.0, 1.0])
    waiting = replace(graded, items=(graded.items[0], replace(graded.items[1], score=0.0, pending=True)), score=1.0,
                      pending=1.0)
    results = [student("ann", [check("test_a", "passed", 2.0)], [graded]),
               student("bob", [check("test_a", "failed", 2.0)], [waiting])]
    assert f"mean 2.5 + 0.5 pending / 4 ({CLASS_MEAN})" in plain_summary(results)  # (4 + 1) / 2, 1 pending / 2
    out = paths.ROOT / "out" / "some class"
    document = parse_html(class_report_html(results, out=out))
    overview = [row for row in document.find("table").iter("tr") if "class mean" in row.text()]
    assert overview and [td.text() for td in overview[0].iter("td")][-1] == "2.50 + 0.50 pending"
    footer = [td.text() for td in document.find("table", id="heatmap").find("tfoot").iter("td")]
    assert footer == ["50%", "75% +0.5", "2.5 + 0.5 pending"]  # test_a, the quiz (bob: 1 of 2 decided), totals
    banner = document.find("div", id="review-banner").text()
    assert "make review OUT='out/some class'" in banner
    assert "make review OUT='out/some class'" in full_table(results, [], out=out)
    assert "make review" in full_table(results, []) and "review page" in full_table(results, [])


def test_instructor_only_probes_stay_out_of_the_pass_rate_chart(monkeypatch):
    from autograder.reporting import plots
    from autograder.reporting.class_report import class_report_html
    from tests.report_classes import check, student

    drawn = []
    real = plots.pass_rate_png
    monkeypatch.setattr(plots, "pass_rate_png", lambda labels, *rest: drawn.append(labels) or real(labels, *rest))
    probe = dict(points=0.0, visibility="hidden")
    results = [student(s, [check("test_a", "passed", 2.0), check("test_probe", "failed", **probe)]) for s in "ab"]
    report = class_report_html(results)
    assert drawn == [["test_a"]]
    assert "test_probe" in report  # still in the table, marked hidden
