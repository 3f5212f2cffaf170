"""Student data behind the per-student wall: no answer file, zip, notebook, file name or platform metadata
can stop a class.

One generator per parser writes a hostile student's data (nesting thousands deep, numbers of thousands of
digits, lone surrogates, NUL and control characters, odd encodings, deep and long zip paths, many members)
into a class of honest classmates and grades it through `attnkit grade`. Every run must end with exit
status 0 (no crash, no grader problem), a gradebook with one row per student, every output readable as
UTF-8, and the classmates' rows exactly as when they are graded alone. Classmates hand in quiz files only,
and the attacker's data holds no file the sandbox would run, so a run costs half a second; the notebook
parser is driven at the import stage (its contract: a file's problem, or cells the sandbox and the graders
can take), and a few notebooks are graded end to end once.
"""
from __future__ import annotations

import ast
import csv
import io
import json
import os
import re
import shutil
import sys
import zipfile
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, event, example, given, settings, strategies as st

from autograder import paths
from autograder.bounded import MAX_DEPTH, MAX_NUMBER_CHARS, not_text
from autograder.cli import main
from autograder.grading.circumvention import circumvention
from autograder.grading.importers import import_class
from autograder.grading.runner import shipped_stubs
from autograder.grading.submissions import is_graded_name
from autograder.quiz.answers import parse_answer_sheet
from autograder.quiz.code_answers import prepare
from tests.classroom import solution_text, write_class

AS = "attention_scores"
SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                                       HealthCheck.function_scoped_fixture])
HONEST = {"ana": {"quiz_attention.yaml": "att-03: b\natt-02: true\natt-11: 0.25\n",
                  "quiz_attention_score.yaml": "# nothing yet\n"},
          "zoe": {"quiz_attention.yaml": "att-03: c\natt-07: |-\n  The decoder sees every encoder state.\n"}}

# ------------------------------------------------------------------------------------------------ material
NASTY = st.sampled_from(["\ud800", "\udfff", "\udc80", "\x00", "\x01", "\x1b[2J", "\r", "\x7f", "\x85", "\u202e",
                         "\ufeff", "\ufffe", "é", "\n", "\t", "'", '"', ":", "# ", "&a ", "*a", "!!python/object ",
                         "{", "[", "- ", "|-", "\\", "%", "\U0010ffff"])
NASTY_TEXT = st.lists(st.one_of(st.text(max_size=4), NASTY), max_size=10).map("".join)
DEPTHS = st.one_of(st.integers(1, 40), st.integers(900, 3000))
DIGITS = st.one_of(st.integers(MAX_NUMBER_CHARS - 2, MAX_NUMBER_CHARS + 2), st.integers(4290, 6000))


@st.composite
def huge_number(draw) -> str:
    n = draw(DIGITS)
    return draw(st.sampled_from(["9" * n, "-" + "9" * n, "0b" + "1" * n, "0x" + "f" * n, "0o" + "7" * n,
                                 "1" + "_0" * (n // 2), "1" + ":0" * (n // 2), "9" * n + ".5", "1e" + "9" * n]))


@st.composite
def nested(draw, flow=("[", "]")) -> str:
    depth = draw(DEPTHS)
    kind = draw(st.sampled_from(["flow", "map", "block", "unclosed"]))
    if kind == "flow":
        return flow[0] * depth + flow[1] * depth
    if kind == "map":
        return "{a: " * depth + "}" * depth
    if kind == "block":
        return "\n  " + "- " * depth + "x"
    return "[" * depth


ESCAPES = st.sampled_from(['"\\ud800"', '"\\x00"', '"\\e"', '"\\U0010ffff"', '"\\ud83d\\ude00"', '"\\udc80 x"',
                           '"\\x85"', '"a\\x1bb"', '"\\ud83d"'])
QUESTION = st.sampled_from(["att-01", "att-02", "att-03", "att-04", "att-07", "att-11", "att-13", "x", "att-99"])
NOT_CODE = QUESTION.filter(lambda q: q not in ("att-01", "att-13"))  # graded end to end without the sandbox


@st.composite
def answer_line(draw, questions=QUESTION) -> str:
    key = draw(questions)
    value = draw(st.one_of(nested(), huge_number(), ESCAPES, NASTY_TEXT, st.just("b"),
                           NASTY_TEXT.map(lambda t: "|-\n  " + t), st.just('"unterminated'),
                           st.just("&x [1]"), st.just("*x")))
    return f"{key}: {value}"


@st.composite
def encoded(draw, text: str) -> bytes:
    how = draw(st.sampled_from(["utf-8"] * 5 + ["utf-8-sig", "utf-16", "utf-32", "latin-1"]))
    return text.encode(how, "surrogatepass" if how.startswith("utf") else "replace")


@st.composite
def answer_file(draw, questions=QUESTION) -> bytes:
    lines = draw(st.lists(answer_line(questions), min_size=1, max_size=6))
    if draw(st.booleans()):
        keys = "\n".join(f"k{i}: x" for i in range(draw(st.integers(0, 250))))  # the limit is 200
        lines.insert(draw(st.integers(0, len(lines))), keys)
    return draw(encoded("\n".join(lines) + "\n"))


# ------------------------------------------------------------------------------------------------ running

@pytest.fixture(scope="module", autouse=True)
def no_charts():
    """The report's charts are drawn from scores, never from student text, and cost a second a run: left out."""
    from autograder.reporting import class_report

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(class_report, "CHARTS_MIN_STUDENTS", 1 << 30)
        yield


def gradebook(out: Path) -> dict[str, dict[str, str]]:
    with open(out / "gradebook.csv", encoding="utf-8", newline="") as handle:
        return {row["student_id"]: row for row in csv.DictReader(handle)}


def run_grade(submissions: Path, out: Path) -> dict[str, dict[str, str]]:
    """`attnkit grade` on the class: it must end with exit 0 and every output readable; the gradebook's rows.
    Run with Python's own recursion limit, as `make grade` is: Hypothesis raises it while a test runs, which
    would hide what nests too deeply."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    try:
        result = CliRunner().invoke(main, ["grade", str(submissions), "--out", str(out), "--workers", "1"])
    finally:
        sys.setrecursionlimit(limit)
    assert result.exit_code == 0, (result.exit_code, result.output[-3000:], result.exception)
    rows = gradebook(out)
    for path in out.rglob("*"):
        if path.is_file() and ".state" not in path.parts:
            path.read_text(encoding="utf-8")
    return rows


class Classroom:
    """A class of honest classmates in one layout, graded once alone; then again beside each attacker (the
    classmates' results are kept in OUT, as a re-run keeps them)."""

    def __init__(self, root: Path, build) -> None:
        self.root, self.build = root, build
        self.baseline = run_grade(build(root / "alone", None), root / "out")
        assert len(self.baseline) == 2

    def with_attacker(self, attacker, own_row: bool = True) -> dict[str, dict[str, str]]:
        """`own_row`: the attacker has a row of their own (else their files may all be skipped, with why)."""
        shutil.rmtree(self.root / "class", ignore_errors=True)
        rows = run_grade(self.build(self.root / "class", attacker), self.root / "out")
        for sid, row in self.baseline.items():
            assert rows.get(sid) == row, sid  # the classmates' rows are untouched
        assert len(rows) >= 3 or not own_row
        return rows


def folders(root: Path, attacker: dict[str, bytes] | None) -> Path:
    return write_class(root, {**HONEST, **({"mallory": attacker} if attacker is not None else {})})


@pytest.fixture(scope="module")
def folder_class(tmp_path_factory):
    return Classroom(tmp_path_factory.mktemp("folders"), folders)


# ------------------------------------------------------------------------------------------------ quiz files

ISSUE_ANSWER_FILES = [  # the issue's examples: each stopped `make grade` with no gradebook
    ("att-02: " + "[" * 5000 + "]" * 5000 + "\n").encode(),  # RecursionError
    ("att-11: " + "9" * 5000 + "\n").encode(),  # Python's integer-string limit
    b'att-07: "\\ud800 \\x00"\n',  # a lone surrogate, in an answer that waits for review
    ('att-03: "b\natt-02: ' + "{" * 3000 + "\n").encode(),  # the fallback reader recursed
]


@settings(max_examples=4, **SETTINGS)
@given(answer_file(NOT_CODE))
@example(ISSUE_ANSWER_FILES[0])
@example(ISSUE_ANSWER_FILES[1])
@example(ISSUE_ANSWER_FILES[2])
@example(ISSUE_ANSWER_FILES[3])
def test_any_answer_file_is_that_students_quiz(folder_class, data):
    rows = folder_class.with_attacker({"quiz_attention.yaml": data})
    assert "mallory" in rows


@settings(max_examples=40, deadline=None)
@given(answer_file())
@example(ISSUE_ANSWER_FILES[0])
@example(ISSUE_ANSWER_FILES[1])
@example(ISSUE_ANSWER_FILES[2])
@example(ISSUE_ANSWER_FILES[3])
def test_an_answer_sheet_holds_only_bounded_text(code_questions, data):
    """The reader's contract, on many more files than are graded: every answer it hands on is plain text of
    bounded size, or a number short enough to print, and the code answers among them can be prepared for
    the sandbox; everything else is a reason."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return  # read_text refuses it with the reason (graded above)
    try:
        sheet = parse_answer_sheet(text)
    except Exception as exc:  # noqa: BLE001
        assert type(exc).__name__ == "QuizFormatError", exc
        return
    for key, value in sheet.answers.items():
        assert not isinstance(value, str) or (not_text(value) is None and len(value) <= 5000)
        str(value)  # an int of any length it kept can be printed
        if key in code_questions and isinstance(value, (str, int, float)) and not isinstance(value, bool):
            prepare(code_questions[key], value)
    for why in [*sheet.problems.values(), *sheet.notes.values(), *sheet.messages]:
        why.encode("utf-8")


@pytest.fixture(scope="module")
def code_questions():
    from autograder.grading.quizzes import load_class_quizzes

    return {q.id: q for quiz in load_class_quizzes() for q in quiz.questions if q.code is not None}


@pytest.mark.parametrize("text, words", [
    ("att-01: " + "[" * 5000 + "]" * 5000, "nested more than 32 levels deep"),
    ("att-11: " + "9" * 5000, "a number of 5000 characters"),
    ('att-07: "\\ud800"', "a broken character (a lone UTF-16 surrogate, U+D800)"),
    ('att-02: "a\natt-01: ' + "{" * 3000, "nested more than 32 levels deep"),
    ("att-07: a\x01b", "a control character (U+0001)"),
], ids=["deep", "long number", "surrogate", "fallback recursion", "control"])
def test_the_issues_answer_files_say_why(text, words):
    sheet = parse_answer_sheet(text)
    assert any(words in why for why in sheet.problems.values()), sheet


# ------------------------------------------------------------------------------------------------ zips

LINK = 0o120777 << 16
BYTES_NAME = "é-name.txt"  # written in UTF-8 (the archive says so), then its bytes replaced by these:
BAD_BYTES = b"\xff\xfe\xed\xa0\x80ab.txt"
assert len(BYTES_NAME.encode("utf-8")) == len(BAD_BYTES)


@st.composite
def member(draw) -> tuple[str, bytes, int]:
    kind = draw(st.sampled_from(["deep", "long", "control", "clash", "outside", "quiz", "link", "hidden", "plain",
                                 "bytes"]))
    if kind == "deep":
        name = "d/" * draw(st.one_of(st.integers(MAX_DEPTH - 2, MAX_DEPTH + 2), st.integers(900, 3000))) + "f.txt"
    elif kind == "long":
        name = draw(st.sampled_from(["a" * 256, "b" * 3000, ("c" * 200 + "/") * 8 + "x"]))
    elif kind == "control":
        name = draw(NASTY_TEXT.map(lambda t: t.replace("/", "").replace("\x00", "") + "\n\x1b.txt"))
        name = re.sub("[\ud800-\udfff]", "?", name)  # a zip names its members in UTF-8 (bytes: below)
    elif kind == "clash":
        name = draw(st.sampled_from(["same", "same/inner.txt", "same/"]))
    elif kind == "outside":
        name = draw(st.sampled_from(["../evil.txt", "/abs.txt", "C:/x.txt", "a/../../b.txt"]))
    elif kind == "quiz":
        name = "quiz_attention.yaml"
    elif kind == "bytes":
        name = BYTES_NAME  # replaced by bytes in no encoding once written (student_zip)
    elif kind == "hidden":
        name = draw(st.sampled_from([".hidden", "__MACOSX/._x", "a/.b"]))
    else:
        name = draw(st.text(alphabet=st.characters(codec="utf-8", exclude_characters="\x00/\\"), min_size=1,
                            max_size=40))
    if is_graded_name(name.rsplit("/", 1)[-1], list(paths.ASSIGNMENTS)):
        name = "x" + name
    data = draw(answer_file()) if kind == "quiz" else b"data"
    return name, data, LINK if kind == "link" else 0


@st.composite
def student_zip(draw) -> bytes:
    members = draw(st.lists(member(), min_size=1, max_size=6))
    many = draw(st.sampled_from([0, 0, 499, 501, 5000]))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data, mode in members:
            info = zipfile.ZipInfo(name)
            info.external_attr = mode
            archive.writestr(info, data)
        for i in range(many):
            archive.writestr(f"many/{i}.txt", b"")
    raw = buffer.getvalue().replace(BYTES_NAME.encode("utf-8"), BAD_BYTES)
    cut = draw(st.sampled_from([None, None, None, len(raw) // 2, len(raw) - 10]))
    return raw if cut is None else raw[:cut]


def deep_zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("d/" * 1500 + "f.txt", "x = 1")  # the issue's: RecursionError while unpacking
    return buffer.getvalue()


@pytest.mark.filterwarnings("ignore:Duplicate name")  # the generator writes a name twice on purpose
@settings(max_examples=4, **SETTINGS)
@given(student_zip(), st.booleans())
@example(deep_zip(), False)
@example(deep_zip(), True)
def test_any_student_zip_is_that_students_row(folder_class, archive, beside):
    if beside:  # `<student>.zip` beside the folders
        def build(root, attacker):
            folders(root, None)
            (root / "mallory.zip").write_bytes(attacker)
            return root
        shutil.rmtree(folder_class.root / "class", ignore_errors=True)
        rows = run_grade(build(folder_class.root / "class", archive), folder_class.root / "out")
        assert {sid: rows[sid] for sid in folder_class.baseline} == folder_class.baseline and "mallory" in rows
    else:
        assert "mallory" in folder_class.with_attacker({"work.zip": archive})


def test_a_deep_zip_path_is_refused_with_the_reason(tmp_path):
    write_class(tmp_path / "class", {"mallory": {"work.zip": deep_zip()}})
    found = import_class(tmp_path / "class", tmp_path / "stage", list(paths.ASSIGNMENTS), shipped_stubs())
    [mallory] = found.submissions
    assert "work.zip holds a path 1501 folders deep (at most 32)" in mallory.files[AS].problem


# ------------------------------------------------------------------------------------------------ Gradescope

def honest_metadata() -> dict:
    return {f"submission_{i}": {":submitters": [{":name": name, ":sid": f"S{i}", ":email": f"{sid}@uni.example"}],
                                ":created_at": "2026-11-20T10:00:00.000000-08:00", ":score": None}
            for i, (sid, name) in enumerate((("ana", "Ana Honest"), ("zoe", "Zoe Honest")), start=1)}


RAW = "@@raw@@"  # where a scalar's YAML is written as is (nesting, long numbers, aliases): no emitter writes it


@st.composite
def metadata_value(draw) -> tuple[object, str | None]:
    """(the value, or RAW with the YAML to write in its place)."""
    raw = st.one_of(nested(), huge_number(), st.sampled_from(["&c [*c]", "&m {a: *m}", "*nowhere", "!!binary x",
                                                                '"\\ud800"', '"\\x00\\e"']))
    return draw(st.one_of(NASTY_TEXT.map(lambda t: (t, None)), st.integers().map(lambda i: (i, None)),
                          raw.map(lambda r: (RAW, r))))


@st.composite
def gradescope_metadata(draw) -> bytes:
    data = honest_metadata()
    people, raws = [], []
    for _ in range(draw(st.integers(1, 2))):
        person = {}
        for field in draw(st.lists(st.sampled_from([":name", ":sid", ":email", "name", ":extra"]), unique=True,
                                   min_size=1)):
            value, raw = draw(metadata_value())
            person[field] = f"{RAW}{len(raws)}" if raw is not None else value
            raws += [raw] if raw is not None else []
        people.append(person)
    data["submission_3"] = {":submitters": people}
    text = yaml.safe_dump(data, allow_unicode=draw(st.booleans()), sort_keys=draw(st.booleans()))
    for index, raw in enumerate(raws):
        text = text.replace(f"'{RAW}{index}'", raw).replace(f"{RAW}{index}", raw)
    return text.encode("utf-8", "surrogatepass")


def gradescope(root: Path, attacker: bytes | None) -> Path:
    write_class(root, {"submission_1": HONEST["ana"], "submission_2": HONEST["zoe"],
                       **({"submission_3": {"quiz_attention.yaml": "att-03: a\n"}} if attacker else {})})
    metadata = attacker or yaml.safe_dump(honest_metadata()).encode("utf-8")
    (root / "submission_metadata.yml").write_bytes(metadata)
    return root


@pytest.fixture(scope="module")
def gradescope_class(tmp_path_factory):
    return Classroom(tmp_path_factory.mktemp("gradescope"), gradescope)


def raw_metadata(value: str) -> bytes:
    data = honest_metadata()
    data["submission_3"] = {":submitters": [{":name": RAW, ":sid": "S3"}]}
    return yaml.safe_dump(data).replace(f"'{RAW}'", value).replace(RAW, value).encode("utf-8")


@settings(max_examples=5, **SETTINGS)
@given(gradescope_metadata())
@example(raw_metadata("[" * 3000 + "]" * 3000))
@example(raw_metadata("9" * 5000))
@example(raw_metadata('"Mal\\nlory \\ud800"'))
def test_any_gradescope_metadata_costs_that_submission_its_names_only(gradescope_class, metadata):
    gradescope_class.with_attacker(metadata)


# ------------------------------------------------------------------------------------------------ Canvas

FILE_NAME = st.one_of(
    NASTY_TEXT.map(lambda t: t.replace("/", "").replace("\x00", "") or "x"),
    st.sampled_from([".", "..", "-", "quiz_attention.yaml", "quiz_attention-1.yaml", "a" * 230]),
    DIGITS.map(lambda n: "quiz_attention-" + "9" * min(n, 200) + ".yaml"))


@st.composite
def canvas_uploads(draw) -> list[tuple[bytes, bytes]]:
    uploads = []
    for _ in range(draw(st.integers(1, 3))):
        name = draw(st.text(alphabet=st.characters(categories=("Ll", "Lo", "Nd")), min_size=1, max_size=20))
        user = draw(st.sampled_from(["103", "0", "9" * 30, "9" * 200]))
        attachment = draw(st.sampled_from(["2001", "00", "7" * 60, "8" * 200]))
        file = draw(FILE_NAME)
        if is_graded_name(file, list(paths.ASSIGNMENTS)):
            file = "x" + file
        late = draw(st.sampled_from(["", "_late"]))
        full = f"{name}{late}_{user}_{attachment}_{file}".encode("utf-8", "surrogatepass")[:255]  # bytes: any name
        uploads.append((full, draw(st.one_of(st.just(b"att-03: a\n"), answer_file(NOT_CODE)))))
    return uploads


def canvas(root: Path, attacker: list[tuple[bytes, bytes]] | None) -> Path:
    root.mkdir(parents=True)
    for prefix, files in (("honestana_101_", HONEST["ana"]), ("honestzoe_102_", HONEST["zoe"])):
        for attachment, (name, text) in enumerate(files.items(), start=1001):
            (root / f"{prefix}{attachment}_{name}").write_text(text, encoding="utf-8")
    for name, data in attacker or ():
        with open(os.path.join(os.fsencode(root), name), "wb") as handle:
            handle.write(data)
    return root


@pytest.fixture(scope="module")
def canvas_class(tmp_path_factory):
    return Classroom(tmp_path_factory.mktemp("canvas"), canvas)


@settings(max_examples=5, **SETTINGS)
@given(canvas_uploads())
@example([(b"mallory_103_" + b"9" * 200 + b"_quiz_attention.yaml", b"att-03: a\n")])
@example([(b"mallory_103_2001_quiz_attention-" + b"9" * 200 + b".yaml", b"att-03: a\n")])
def test_any_canvas_file_name_is_that_students_row(canvas_class, uploads):
    rows = canvas_class.with_attacker(uploads, own_row=False)
    if len(rows) == 2:  # every upload was skipped: the instructor is told which and why
        summary = (canvas_class.root / "out" / "summary.txt").read_text(encoding="utf-8")
        assert summary.count("skipped") >= len(uploads), summary


# ------------------------------------------------------------------------------------------------ notebooks

SOLUTION_CELL = "import torch\n\n\ndef attention_scores_dot(Q, K):\n    return Q @ K.transpose(-2, -1)\n"


@st.composite
def notebook(draw) -> bytes:
    raws = []

    def raw(text: str) -> str:
        raws.append(text)
        return f"{RAW}{len(raws) - 1}"

    def source():
        return draw(st.one_of(st.just(SOLUTION_CELL), NASTY_TEXT, NASTY_TEXT.map(lambda t: SOLUTION_CELL + "# " + t),
                              st.lists(st.one_of(NASTY_TEXT, st.integers(), st.none()), max_size=3)))

    cells = []
    for _ in range(draw(st.integers(1, 3))):
        metadata = draw(st.sampled_from([{}] * 4 + [{"tags": ["kit-check"]}, {"tags": "kit-check"},
                                                    {"tags": [{"a": 1}]}, {"tags": [1, None]}, None, []]))
        cell = {"cell_type": draw(st.sampled_from(["code"] * 4 + ["markdown", 7])), "id": draw(NASTY_TEXT),
                "metadata": metadata, "outputs": [], "execution_count": None, "source": source()}
        if draw(st.integers(0, 3)) == 0:
            cell["execution_count"] = raw(draw(huge_number()))
        if draw(st.integers(0, 3)) == 0:
            cell["metadata"] = {"deep": raw(draw(nested(flow=("[", "]"))).replace("{a: ", '{"a": '))}
        cells.append(cell)
    document = {"nbformat": draw(st.sampled_from([4] * 6 + [3, 5, "4"])), "nbformat_minor": 5,
                "metadata": {"kernelspec": {"name": draw(NASTY_TEXT)}}, "cells": cells}
    text = json.dumps(document, ensure_ascii=draw(st.booleans()))
    for index, value in enumerate(raws):
        text = text.replace(f'"{RAW}{index}"', value)
    return draw(encoded(text))


@pytest.fixture(scope="module")
def imported_classmates(tmp_path_factory):
    root = tmp_path_factory.mktemp("notebooks")
    found = import_class(folders(root / "alone", None), root / "stage", list(paths.ASSIGNMENTS), shipped_stubs())
    return root, {s.student_id: s.files for s in found.submissions}


def sandbox_can_take(source) -> None:
    """What the engine does with a file's cells after reading it (graders, circumvention check, the request to
    the sandbox) must work on them: text Python can compile, or a SyntaxError that is the student's."""
    text = source.text
    text.encode("utf-8")
    json.dumps({"cells": list(source.cells)}).encode("utf-8")
    try:
        ast.parse(text)
    except SyntaxError:
        return
    circumvention(text)


def issue_notebook(source: str) -> bytes:
    cell = {"cell_type": "code", "id": "a", "metadata": {}, "outputs": [], "execution_count": None, "source": source}
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [cell]}).encode("utf-8")


@settings(max_examples=40, **SETTINGS)
@given(notebook(), st.sampled_from(["attention_scores.ipynb", "Attention_Scores.ipynb", "attention_scores (1).ipynb"]))
@example(issue_notebook(SOLUTION_CELL + "# \ud800\n"), "attention_scores.ipynb")  # once a grader problem (exit 2)
def test_any_notebook_is_read_into_that_students_note_or_code(imported_classmates, data, name):
    root, alone = imported_classmates
    shutil.rmtree(root / "class", ignore_errors=True)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)  # Python's own, as in `make grade` (see run_grade)
    try:
        found = import_class(folders(root / "class", {name: data}), root / "stage", list(paths.ASSIGNMENTS),
                             shipped_stubs())
    finally:
        sys.setrecursionlimit(limit)
    files = {s.student_id: s.files for s in found.submissions}
    assert {sid: files[sid] for sid in alone} == alone
    source = files["mallory"][AS]
    mended = any("broken character" in note for note in source.notes)
    event(f"not read: {source.problem[:60]}" if source.problem else "read, broken characters mended" if mended
          else "read")
    if source.problem is None:
        sandbox_can_take(source)
    else:
        source.problem.encode("utf-8")
    for note in source.notes:
        note.encode("utf-8")


def test_the_issues_notebooks_are_graded_end_to_end(folder_class):
    """A lone surrogate in a comment once made every check a grader problem (exit 2): now it is read as U+FFFD
    with a note, and the rest of the notebook is graded; a notebook nested too deep, or in UTF-16, is that
    student's row, with the reason."""
    solution = solution_text(AS)

    def as_notebook(code: str, metadata: str = "{}") -> str:
        cell = {"cell_type": "code", "id": "a", "metadata": {}, "outputs": [], "execution_count": None,
                "source": code}
        return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": RAW, "cells": [cell]}).replace(
            f'"{RAW}"', metadata)

    attackers = {
        "m-surrogate": {f"{AS}.ipynb": as_notebook(solution + "\n# \ud800 \udfff\n").encode("utf-8")},
        "m-deep": {f"{AS}.ipynb": as_notebook(solution, '{"a": ' * 3000 + "1" + "}" * 3000).encode("utf-8")},
        "m-utf16": {f"{AS}.ipynb": as_notebook(solution).encode("utf-16")},
    }
    root = folder_class.root
    shutil.rmtree(root / "class", ignore_errors=True)
    rows = run_grade(write_class(root / "class", {**HONEST, **attackers}), root / "out")
    assert {sid: rows[sid] for sid in folder_class.baseline} == folder_class.baseline
    assert rows["m-surrogate"]["score"] == rows["m-utf16"]["score"] != "0.0"
    feedback = (root / "out" / "feedback" / "m-surrogate.md").read_text(encoding="utf-8")
    assert "held 2 broken character(s)" in feedback
    summary = (root / "out" / "summary.txt").read_text(encoding="utf-8")
    assert "m-deep: not graded: attention_scores.ipynb holds lists or objects nested more than 32 levels" in summary


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 10**30), st.integers(0, 10**30), st.integers(0, 3), st.integers(0, 3))
def test_canvas_ids_order_as_numbers_without_being_read_as_one(a, b, zeros_a, zeros_b):
    from autograder.grading.importers.canvas import number

    assert (number("0" * zeros_a + str(a)) < number("0" * zeros_b + str(b))) == (a < b)
