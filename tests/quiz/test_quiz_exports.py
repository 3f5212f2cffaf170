"""GIFT and QTI exports parse back to the same questions and correct answers."""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import pytest
from quiz_gift_reader import parse_gift

from autograder.quiz import Quiz, QuizFormatError, load_quizzes, quiz_from_data, to_gift, write_qti
from autograder.quiz.__main__ import main as quiz_cli
from autograder.quiz.export_gift import escape_gift

NASTY = "Braces {x}, tilde ~y, a = b, #tag, ratio 1:2, back\\slash, <b>bold</b> & *stars* _under_ $5 \"q\" 'q'"


def _same_text(a: str, b: str) -> bool:
    return " ".join(a.split()) == " ".join(b.split())


@pytest.fixture
def nasty_quiz(minimal_quiz_data) -> Quiz:
    """Every GIFT/Markdown special character in prompts, options, answers and explanations."""
    questions = minimal_quiz_data["questions"]
    for q in questions:
        q["prompt"] = f"{q['id']}: {NASTY}"
        q["explanation"] = f"Explained: {NASTY}\nsecond line"
    questions[0]["options"][1]["text"] = "beta {=~#:} \\ end"
    questions[2]["accepted"] = ["square root of d_k", "a = b: {c} ~d #e"]
    return quiz_from_data(minimal_quiz_data, "nasty.yaml")


def all_quizzes(real_quizzes, nasty_quiz) -> list[Quiz]:
    return [*real_quizzes.values(), nasty_quiz]


# --- GIFT --------------------------------------------------------------------------------------


@pytest.mark.parametrize("raw, escaped", [
    ("a~b", r"a\~b"), ("a=b", r"a\=b"), ("#1", r"\#1"), ("{x}", r"\{x\}"), ("ratio 1:2", r"ratio 1\:2"),
    ("back\\slash", "back\\\\slash"), ("two\nlines", r"two\nlines"), ("plain text", "plain text"),
])
def test_escape_gift(raw, escaped):
    assert escape_gift(raw) == escaped


def test_gift_round_trip(real_quizzes, nasty_quiz):
    for quiz in all_quizzes(real_quizzes, nasty_quiz):
        parsed = parse_gift(to_gift(quiz))
        assert [p.title for p in parsed] == [q.id for q in quiz.questions]
        for q, p in zip(quiz.questions, parsed):
            assert p.markup == "plain"
            assert p.text == q.prompt, q.id
            assert p.kind == q.type, q.id
            assert p.general_feedback == q.explanation, q.id
            if q.type == "multiple_choice":
                assert p.choices == [(o.text, o.id == q.answer) for o in q.options]
            elif q.type == "true_false":
                assert p.truth is q.answer
            elif q.type == "numeric":
                assert (p.number, p.tolerance) == (q.answer, q.tolerance)
            else:
                assert p.choices == [(a, True) for a in q.accepted]


def test_gift_keeps_points_and_objective_as_comments(real_quizzes):
    gift = to_gift(real_quizzes["attention"])
    assert "// att-01 | short_answer | 2 point(s) | knowledge-check" in gift
    assert "// objective: Write the generic pipeline" in gift
    assert "$CATEGORY: $course$/attention" in gift


def test_gift_reader_is_strict():
    """The reader must notice an unescaped special character, or the round trip proves little."""
    with pytest.raises(ValueError):
        parse_gift("::q1::[plain]ratio 1:2 {TRUE}\n")
    with pytest.raises(ValueError):
        parse_gift("::q1::[plain]x {=a {b} ~c}\n")


# --- QTI ---------------------------------------------------------------------------------------

QTI_NS = {"q": "http://www.imsglobal.org/xsd/ims_qtiasiv1p2"}
QTI_TYPES = {
    "multiple_choice_question": "multiple_choice", "true_false_question": "true_false",
    "short_answer_question": "short_answer", "numerical_question": "numeric",
}


def _html_to_text(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", fragment)).strip()


def read_qti(path: Path) -> tuple[str, list[dict]]:
    """(quiz title, items) from a Canvas QTI zip, following imsmanifest.xml to the assessment."""
    with zipfile.ZipFile(path) as zf:
        manifest = ET.fromstring(zf.read("imsmanifest.xml"))
        hrefs = [f.get("href") for f in manifest.iter() if f.tag.endswith("file")]
        assessment_href = next(h for h in hrefs if not h.endswith("assessment_meta.xml"))
        root = ET.fromstring(zf.read(assessment_href))
    assessment = root.find("q:assessment", QTI_NS)
    items = []
    for item in assessment.iter(f"{{{QTI_NS['q']}}}item"):
        meta = {f.findtext("q:fieldlabel", namespaces=QTI_NS): f.findtext("q:fieldentry", namespaces=QTI_NS)
                for f in item.iter(f"{{{QTI_NS['q']}}}qtimetadatafield")}
        labels = {lab.get("ident"): _html_to_text(lab.findtext(".//q:mattext", namespaces=QTI_NS))
                  for lab in item.iter(f"{{{QTI_NS['q']}}}response_label") if lab.find(".//q:mattext", QTI_NS) is not None}
        correct = item.find("q:resprocessing/q:respcondition[q:setvar='100']", QTI_NS)
        equals = [e.text for e in correct.iter(f"{{{QTI_NS['q']}}}varequal")]
        feedback = item.find("q:itemfeedback[@ident='general_fb']//q:mattext", QTI_NS)
        items.append({
            "title": item.get("title"),
            "type": QTI_TYPES[meta["question_type"]],
            "points": float(meta["points_possible"]),
            "prompt": _html_to_text(item.find("q:presentation/q:material/q:mattext", QTI_NS).text),
            "choices": list(labels.values()),
            "correct": [labels.get(e, e) for e in equals],
            "range": (float(correct.findtext(".//q:vargte", namespaces=QTI_NS) or "nan"),
                      float(correct.findtext(".//q:varlte", namespaces=QTI_NS) or "nan")),
            "feedback": _html_to_text(feedback.text) if feedback is not None else None,
        })
    return assessment.get("title"), items


def test_qti_round_trip(real_quizzes, nasty_quiz, tmp_path):
    for quiz in all_quizzes(real_quizzes, nasty_quiz):
        path = write_qti(quiz, tmp_path / f"{quiz.id}.zip")
        title, items = read_qti(path)
        assert title == quiz.title
        assert [i["title"] for i in items] == [q.id for q in quiz.questions]
        for q, item in zip(quiz.questions, items):
            assert item["type"] == q.type, q.id
            assert item["points"] == q.points, q.id
            assert _same_text(item["prompt"], q.prompt), (q.id, item["prompt"])
            assert _same_text(item["feedback"], q.explanation), (q.id, item["feedback"])
            if q.type == "multiple_choice":
                assert item["choices"] == [o.text for o in q.options]
                assert item["correct"] == [q.option(q.answer).text]
            elif q.type == "true_false":
                assert item["choices"] == ["True", "False"]
                assert item["correct"] == ["True" if q.answer else "False"]
            elif q.type == "numeric":
                assert float(item["correct"][0]) == pytest.approx(q.answer)
                assert item["range"] == pytest.approx((q.answer - q.tolerance, q.answer + q.tolerance), abs=1e-4)
            else:
                assert item["correct"] == list(q.accepted)


def test_qti_zip_has_canvas_layout(real_quizzes, tmp_path):
    path = write_qti(real_quizzes["attention_score"], tmp_path / "out" / "sc.zip")
    with zipfile.ZipFile(path) as zf:
        names = zf.namelist()
        assert "imsmanifest.xml" in names
        meta = [n for n in names if n.endswith("/assessment_meta.xml")]
        assert len(meta) == 1
        ET.fromstring(zf.read(meta[0]))  # well-formed


def test_cli_export_writes_both_formats(tmp_path, capsys):
    quizzes = Path(__file__).resolve().parents[2] / "quizzes"
    assert quiz_cli(["export", "--format", "gift", "--out", str(tmp_path), "--quizzes", str(quizzes)]) == 0
    assert quiz_cli(["export", "--format", "qti", "--out", str(tmp_path), "--quizzes", str(quizzes)]) == 0
    written = sorted(p.name for p in tmp_path.iterdir())
    assert written == sorted(f"{q}{ext}" for q in load_quizzes(quizzes) for ext in (".gift", ".qti.zip"))
    assert len(parse_gift((tmp_path / "attention.gift").read_text(encoding="utf-8"))) == len(
        load_quizzes(quizzes)["attention"].questions)


# --- Moodle XML ----------------------------------------------------------------------------------

MOODLE_TYPES = {"multichoice": "multiple_choice", "truefalse": "true_false", "numerical": "numeric",
                "shortanswer": "short_answer", "essay": "short_answer"}


def read_moodle(text: str) -> list[dict]:
    """Questions of a Moodle XML file, read back with the standard library's parser."""
    root = ET.fromstring(text)
    assert root.tag == "quiz"
    items = []
    for element in root.findall("question"):
        if element.get("type") == "category":
            continue

        def text_of(path: str) -> str:
            return _html_to_text((element.findtext(path) or "").replace("<br>", "\n"))

        items.append({
            "kind": element.get("type"), "name": element.findtext("name/text"),
            "prompt": text_of("questiontext/text"), "feedback": text_of("generalfeedback/text"),
            "points": float(element.findtext("defaultgrade")),
            "answers": [(_html_to_text(a.findtext("text")), float(a.get("fraction")), a.findtext("tolerance"))
                        for a in element.findall("answer")],
            "graderinfo": text_of("graderinfo/text"),
        })
    return items


def test_moodle_xml_round_trip_keeps_points_and_partial_credit(real_quizzes, nasty_quiz):
    from autograder.quiz.export_moodle import MOODLE_FRACTIONS, to_moodle_xml

    for quiz in all_quizzes(real_quizzes, nasty_quiz):
        items = read_moodle(to_moodle_xml(quiz))
        assert [i["name"] for i in items] == [q.id for q in quiz.questions]
        for q, item in zip(quiz.questions, items):
            assert MOODLE_TYPES[item["kind"]] == q.type, q.id
            assert item["points"] == q.points, q.id
            assert _same_text(item["prompt"], q.prompt) and _same_text(item["feedback"], q.explanation), q.id
            assert all(fraction in map(float, MOODLE_FRACTIONS) for _, fraction, _ in item["answers"])
            if q.type == "multiple_choice":
                assert [(t, f) for t, f, _ in item["answers"]] == [(o.text, 100 if o.id == q.answer else 0)
                                                                   for o in q.options]
            elif q.type == "true_false":
                assert dict((t, f) for t, f, _ in item["answers"]) == {"true": 100 * q.answer,
                                                                       "false": 100 * (not q.answer)}
            elif q.type == "numeric":
                ((value, fraction, tolerance),) = item["answers"]
                assert (float(value), fraction, float(tolerance)) == (q.answer, 100, q.tolerance)
            elif item["kind"] == "shortanswer":
                assert q.maths or q.code
                assert [(t, f) for t, f, _ in item["answers"]] == [(a, 100) for a in q.accepted]
            else:  # free text: graded by hand in Moodle, with the rubric's partial credit for the grader
                assert not item["answers"]
                for rubric in q.rubric:
                    assert f"{rubric.points:g} point(s): {' / '.join(rubric.keywords)}" in item["graderinfo"]
                assert all(a in item["graderinfo"] for a in q.accepted)


def test_moodle_fractions_are_the_ones_moodle_accepts():
    from autograder.quiz.export_moodle import moodle_fraction

    assert moodle_fraction(1, 2) == "50" and moodle_fraction(1, 3) == "33.33333" and moodle_fraction(0, 2) == "0"
    with pytest.raises(QuizFormatError):
        moodle_fraction(1, 7.5)


def test_cli_export_moodle(tmp_path):
    quizzes = Path(__file__).resolve().parents[2] / "quizzes"
    assert quiz_cli(["export", "--format", "moodle", "--out", str(tmp_path), "--quizzes", str(quizzes)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(f"{q}.moodle.xml" for q in load_quizzes(quizzes))
    assert len(read_moodle((tmp_path / "attention.moodle.xml").read_text(encoding="utf-8"))) == len(
        load_quizzes(quizzes)["attention"].questions)
