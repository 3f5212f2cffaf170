"""Student text reaches every output inert: a generator test per renderer.

Every field a student controls (their id, a check's message quoting their values or exception, notes and
problems naming their files, what their code printed, quiz answers shown back and quiz file errors, names
from a platform, skipped entries' names) is filled with Markdown links and images, raw HTML, CSV formulas,
ANSI escapes, bidirectional controls, newlines, NUL and lone surrogates, beside an honest classmate. Each
output is then read as its reader reads it: the Markdown with a CommonMark parser (markdown-it-py), the HTML
with the standard library's parser, the CSV with the csv module as a spreadsheet would, summary.txt and the
terminal line by line. Renderers run on result models built in memory (no sandbox): fast.
"""
from __future__ import annotations

import csv
import io
import json
import re
import shutil
import string
import subprocess
import unicodedata
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from rich.console import Console

from autograder.cli import show
from autograder.grading.importers import Identity
from autograder.reporting import class_report
from autograder.reporting.canvas import canvas_csv
from autograder.reporting.escape import (file_stems, html_text, markdown_block, markdown_text, one_line, terminal,
                                         visible)
from autograder.reporting.feedback import feedback_markdown
from autograder.reporting.gradebook import gradebook_csv
from autograder.reporting.gradescope import results_json
from autograder.reporting.names import is_test_student
from autograder.reporting.roster import RosterEntry, RosterJoin, match_report_csv
from autograder.reporting.attention import needs_attention
from autograder.reporting.summary import closing_summary, full_table
from autograder.results import GRADER_ERROR, QuizItem, QuizResult
from tests.html_tree import parse_html
from tests.markdown_read import rendered, shown_text, tokens
from tests.report_classes import kit, student

PAYLOADS = [
    "<img src=x onerror=alert(1)>", "<script>alert(1)</script>", "<a href='javascript:alert(1)'>x</a>",
    "[x](javascript:alert(1))", "![t](http://evil.example/t.png)", "[x][r]\n\n[r]: http://evil.example",
    "<http://evil.example>", "http://evil.example/x", "www.evil.example", "a@evil.example", "&lt;b&gt;", "&#106;",
    "`code`", "```", "~~~", "*em* _em_ **b**", "~~s~~", "| a | b |\n|---|---|", "# heading", "> quote", "- item",
    "+ item", "1. item", "2) item", "---", "===", "    indented", "$x$", "\\", "\\[x](y)",
    '=HYPERLINK("http://evil.example","x")', "+1+1", "-2+3", "@SUM(A1)", "\t=1", "\r=1", " =1", "-5", "+3.5",
    "\x1b[31mred\x1b[0m", "\x1b]8;;http://evil.example\x1b\\link\x1b]8;;\x1b\\", "\x9b2J", "\u202eevil\u202c",
    "\u2066x\u2069", "\x00", "line\nforged: 100/100", "\r\nX", "\u2028", "\ud800", "\udfff", "\U000e0041",
    "[bold]x[/]", "[/]", "[link=http://evil.example]x[/link]", ":smile:",
]
SPECIAL = list("\x00\x07\x08\x0b\x0c\x1b\x7f\x85\x9b\n\r\t\u200b\u200e\u200f\u202a\u202e\u2066\u2069\u2028\u2029"
               "\ufeff\ud800\udcff\U000e0001")
PIECES = st.one_of(st.sampled_from(PAYLOADS), st.sampled_from(SPECIAL), st.text(max_size=6),
                   st.text(alphabet=string.punctuation + " 0123456789aZ\n", max_size=8))
HOSTILE = st.lists(PIECES, min_size=1, max_size=5).map("".join)
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

LIVE_MARKDOWN = {"link_open", "image", "html_inline", "html_block"}
LINKED_BY_RENDERERS = re.compile(r"://|www\.|@", re.IGNORECASE)  # GFM autolinks and linkify, outside code


def hidden_in(text: str, allowed: str = "\n") -> list[str]:
    return [c for c in text if visible(c) != c and c not in allowed]


def words(text: str) -> str:
    return " ".join(text.split())


@st.composite
def hostile_class(draw):
    """An honest classmate and a student whose every text field is hostile."""
    sid = draw(HOSTILE.filter(lambda s: s.strip() and s != "ada"))
    fields = {name: draw(HOSTILE) for name in ("output", "error", "note", "problem", "printed", "answer", "quiz")}
    tests = kit({"test_dot_scores_values": {"output": fields["output"]},
                 "test_attention_values": {"output": fields["error"], "status": GRADER_ERROR}})
    quizzes = [QuizResult("attention", 0.0, 1.0, (QuizItem("attention-01", 0.0, 1.0, feedback=fields["answer"]),)),
               QuizResult("broken", 0.0, 1.0, (), problem=fields["quiz"])]
    hostile = student(sid, tests, quizzes, notes=(fields["note"],), problems=(fields["problem"],),
                      printed=fields["printed"])
    return student("ada", kit()), hostile, fields


def lines_of(text: str) -> list[str]:
    return visible(text, keep="\n").split("\n")


def assert_inert_markdown(markdown: str) -> None:
    assert not hidden_in(markdown, "\n\t"), hidden_in(markdown, "\n\t")  # a tab is kept in printed output only
    found = list(tokens(markdown))
    assert not [t.type for t in found if t.type in LIVE_MARKDOWN], markdown
    linked = [t.content for t in found if t.type == "text" and LINKED_BY_RENDERERS.search(t.content)]
    assert not linked, linked
    assert parse_html(rendered(markdown))  # what a renderer makes of it is well-formed


# --- the rule itself ---------------------------------------------------------------------------------------

@SETTINGS
@given(HOSTILE)
def test_markdown_text_renders_as_the_text_reads(text):
    markdown = markdown_text(text)
    assert "\n" not in markdown
    assert_inert_markdown(markdown)
    assert [t.type for t in tokens(markdown) if t.nesting == 1] in ([], ["paragraph_open"])  # prose, no block
    assert words(shown_text(markdown)) == words(one_line(text))
    quoted = f"- item\n  > {markdown}\n"  # where feedback puts it: quoted under a list item
    assert_inert_markdown(quoted)
    assert words(shown_text(quoted)) == words("item " + one_line(text))
    table = f"| question | score |\n|---|---|\n| {markdown} | 1 |\n"  # or in a table's cell
    assert_inert_markdown(table)
    assert [t.type for t in tokens(table)].count("td_open") == 2


@SETTINGS
@given(HOSTILE)
def test_a_fenced_block_shows_printed_text_literally(text):
    block = "\n".join(markdown_block(text))
    fences = [t for t in tokens(block) if t.type == "fence"]
    assert len(fences) == 1 and fences[0].content == visible(text, keep="\n\t") + "\n"
    assert_inert_markdown(block)


# --- feedback/*.md -----------------------------------------------------------------------------------------

@SETTINGS
@given(hostile_class())
def test_feedback_shows_every_student_text_as_text(made):
    ada, hostile, fields = made
    markdown = feedback_markdown(hostile)
    assert_inert_markdown(markdown)
    headings = [t for t in tokens(markdown) if t.type == "heading_open"]
    expected = 1 + 1 + 1 + 2 + 2 + bool(fields["printed"].strip())  # problems, notes, 2 assignments, 2 quizzes
    assert len(headings) == expected, markdown
    title = shown_text(next(t for t in tokens(markdown) if t.type == "inline").content)
    assert words(title) == words("Feedback for " + one_line(hostile.student_id))
    text = words(shown_text(markdown))
    for name in ("output", "error", "answer"):
        assert all(words(line) in text for line in lines_of(fields[name])), name
    for name in ("note", "problem", "quiz"):
        assert words(one_line(fields[name])) in text, name
    printed = [t.content for t in tokens(markdown) if t.type == "fence"]
    if fields["printed"].strip():
        assert printed == [visible(fields["printed"].strip()[:4000], keep="\n\t") + "\n"]
    assert feedback_markdown(ada) == feedback_markdown(student("ada", kit()))


# --- Gradescope's results.json -----------------------------------------------------------------------------

@SETTINGS
@given(hostile_class())
def test_gradescope_outputs_are_escaped_markdown(made):
    _, hostile, fields = made
    data = results_json(hostile)
    json.dumps(data, ensure_ascii=False).encode("utf-8")  # no lone surrogate left to stop the write
    assert data["output_format"] == data["test_output_format"] == "md" and data["test_name_format"] == "text"
    for entry in [data, *data["tests"]]:
        assert_inert_markdown(entry["output"])
        assert not hidden_in(entry.get("name", ""), "")
    top = words(shown_text(data["output"]))
    for name in ("note", "problem"):  # one paragraph per line
        assert all(words(line) in top for line in lines_of(fields[name])), name
    shown = words(" ".join(shown_text(t["output"]) for t in data["tests"]))
    for name in ("output", "error"):
        assert all(words(line) in shown for line in lines_of(fields[name])), name


# --- report.html -------------------------------------------------------------------------------------------

ALLOWED_TAGS = {"html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "nav", "ul", "li", "a", "p",
                "div", "span", "table", "thead", "tbody", "tfoot", "tr", "th", "td", "code", "pre", "details",
                "summary", "strong", "em", "br", "img"}


@SETTINGS
@given(hostile_class(), HOSTILE)
def test_the_class_report_shows_student_text_as_text(monkeypatch_charts, made, skipped):
    ada, hostile, _ = made
    page = class_report.class_report_html([ada, hostile], [skipped])
    assert not hidden_in(page, "\n\t")
    document = parse_html(page)  # every element closed in order: no markup came from a student
    elements = list(document.iter())
    assert {e.tag for e in elements} <= ALLOWED_TAGS
    assert not [(e.tag, a) for e in elements for a in e.attrs if a.startswith("on")]
    assert all(e.attrs["href"].startswith("#") for e in elements if e.tag == "a")
    assert all(e.attrs["src"].startswith("data:image/png;base64,") for e in elements if e.tag == "img")
    assert [e.tag for e in elements].count("style") == 1
    names = [e.text() for e in document.iter("td", class_="student")]
    assert sorted(names) == sorted(["ada", visible(hostile.student_id, keep="\n\t")])
    assert visible(skipped, keep="\n\t") in [e.text() for e in document.iter("li")]


@pytest.fixture(scope="module")
def monkeypatch_charts():
    """Charts are images of the kit's own labels (test ids, mistake titles): left out to keep the test fast."""
    patch = pytest.MonkeyPatch()
    patch.setattr(class_report, "charts", lambda results: None)
    yield
    patch.undo()


# --- gradebook.csv, canvas.csv, roster-match.csv -----------------------------------------------------------

FORMULA = ("=", "+", "-", "@", "\t", "\r", "\n")


def read_csv(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def assert_no_formula(rows: list[list[str]]) -> None:
    for row in rows:
        for cell in row:
            if cell.lstrip(" ").startswith(FORMULA):
                float(cell)  # only a plain number may start so: a spreadsheet reads it as that number


def as_text(cell: str, value: str) -> bool:
    shown = visible(value, keep="\t")
    return cell in (shown, "'" + shown)


@SETTINGS
@given(hostile_class(), st.lists(HOSTILE, min_size=5, max_size=5))
def test_csv_cells_never_run_as_formulas(made, names):
    ada, hostile, _ = made
    sid = hostile.student_id
    identities = {sid: Identity(*names[:4]), "ada": Identity(name="Ada Lovelace")}
    written = gradebook_csv([ada, hostile], identities)
    assert len(written.splitlines()) == 3  # one row per line: nothing forges a line for a line-by-line reader
    gradebook = read_csv(written)
    assert len(gradebook) == 3 and len({len(r) for r in gradebook}) == 1  # a newline forges no row
    assert_no_formula(gradebook)
    row = dict(zip(gradebook[0], gradebook[2]))
    given_names = dict(zip(("name", "email", "sid", "lms_user_id"), names))
    assert as_text(row["student_id"], sid) and all(as_text(row[c], v) for c, v in given_names.items() if c in row)
    assert all(float(row[c]) >= 0 for c in ("score", "max_score", "pending"))  # scores stay numbers
    honest = read_csv(gradebook_csv([ada, replace(hostile, student_id="bob")], identities))
    assert honest[1] == gradebook[1]  # the classmate's row does not change
    canvas = read_csv(canvas_csv([ada, hostile]))
    assert len(canvas) == 4 and as_text(canvas[3][0], sid) and canvas[3][3] == ""  # a folder name: never a login
    assert_no_formula(canvas)
    with_ids = read_csv(canvas_csv([ada, hostile], identities=identities))
    if not is_test_student(names[0]):  # Canvas's Test Student is left out
        assert len(with_ids) == 4 and as_text(with_ids[3][1], names[3]) and as_text(with_ids[3][2], names[2])
    assert_no_formula(with_ids)
    entry = RosterEntry(names[4], "1234", names[0], names[1], names[2], names[3])
    roster = RosterJoin(matched={sid: (entry, "name"), "ada": (RosterEntry("Ada", "1", "a1", "ada"), "name")},
                        without_submission=[RosterEntry(names[3], "99", sis_login_id=names[2])])
    joined = read_csv(canvas_csv([ada, hostile], roster=roster))
    assert len(joined) == 4 and as_text(joined[3][0], names[4]) and joined[3][1] == "1234"
    assert_no_formula(joined)
    report = read_csv(match_report_csv(roster))
    assert len(report) == 4
    assert_no_formula(report)


def test_numbers_stay_numbers_and_formulas_become_text():
    from autograder.reporting.escape import csv_cell

    assert [csv_cell(v) for v in ("-3", "+1.5", "-0.25", "1e-3", "42")] == ["-3", "+1.5", "-0.25", "1e-3", "42"]
    formulas = ("=1+1", "-1+1", "@A1", " =1", "-", "+")
    assert [csv_cell(v) for v in formulas] == ["'" + v for v in formulas]
    assert [csv_cell(v) for v in ("\t=1", "\n=1", "\r=1", "a\rb")] == ["'\t=1", "\\n=1", "\\r=1", "a\\rb"]


# --- summary.txt and the terminal --------------------------------------------------------------------------

def one_lined(result):
    """The same student with every text made one line beforehand: the line count a renderer must give."""
    return replace(result, student_id=one_line(result.student_id), notes=tuple(map(one_line, result.notes)),
                   problems=tuple(map(one_line, result.problems)),
                   quizzes=tuple(replace(q, problem=q.problem and one_line(q.problem)) for q in result.quizzes))


@SETTINGS
@given(hostile_class(), HOSTILE)
def test_summary_and_terminal_lines_cannot_be_forged(made, skipped):
    ada, hostile, _ = made
    table = full_table([ada, hostile], [skipped])
    assert not hidden_in(table)
    attention = len(needs_attention([ada, hostile]))
    assert len(table.splitlines()) == 1 + 2 + 2 + max(1, attention) + 3, table
    assert sum(line.startswith(one_line(hostile.student_id) + " ") for line in table.splitlines()) >= 1
    closing = closing_summary([ada, hostile], [skipped], "summary.txt")
    assert not hidden_in(closing)
    expected = closing_summary([ada, one_lined(hostile)], ["x"], "summary.txt")
    assert len(closing.splitlines()) == len(expected.splitlines())
    out = io.StringIO()
    console = Console(file=out, force_terminal=False, width=80)
    show(closing + skipped, "bold red", console, soft_wrap=True)  # rich markup in a name is not read as markup
    assert out.getvalue() == terminal(closing + skipped) + "\n"
    assert "\x1b" not in out.getvalue()


# --- the review page's script applies the same HTML rule -------------------------------------------------

SCRIPT = Path(__file__).resolve().parents[1] / "autograder" / "quiz" / "review_page" / "page.js"


@pytest.mark.skipif(shutil.which("node") is None, reason="no node to run the review page's script")
@settings(max_examples=5, deadline=None)
@given(st.lists(HOSTILE, min_size=20, max_size=20))
def test_the_review_page_escapes_answers_as_report_html_does(texts):
    source = SCRIPT.read_text(encoding="utf-8")
    rule = source[source.index("const SHORT"):source.index("const fmt")]
    program = rule + "process.stdout.write(JSON.stringify(JSON.parse(require('fs').readFileSync(0, 'utf8')).map(esc)));"
    run = subprocess.run(["node", "-e", program], input=json.dumps(texts), capture_output=True, text=True,
                         timeout=60, check=True)
    assert json.loads(run.stdout) == [html_text(t) for t in texts]


# --- file names --------------------------------------------------------------------------------------------

SAFE_STEM = re.compile(r"^\w[\w .\-]{0,99}$")


@SETTINGS
@given(st.lists(HOSTILE | st.sampled_from(["Ada", "ada", "ADA", "a b", "a_b", ".", "..", "x" * 300, "-rf", "\u00e9",
                                          "e\u0301", "Stra\u00dfe", "STRASSE"]), min_size=1, max_size=8, unique=True))
def test_every_student_gets_a_safe_file_name_of_their_own(ids):
    stems = file_stems(ids)
    assert len({unicodedata.normalize("NFC", s).casefold() for s in stems.values()}) == len(ids)
    assert all(SAFE_STEM.match(s) and s not in (".", "..") for s in stems.values()), stems


# --- through the real engine: a hostile submission graded in the sandbox beside an honest one -------------

HOSTILE_ID = "x<img src=x onerror=alert(1)>[y](javascript:z)=1+1\u202e\x1b[31m"
PAYLOAD = "<img src=x onerror=alert(1)> [x](javascript:alert(1)) \x1b[2J\u202e =cmd|' /C calc'!A0"
HOSTILE_CODE = f'''
import torch
print({PAYLOAD!r} + "\\nforged: 100/100")
Named = type({PAYLOAD!r}, (), {{}})


def dot_scores(Q, K):
    raise RuntimeError({PAYLOAD!r} + "\\n# heading")


def scaled_dot_scores(Q, K):
    return Named()


def attention_weights(scores, mask=None):
    return torch.softmax(scores, dim=-1)
'''


@pytest.mark.slow
def test_a_hostile_submission_reaches_every_output_inert(tmp_path):
    from autograder import paths
    from autograder.reporting.outputs import write_outputs
    from tests.classroom import grade, solution_text, write_class

    honest = {f"{a}.py": solution_text(a) for a in paths.ASSIGNMENTS}
    root = write_class(tmp_path / "class", {"ada": honest, HOSTILE_ID: {"attention_scores.py": HOSTILE_CODE}})
    out = tmp_path / "out"
    results = grade(root, out, workers=1)
    (hostile,) = [r for sid, r in results.items() if sid != "ada"]  # the id as the importer read the folder's name
    said = " ".join([hostile.printed, *(t.output for t in hostile.tests)])
    assert "alert(1)" in said and "forged: 100/100" in said  # the payload reached the results: now the outputs
    write_outputs(out, list(results.values()), skipped=[PAYLOAD])
    names = {p.name for p in (out / "feedback").iterdir()} | {p.name for p in (out / "results").iterdir()}
    assert len(names) == 4 and all(SAFE_STEM.match(n.rsplit(".", 1)[0]) for n in names), names
    for path in (out / "feedback").iterdir():
        markdown = path.read_text(encoding="utf-8")
        assert_inert_markdown(markdown)
    hostile_md = next(p for p in (out / "feedback").iterdir() if p.name != "ada.md").read_text(encoding="utf-8")
    assert "alert(1)" in shown_text(hostile_md)  # shown, as text
    for path in (out / "results").iterdir():
        data = json.loads(path.read_text(encoding="utf-8"))
        for entry in [data, *data["tests"]]:
            assert_inert_markdown(entry["output"])
    for name in ("gradebook.csv", "canvas.csv"):
        rows = read_csv((out / name).read_text(encoding="utf-8"))
        assert_no_formula(rows)
    table = (out / "summary.txt").read_text(encoding="utf-8")
    assert not hidden_in(table) and not [line for line in table.splitlines() if line.startswith("forged")]
    page = (out / "report.html").read_text(encoding="utf-8")
    document = parse_html(page)
    assert {e.tag for e in document.iter()} <= ALLOWED_TAGS and not hidden_in(page, "\n\t")


def test_quoted_feedback_keeps_its_lines_and_indentation():
    """A YAML example the student is told to copy reads as written: its lines apart and its two spaces kept
    (Markdown joins lines into one paragraph and drops leading spaces; found by an instructor walk)."""
    from autograder.quiz.answers import block_example
    from autograder.reporting.feedback import quoted

    example = block_example("sc-01", "weights: [0.5, 0.5]\n\\sqrt{d_k}")
    page = parse_html(rendered("\n".join(["- a check"] + quoted(["first note", example, "*last*"]))))
    shown = page.text().replace("\xa0", " ")
    assert "sc-01: |-\n  weights: [0.5, 0.5]\n  \\sqrt{d_k}" in shown, shown
    assert [p.text().split("\n")[0] for p in page.iter("p")] == ["first note", "sc-01: |-", "*last*"]
