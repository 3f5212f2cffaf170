"""Grading: each question type, rubric partial credit, numeric tolerance, and answer files
that are missing, malformed or odd (graded 0 with a message, never an exception)."""

from __future__ import annotations

import json

import pytest

from autograder.quiz import (
    Decision, GradingContext, answer_file_name, grade_answer_file, grade_question, grade_quiz, grade_submission,
    quiz_from_data,
)


@pytest.fixture
def mini(minimal_quiz_data):
    return quiz_from_data(minimal_quiz_data, "mini.yaml")


def test_perfect_answers_score_full_marks(mini):
    result = grade_quiz(mini, {"q-mc": "b", "q-tf": True, "q-sa": "√d_k", "q-num": 0.125})
    assert (result.score, result.max_score) == (5, 5)
    assert all(item.is_correct and item.feedback.startswith("Correct") for item in result.items)
    assert result.messages == ()


@pytest.mark.parametrize("given, score", [
    ("b", 1), ("B", 1), ("(b)", 1), ("b)", 1), (" b. ", 1), ("beta", 1), ("Beta", 1), ("B.", 1), ("[b]", 1),
    ("b) beta", 1), ("(b) Beta", 1), ("B. beta", 1), ("b - beta", 1), ("option b", 1), ("Answer: b", 1),
    ("b) beta, because beta", 1),
    ("a", 0), ("alpha", 0), ("a) alpha", 0), ("b and c", 0), ("b) c)", 0), ("a, b", 0), ("b or a", 0),
])
def test_multiple_choice(mini, given, score):
    result = grade_question(mini.question("q-mc"), given)
    assert (result.score, result.pending) == (score, False), result.feedback


@pytest.mark.parametrize("given", ["b) alpha", "a) beta", "b) something else entirely",
                                   "b) beta, because it is second"])  # a reason the key does not state
def test_a_letter_with_another_options_text_goes_to_review(mini, given):
    result = grade_question(mini.question("q-mc"), given)
    assert result.pending and result.score == 0 and "letter" in result.feedback


@pytest.mark.parametrize("given", ["the second one", "la deuxième", "the 2nd option", "die zweite"])
def test_an_option_named_by_its_place_is_that_option(mini, given):
    # options are shown in the quiz's order (the answer file, the exports: shuffleanswers false)
    result = grade_question(mini.question("q-mc"), given)
    assert not result.pending and result.score == 1


@pytest.mark.parametrize("given", ["z", "the fifth one", "beta-ish", 2, True, "b ✓"])
def test_an_answer_that_names_no_option_goes_to_review(mini, given):
    result = grade_question(mini.question("q-mc"), given)
    assert result.pending and result.score == 0 and (
        "could not read" in result.feedback or "sign" in result.feedback)


@pytest.mark.parametrize("question_id, given", [
    ("att-06", "b) the decoder"), ("att-06", "(b) decoder"), ("att-06", "the decoder"), ("att-06", "B."),
    ("att-09", "c) O(n²)"), ("att-09", "c) O(n^2)"), ("att-09", "O(n²)"), ("att-09", "(c)"),
    ("att-03", "a weighted sum of values"), ("att-03", "b) a weighted sum of values"),
])
def test_real_options_as_students_write_them(real_quizzes, question_id, given):
    question = real_quizzes["attention"].question(question_id)
    assert grade_question(question, given).score == question.points


def test_multiple_choice_feedback_names_the_choice(mini):
    assert grade_question(mini.question("q-mc"), "a").feedback == "Incorrect: you chose (a) alpha."
    assert "could not read 'z' as one of the options a, b, c" in grade_question(mini.question("q-mc"), "z").feedback


@pytest.mark.parametrize("given, score", [
    (True, 1), ("true", 1), ("True", 1), ("T", 1), ("yes", 1), ("TRUE.", 1), ("vrai", 1), ("Vrai !", 1),
    ("verdadero", 1), ("Verdadera", 1), ("cierto", 1), ("sí", 1), ("wahr", 1), ("richtig", 1), ("ja", 1),
    ("True: it is", 1),
    ("✓", 1), ("✔", 1), ("1", 1), (1, 1),
    (False, 0), ("false", 0), ("F", 0), ("faux", 0), ("falso", 0), ("falsch", 0), ("nein", 0), (0, 0), ("✗", 0),
])
def test_true_false(mini, given, score):
    result = grade_question(mini.question("q-tf"), given)
    assert (result.score, result.pending) == (score, False), result.feedback


@pytest.mark.parametrize("given", ["maybe", "not always true", "true or false", "vero", "it depends", "no true",
                                   2, "true ✗", "✓ false", "true 👎", "0.5"])
def test_an_unclear_verdict_goes_to_review(mini, given):
    result = grade_question(mini.question("q-tf"), given)
    assert result.pending and result.score == 0


@pytest.mark.parametrize("given, suggested", [
    ("True, because it uses a causal mask", 1), ("true, but the rows now sum to a bit less than 1", 1),
    ("vrai car les poids somment à 1", 1), ("Yes since d_k grows", 1),
])
def test_a_verdict_with_a_reason_it_cannot_vouch_for_is_read_by_a_person(mini, given, suggested):
    """A right verdict whose reason contrasts, or shares no word with the question and its key: review, with
    the verdict's score as the suggestion (tests/quiz/test_quiz_verdict_forms.py has the reasons it grades)."""
    result = grade_question(mini.question("q-tf"), given)
    assert result.pending and result.score == 0, result.feedback
    assert result.suggested_score == suggested and "reason" in result.suggestion


@pytest.mark.parametrize("given", ["False: the softmax does that", "no, it is not", "falsch, weil es so ist"])
def test_a_wrong_verdict_scores_0_whatever_its_reason(mini, given):
    result = grade_question(mini.question("q-tf"), given)
    assert (result.score, result.pending) == (0, False), result.feedback


def test_true_false_words_follow_the_quizs_languages(minimal_quiz_data):
    minimal_quiz_data.update(languages=["en"], verdict_words={"true": ["vero"], "false": ["falso"]})
    question = quiz_from_data(minimal_quiz_data).question("q-tf")
    assert grade_question(question, "vero").score == 1 and grade_question(question, "falso").score == 0
    assert grade_question(question, "verdadero").pending  # Spanish is not one of this quiz's languages
    minimal_quiz_data.update(languages=["xx"])
    with pytest.raises(Exception, match="languages"):
        quiz_from_data(minimal_quiz_data)


def test_a_code_answer_with_a_mistyped_name_goes_to_review_with_the_error(real_quizzes):
    question = real_quizzes["attention"].question("att-13")
    for slip, error in (("F.sofmax(scores, dim=-1)", "no attribute 'sofmax'"),
                        ("F.softmax(scores, dims=-1)", "unexpected keyword argument 'dims'")):
        result = grade_question(question, slip)
        assert result.pending and result.score == 0 and error in result.feedback, result.feedback
    capital = grade_question(question, "F.Softmax(scores, dim=-1)")  # code is case-sensitive
    assert capital.pending and "no attribute 'Softmax'" in capital.feedback
    wrong = grade_question(question, "torch.sigmoid(scores)")  # listed with 0 points
    assert not wrong.pending and wrong.score == 0


@pytest.mark.parametrize("given, score", [
    (0.125, 1), ("0.125", 1), ("1/8", 1), (".125", 1), (0.1259, 1), (0.1241, 1), ("0.126", 1), (0.124, 1),
    (0.1262, 0), (0.1238, 0), (0.25, 0), ("one eighth", 1), ("1/sqrt(64)", 1), ("0,125", 1), ("2^-3", 1),
    ("about 0.125", 1), ("≈ ⅛", 1), ("0,25", 0), (True, 0),
])
def test_numeric_tolerance(mini, given, score):
    assert grade_question(mini.question("q-num"), given).score == score


def test_numeric_zero_tolerance_still_accepts_float_rounding(minimal_quiz_data):
    minimal_quiz_data["questions"][3].update(answer=0.3, tolerance=0)
    question = quiz_from_data(minimal_quiz_data).question("q-num")
    assert grade_question(question, 0.1 + 0.2).score == 1
    assert grade_question(question, 0.3001).score == 0


def test_unreadable_number_waits_for_review(mini):
    result = grade_question(mini.question("q-num"), "small, like the inverse of eight")
    assert result.pending and result.score == 0
    assert "could not read 'small, like the inverse of eight' as a number" in result.feedback
    assert "waiting for your instructor's review (1 point pending)" in result.feedback


@pytest.mark.parametrize("given", ["1,000", "1,5,0"])
def test_ambiguous_decimal_commas_are_not_guessed(mini, given):
    assert grade_question(mini.question("q-num"), given).pending


@pytest.mark.parametrize("given, score, pending", [
    ("square root of d_k", 2, False),        # accepted answer
    ("by sqrt(d_k)", 2, False),              # regex
    ("sqrt of the key dimension", 0, True),  # rubric would give 1: a person decides
    ("root of dk", 0, True),                 # rubric would give 2, but the question has no auto_rubric
    ("the model width", 0, True),
])
def test_free_text_is_accepted_exactly_or_waits_for_review(mini, given, score, pending):
    result = grade_question(mini.question("q-sa"), given)
    assert (result.score, result.pending) == (score, pending)


def test_free_text_earns_credit_only_when_it_states_an_accepted_answer(real_quizzes):
    """Credit without review needs the key terms of an accepted answer (or of a partial answer whose score
    the quiz fixed), in its order and with nothing else; a full keyword match alone (swapped roles,
    negation, stuffing) only gets a suggestion."""
    question = real_quizzes["attention_score"].question("sc-07")  # grow / saturate / shrink
    cases = {
        "The scores get large.": (1, False),  # partial answers the quiz scores (`scored:`)
        "Scores grow and softmax saturates": (2, False),
        "Scores grow and softmax saturates, I guess": (0, True),
        "Scores grow, the softmax saturates and gradients vanish": (3, False),
        "the scores grow so the softmax saturates, so the gradients vanish": (3, False),
        "Scores grow, the softmax saturates and gradients do not vanish": (0, True),
        "the gradients grow large, so the softmax saturates and the scores vanish": (0, True),
        "the softmax saturates because the scores grow and gradients vanish": (0, True),
        "gradients vanish, the softmax saturates, scores grow": (0, True),
        "It is slower": (0, True),
    }
    for answer, expected in cases.items():
        result = grade_question(question, answer)
        assert (result.score, result.pending) == expected, (answer, result.feedback)


def test_a_pending_free_text_answer_carries_the_rubric_suggestion_and_why(real_quizzes):
    question = real_quizzes["attention"].question("att-07")
    reversed_ = grade_question(question, "attention compresses all encoder states into one final vector")
    assert reversed_.pending and reversed_.score == 0
    assert reversed_.suggested_score == 2  # every rubric keyword is there: a hint, never the grade
    assert "'compresses'" in reversed_.suggestion and "not graded automatically" in reversed_.suggestion
    assert reversed_.meaning == "attention compresses <all-states> into <one-vector>"
    swapped = grade_question(question, "Instead of all encoder states, the decoder can look at one final vector")
    assert swapped.pending and "in that order" in swapped.suggestion
    declared = grade_question(question, "The decoder can look at one final vector instead of all encoder states")
    assert (declared.score, declared.pending) == (0, False) and "reversed" in declared.feedback  # `scored:` 0
    negated = grade_question(question, "the decoder can not look at all encoder states instead of one final vector")
    assert negated.pending and "it says 'not'" in negated.suggestion
    right = grade_question(question, "Rather than a single vector, the decoder attends to every encoder state")
    assert (right.score, right.pending, right.suggested_score, right.suggestion) == (2, False, None, "")


def test_same_meaning_in_other_words_shares_a_reading(real_quizzes):
    question = real_quizzes["attention"].question("att-07")
    a = grade_question(question, "the decoder looks at every encoder state but not one final vector")
    b = grade_question(question, "The decoder sees all the encoder states, but not a single vector.")
    assert a.pending and b.pending and a.meaning == b.meaning


def test_mask_question_never_credits_the_listed_misconceptions(real_quizzes):
    question = real_quizzes["attention_score"].question("sc-04")
    for wrong in ("Set its weight to 0 after softmax", "set the score to 0", "set the score to -inf after softmax"):
        assert grade_question(question, wrong).score == 0
    assert grade_question(question, "fill it with float('-inf') before the softmax").score == 2


def test_instructor_decisions_apply_to_every_student_with_that_answer(mini):
    class Decided:
        def get(self, quiz_id, question_id, text):
            return Decision(1.5, "Right idea, no sqrt.") if (quiz_id, question_id, text) == (
                "mini", "q-sa", "root of dk") else None

    context = GradingContext(decisions=Decided())
    for spelling in ("root of dk", "Root of  dk.", "ROOT OF DK"):
        result = grade_quiz(mini, {"q-sa": spelling}, context).item("q-sa")
        assert (result.score, result.pending) == (1.5, False)
        assert result.feedback == "Right idea, no sqrt. (graded by your instructor)"
    assert grade_quiz(mini, {"q-sa": "root of d"}, context).item("q-sa").pending


def test_missing_blank_and_unknown_answers_are_reported(mini):
    result = grade_quiz(mini, {"q-mc": "b", "q-tf": "  ", "q-sa": None, "q-extra": "x", "q-other": 1})
    assert result.score == 1
    for qid in ("q-tf", "q-sa", "q-num"):
        item = result.item(qid)
        assert (item.score, item.given, item.feedback) == (0, None, "No answer given.")
    assert result.messages == (
        "3 question(s) not answered (0 points): q-tf, q-sa, q-num",
        "unknown question id(s) ignored: q-extra, q-other",
    )
    assert result.problem is None  # answered badly, but the file itself was fine


def test_item_results_carry_answer_key_and_explanation(mini):
    item = grade_quiz(mini, {"q-mc": "a"}).item("q-mc")
    assert item.correct_answer == "(b) beta"
    assert item.explanation == "Because b."
    assert item.given == "a" and item.max_score == 1
    assert grade_quiz(mini, {}).item("q-num").correct_answer == "0.125 (± 0.001)"
    assert grade_quiz(mini, {}).item("q-tf").correct_answer == "True"


def test_answer_file_round_trip(mini, write_yaml):
    path = write_yaml(answer_file_name(mini), 'q-mc: b\nq-tf: true\nq-sa: "sqrt dk"\nq-num: 1/8\n')
    assert answer_file_name(mini) == "quiz_mini.yaml"
    result = grade_answer_file(mini, path)
    assert result.score == 5 and result.messages == ()
    json.dumps(result.to_dict())  # reports can be written as JSON


WHOLE_FILE_BROKEN = {
    "a list": "- b\n- true\n",
    "a plain string": "just some words\n",
    "binary junk": "\x00\x01\x02",
}


@pytest.mark.parametrize("case", sorted(WHOLE_FILE_BROKEN))
def test_a_file_with_no_answers_in_it_scores_zero_without_raising(mini, write_yaml, case):
    path = write_yaml("quiz_mini.yaml", WHOLE_FILE_BROKEN[case])
    result = grade_answer_file(mini, path)
    assert result.score == 0 and result.max_score == 5
    assert len(result.items) == 4 and all(item.score == 0 for item in result.items)
    assert len(result.messages) == 1 and result.problem == result.messages[0]
    assert result.messages[0].startswith("answer file could not be used, quiz scored 0")
    assert str(path) in result.messages[0]


BROKEN_ANSWER = {  # one broken answer among good ones: (file, feedback expected for q-sa, q-sa's score)
    "LaTeX in double quotes": ('q-mc: b\nq-sa: "\\sqrt{d_k}"\nq-num: 1/8\n', "line 2 (q-sa) was not valid YAML", 0),
    "unquoted colon": ("q-mc: b\nq-sa: by: square root of d_k\nq-num: 1/8\n", "read as the text 'by: square", 0),
    "block not indented": ("q-mc: b\nq-sa: |-\nsquare root of d_k\nq-num: 1/8\n", "line 3 (q-sa)", 2),
    "not yaml": ("q-mc: b\nq-sa: [sqrt\n  : : :\nq-num: 1/8\n", "line 3 (q-sa): not valid YAML", 0),
    "nested answer": ("q-mc: b\nq-sa:\n  - a\n  - b\nq-num: 1/8\n", "not a list or mapping", 0),
    "duplicate answer": ("q-mc: b\nq-sa: sqrt(d_k)\nq-num: 1/8\nq-sa: d_k\n", "answered twice (lines 2 and 4)", 0),
}


@pytest.mark.parametrize("case", sorted(BROKEN_ANSWER))
def test_a_broken_answer_costs_that_answer_only(mini, write_yaml, case):
    text, message, score = BROKEN_ANSWER[case]
    result = grade_answer_file(mini, write_yaml("quiz_mini.yaml", text))
    assert result.problem is None
    assert result.item("q-mc").score == 1 and result.item("q-num").score == 1
    item = result.item("q-sa")
    assert message in item.feedback, item.feedback
    assert item.score == score or item.pending
    if "scores 0" in item.feedback or "list" in item.feedback:
        assert "q-sa: |-\n  " in item.feedback  # the fix is shown as a block to copy


def test_a_latex_answer_read_literally_is_graded(mini, write_yaml):
    result = grade_answer_file(mini, write_yaml("quiz_mini.yaml", 'q-sa: "square root of d_k: \\sqrt{d_k}"\n'))
    item = result.item("q-sa")
    assert item.given == "square root of d_k: \\sqrt{d_k}" and "was not valid YAML" in item.feedback


def test_anchors_and_aliases_are_refused(mini, write_yaml):
    result = grade_answer_file(mini, write_yaml("quiz_mini.yaml", "q-mc: &x b\nq-num: *x\n"))
    assert result.item("q-num").given == "*x" and result.item("q-mc").score == 1


def test_undecodable_and_missing_answer_files(mini, tmp_path):
    bad = tmp_path / "quiz_mini.yaml"
    bad.write_bytes(b"q-mc: \xff\xfe\n")
    assert grade_answer_file(mini, bad).score == 0
    assert "cannot read file" in grade_answer_file(mini, bad).messages[0]
    assert "file not found" in grade_answer_file(mini, tmp_path / "absent.yaml").messages[0]
    assert grade_answer_file(mini, tmp_path).score == 0  # a folder, not a file


def test_empty_answer_file_means_nothing_answered(mini, write_yaml):
    result = grade_answer_file(mini, write_yaml("quiz_mini.yaml", "# nothing yet\n"))
    assert result.problem is None
    assert result.score == 0 and result.messages[0].startswith("4 question(s) not answered")


def test_grade_submission_uses_the_naming_convention(mini, tmp_path):
    missing = grade_submission(mini, tmp_path)
    assert missing.score == 0 and "no answer file quiz_mini.yaml handed in" in missing.messages[0]
    (tmp_path / "quiz_mini.yaml").write_text("q-mc: b\n", encoding="utf-8")
    assert grade_submission(mini, tmp_path).score == 1


@pytest.mark.parametrize("weird", [
    {"q-mc": ["a"], "q-tf": {"x": 1}, "q-sa": [3.5], "q-num": "∞"},
    {"q-mc": object(), "q-tf": b"true", "q-sa": True, "q-num": [0.125]},
    {("tuple", "key"): 1, 7: "b"},
])
def test_grade_quiz_never_raises_on_odd_python_values(mini, weird):
    result = grade_quiz(mini, weird)
    assert result.score == 0


def test_grade_quiz_with_non_mapping_answers(mini):
    result = grade_quiz(mini, ["b", True])  # type: ignore[arg-type]
    assert result.score == 0 and "answers must map question ids" in result.messages[0]


def test_full_real_quizzes_answer_key_scores_full(real_quizzes):
    """Answering every real question with its own key gives full marks (keys are consistent)."""
    for quiz in real_quizzes.values():
        answers = {q.id: (q.accepted[0] if q.type == "short_answer" else q.answer) for q in quiz.questions}
        result = grade_quiz(quiz, answers)
        assert result.score == quiz.max_score, [i for i in result.items if not i.is_correct]


def test_grade_submission_refuses_links_and_huge_files(mini, tmp_path):
    secret = tmp_path / "elsewhere.yaml"
    secret.write_text("q-mc: b\n", encoding="utf-8")
    folder = tmp_path / "student"
    folder.mkdir()
    (folder / "quiz_mini.yaml").symlink_to(secret)
    linked = grade_submission(mini, folder)
    assert linked.score == 0 and "not a regular file" in linked.problem
    (folder / "quiz_mini.yaml").unlink()
    (folder / "quiz_mini.yaml").write_text("q-mc: b\n" + "#" * (300 << 10), encoding="utf-8")
    huge = grade_submission(mini, folder)
    assert huge.score == 0 and "KiB" in huge.problem


_ROOTS = ("la racine carrée de {}", "raiz quadrada de {}", "la raíz cuadrada de {}", "squareroot of {}",
          "the square root of {}", "I think sqrt({})? maybe", "probably sqrt({})")


@pytest.mark.parametrize("form", _ROOTS)
def test_a_root_in_other_words_is_graded_and_its_siblings_are_not_given_credit(real_quizzes, form):
    q = next(q for quiz in real_quizzes.values() for q in quiz.questions if q.id == "sc-10")
    right = grade_question(q, form.format("d_k"))
    assert (right.score, right.pending) == (q.points, False), right.feedback
    for sibling in ("d_model", "d_k^2", "1/d_k", "d_k) / 2 * (1"):
        wrong = grade_question(q, form.format(sibling))
        assert wrong.score < q.points, (form, sibling, wrong.feedback)
    negated = grade_question(q, "not " + form.format("d_k"))
    assert negated.score < q.points, negated.feedback


def test_a_grader_bug_on_one_answer_sends_it_to_review_not_to_zero(monkeypatch, capsys, real_quizzes):
    """An exception inside the grader is the grader's problem: the answer waits for a person (its points
    neither earned nor lost), the student is told it is not their answer's fault, the instructor sees why."""
    from autograder.quiz import grade as grading

    question = next(q for q in real_quizzes["attention"].questions if q.type == "true_false")

    def broken(*args, **kwargs):
        raise KeyError("a grader bug")

    monkeypatch.setitem(grading._GRADERS, question.type, broken)
    item = grading.grade_question(question, "true")
    assert item.pending and item.score == 0 and "a problem of the grader" in item.feedback
    assert f"quiz question {question.id} could not be graded (KeyError" in capsys.readouterr().err


def test_a_bracket_that_does_not_close_after_a_letter_is_no_option_letter(real_quizzes):
    """"(B, T_q, T_k, d_k)" is a shape that starts with the letter b (the third held-out set found it scored as
    option b): an opening bracket names an option only when it closes right after the letter."""
    from autograder.quiz.choices import read_choice

    for question in (q for quiz in real_quizzes.values() for q in quiz.questions if q.type == "multiple_choice"):
        options = {o.id: o.text for o in question.options}
        for letter in options:
            for shaped in (f"({letter.upper()}, T_q, T_k)", f"[{letter}, 3, 4]", f"({letter} + 1) * 2"):
                assert read_choice(shaped, options).value != letter, (question.id, shaped)
            for named in (f"({letter})", f"[{letter}]", f"{letter})", f"({letter.upper()})"):
                assert read_choice(named, options).value == letter, (question.id, named)
