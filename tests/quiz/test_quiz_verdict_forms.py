"""Every true/false and multiple-choice question of the shipped quizzes, asked in the forms students write.

A grid of forms is built for each question from its own key (verdict words in the quiz's languages, hedges,
negations, reasons; option letters, texts, places, reasons) and graded. Forms whose meaning is the key
must get full credit without a person; their siblings (the opposite verdict, a wrong option, the key's
verdict with a misconception, a contrast or a negation as its reason, a letter with another option's text)
must never get full credit.
"""
from __future__ import annotations

import itertools
import re

import pytest

from autograder.quiz import grade_question
from autograder.quiz.choices import DEFAULT_LANGUAGES, VERDICT_WORDS

HEDGES_BEFORE = ("", "I think ", "probably ", "i guess ", "je pense que ", "creo que ", "ich glaube ")
HEDGES_AFTER = ("", ".", "!", "?", " I think", ", not sure", "? I think so")
FRAMES = ("{}", "it's {}", "the statement is {}", "that is {}", "{}.", "c'est {}")
# "not <word>" in each language, with the words it may turn around
NEGATED = {"en": ("not {}", "it's not {}", "that isn't {}", "it is not {}"), "fr": ("pas {}", "c'est pas {}",
           "ce n'est pas {}"), "es": ("no es {}",), "de": ("nicht {}", "das ist nicht {}")}
LETTER_FORMS = ("{l}", "{L}", "({l})", "{l})", "{L}.", "{l}:", "option {l}", "answer: {l}", "{l},", "[{l}]")


def _questions(quizzes, kind):
    return [q for quiz in quizzes.values() for q in quiz.questions if q.type == kind]


def _words(value: bool) -> list[str]:  # the shipped quizzes' languages (the default ones)
    return [w for language in DEFAULT_LANGUAGES for w in VERDICT_WORDS[language][value] if len(w) > 1]


def _negated(value: bool) -> list[str]:
    # the words that mean `value` once negated: the opposite verdict's, in the language of the negation
    return [form.format(w) for language, forms in NEGATED.items() for form in forms
            for w in VERDICT_WORDS[language][not value] if len(w) > 2 and w not in ("non", "nein", "nope", "nah")]


def _explained(q) -> str:
    return re.sub(r"^(?:true|false)\.\s*", "", q.explanation.strip(), flags=re.I)


def _verdict_grid(q):
    right = q.answer
    plain = [f.format(w) for f in FRAMES for w in _words(right)]
    full = [b + p + a for b, p, a in itertools.product(HEDGES_BEFORE, plain[:12], HEDGES_AFTER)]
    full += plain + _negated(right) + [w.upper() for w in _words(right)] + [w.title() for w in _words(right)]
    full += ["it's the case" if right else "it's not the case"]
    wrong_words = _words(not right)
    zero = [f.format(w) for f in FRAMES for w in wrong_words] + _negated(not right)
    never = [f"{w}, {_explained(q)}" for w in wrong_words[:6]]
    never += [f"{w}, {q.misconception}" for w in _words(right) if q.misconception]
    never += [f"{w}, because {q.misconception[0].lower()}{q.misconception[1:]}" for w in _words(right)[:6]
              if q.misconception]
    never += [f"{w}, but {_explained(q)}" for w in _words(right)[:6]]
    never += [f"{w}, {q.prompt.strip()}" for w in _words(right)[:6] if not right]
    never += [f"{w} and {v}" for w, v in itertools.product(_words(right)[:4], wrong_words[:4])]
    never += [f"{w}, not {x}" for w, x in itertools.product(_words(right)[:4], ("really", "always", "quite"))]
    never += [f"{w}, {negate(_explained(q))}" for w in _words(right)[:6]]
    # the statement with its last word turned into another ("... is typically unidirectional")
    never += [f"{w}, {q.prompt.strip().rstrip('.').rsplit(' ', 1)[0]} {other}" for w in _words(right)[:6]
              for other in ("unidirectional", "irrelevant", "impossible", "unrelated", "wrongly", "incorrectly")]
    # hedges and interjections around a bare verdict say how sure the writer is
    full += [f.format(w) for f in ("I'd say {}?", "I believe so, {}", "hmm, {}?", "well, {}", "I think so: {}")
             for w in _words(right)[:6]]
    # "not always", "not by default": "not" before the statement's own words denies it (a false verdict)
    from autograder.quiz.choices import QUALIFIERS

    runs = _runs(q.prompt)
    denials = [f"not {run}" for run in runs if set(run.casefold().split()) & QUALIFIERS]
    # "not <a part of the statement>" with no qualifier: the part may be true ("not add up to 1")
    never += [f"not {run}" for run in runs if not set(run.casefold().split()) & QUALIFIERS]
    (full if right is False else zero).extend(denials + [f"{d} - false" for d in denials[:8]])
    never += [f"{d}, {w}" for d in denials[:8] for w in ("true", "yes", "vrai")] if right is False else []
    never += [f"not {q.prompt.split()[0]}"]  # the statement's subject denied: it says nothing of the claim
    # typos of the short verdict words: swapped, doubled, left out or added letters are read; a changed letter
    # ("tree" of "true") is not, since it makes other words
    for word in [w for w in _words(right) if 4 <= len(w) < 6]:
        full += sorted(_reshuffled(word))[:12]
        never += sorted({word[:i] + "x" + word[i + 1:] for i in range(len(word))} - {word} - set(_words(right)))
    return full, zero, never


def _reshuffled(word: str) -> set[str]:
    """The word with two neighbouring letters swapped, one letter doubled, or one left out (kept if 3+ long)."""
    forms = {word[:i] + word[i + 1] + word[i] + word[i + 2:] for i in range(len(word) - 1)}
    forms |= {word[:i] + word[i] + word[i:] for i in range(len(word))}
    forms |= {word[:i] + word[i + 1:] for i in range(len(word)) if len(word) > 3}
    words = {w for language in VERDICT_WORDS.values() for side in language.values() for w in side}
    return {f for f in forms if f != word and f not in words and f not in ("war", "rue", "tue", "fase", "fake")}


def _runs(statement: str, longest: int = 3) -> list[str]:
    """Runs of one to `longest` words of a statement, in its order, after its first word (no verdict word among
    them): "not attention" of "Attention is ..." denies nothing said."""
    words = re.findall(r"[^\W\d_]+", statement)
    verdicts = {w for language in VERDICT_WORDS.values() for side in language.values() for w in side}
    runs = {" ".join(words[i:i + n]) for n in range(1, longest + 1) for i in range(1, len(words) - n + 1)
            if words[i].casefold() not in {w.casefold() for w in words[:i]}}
    return sorted(r for r in runs if not set(r.casefold().split()) & verdicts)


def negate(sentence: str) -> str:
    """The sentence with its first verb turned: "is" -> "is not", "are" -> "are not", ... (or "not" dropped)."""
    if re.search(r"\bnot\b", sentence):
        return re.sub(r"\s*\bnot\b", "", sentence, count=1)
    turned = re.sub(r"\b(is|are|does|do|can|makes|gives|uses)\b", r"\1 not", sentence, count=1)
    return turned if turned != sentence else "not " + sentence


def _check(q, full, zero, never):
    problems = []
    for given in full:
        r = grade_question(q, given)
        if r.pending or r.score != q.points:
            problems.append(("should be full credit", given, r.feedback))
    for given in zero:
        r = grade_question(q, given)
        if r.score >= q.points:
            problems.append(("wrong answer at full credit", given, r.feedback))
        elif r.pending or r.score != 0:
            problems.append(("should be 0 without a person", given, r.feedback))
    for given in never:
        r = grade_question(q, given)
        if r.score >= q.points and not r.pending:
            problems.append(("wrong answer at full credit", given, r.feedback))
    return problems


def _grid_problems(real_quizzes, kind, grid_of):
    """(how many forms were tried, what went wrong) over every question of one kind."""
    questions = _questions(real_quizzes, kind)
    assert questions
    problems, counted = [], 0
    for q in questions:
        grid = grid_of(q)
        counted += sum(map(len, grid))
        problems += [(q.id, *p) for p in _check(q, *grid)]
    return counted, problems


def test_every_verdict_form_of_every_true_false_question(real_quizzes):
    counted, problems = _grid_problems(real_quizzes, "true_false", _verdict_grid)
    assert counted > 3000 and not problems, problems[:20]


def _choice_grid(q):
    texts = {o.id: o.text for o in q.options}
    right, wrong = q.answer, [i for i in texts if i != q.answer]
    letters = [f.format(l=right, L=right.upper()) for f in LETTER_FORMS]
    full = letters + [f"{l} {texts[right]}" for l in letters if l.endswith((")", ".", ":", ","))]
    full += [texts[right], texts[right].upper(), f"the {texts[right]}" if texts[right][0].isalpha() else texts[right], f"{texts[right]}."]
    full.append(("the first one", "the second one", "the third one", "the fourth one")[list(texts).index(right)])
    zero = [f.format(l=w, L=w.upper()) for w in wrong for f in LETTER_FORMS]
    zero += [texts[w] for w in wrong] + [f"{right} or {w}" for w in wrong] + [f"{w}, {right}" for w in wrong]
    never = [f"({w}) {texts[right]}" for w in wrong] + [f"({right}) {texts[w]}" for w in wrong]
    never += [f"{w}) {texts[w]}, {texts[right]}" for w in wrong]
    never += [f"({right}) {texts[right]}, but {texts[w]}" for w in wrong]
    never += [f"({right}) not {texts[right]}" , f"{right}) {texts[right]} or maybe {wrong[0]}"]
    never += [f"({right}) because of {texts[w]}" for w in wrong]
    never += [f"{right}) {negate(texts[right])}", f"{texts[right]} - {texts[wrong[0]]}"]
    # every other wording the quiz lists for an option (`also`), as the option's text is written
    also = {o.id: o.also for o in q.options}
    for form in also[right]:
        full += [form, f"{right}) {form}", f"{form} ({right})", f"I think {form}", f"{form}?", f"maybe {form}?",
                 f"because {form}", form.upper(), f"{form}."]
        never += [f"({w}) {form}" for w in wrong]
    for w in wrong:
        zero += list(also[w]) + [f"{w}) {form}" for form in also[w]]
        never += [f"({right}) {form}" for form in also[w]]
    full += [f"la réponse {right}", f"the answer {right}", f"die Antwort ({right})"]
    full += [texts[right].replace("-", " ")] if re.search(r"[a-z]-[a-z]", texts[right]) else []
    full += [f"I think ({right})", f"{right}?", f"{right.upper()}, I think", f"hmm, {right}", f"I'd go with {right}",
             f"my answer is ({right})", f"it's {texts[right]}", f"{texts[right]} -> {right}", f"{texts[right]}, so ({right})"]
    shapes = [re.findall(r"\d+", t) for t in texts.values()]
    if all(shapes) and all(re.fullmatch(r"\(\s*\d+(?:\s*,\s*\d+)+\s*\)", t) for t in texts.values()):
        numbers = re.findall(r"\d+", texts[right])
        full += ["x".join(numbers), " × ".join(numbers), f"[{', '.join(numbers)}]", f"torch.Size([{', '.join(numbers)}])",
                 f"[{' '.join(numbers)}]"]
        zero += ["x".join(re.findall(r"\d+", texts[w])) for w in wrong]
    return full, zero, never


def test_every_option_form_of_every_multiple_choice_question(real_quizzes):
    counted, problems = _grid_problems(real_quizzes, "multiple_choice", _choice_grid)
    assert counted > 500 and not problems, problems[:20]


@pytest.mark.parametrize("given, score", [
    ("verdadeiro", 1), ("verdadro", 1), ("incorect", 0), ("no es falso", 1), ("no es verdad", 0),
    ("nicht falsch", 1), ("ce n'est pas faux", 1), ("isn't false", 1), ("not the case", 0),
    ("stimmt", 1), ("stimmt nicht", 0), ("das stimmt nicht", 0), ("keineswegs wahr", 0), ("keineswegs falsch", 1),
])
def test_a_typo_or_a_negation_in_a_verdict_is_read(real_quizzes, given, score):
    q = next(q for q in _questions(real_quizzes, "true_false") if q.answer is True)
    r = grade_question(q, given)
    assert (r.score, r.pending) == (score, False), r.feedback


from hypothesis import given, settings, strategies as st  # noqa: E402

from autograder.quiz.choices import read_choice, read_verdict, verdict_words  # noqa: E402
from autograder.quiz.reasons import doubt  # noqa: E402

_PIECES = st.sampled_from(["true", "false", "not", "no", "es", "vrai", "pas", "n't", "b)", "(a)", ",", " - ", "?",
                           "because", "but", "the", "second", "one", "option", "I think", "it's", "case", "∞", "d_k",
                           "O(n²)", "verdadeiro", ":", ".", "é", "", " "])


@settings(max_examples=400, deadline=None)
@given(st.lists(_PIECES, max_size=8).map(" ".join) | st.text(max_size=40))
def test_reading_a_verdict_or_an_option_never_fails(text):
    """A grader error would score the answer 0 as 'could not grade': no text may raise while being read."""
    words = verdict_words(("en", "fr", "es", "de"))
    verdict = read_verdict(text, words)
    choice = read_choice(text, {"a": "the encoder", "b": "the decoder", "c": "O(n²)"})
    for reading in (verdict, choice):
        assert reading.value is not None or reading.unclear
        doubt(reading.reason, ["the encoder"], ["the decoder"])


def test_a_statement_that_negates_is_not_denied_by_echoing_it(minimal_quiz_data):
    from autograder.quiz.loader import quiz_from_data as parse_quiz

    data = minimal_quiz_data
    tf = next(q for q in data["questions"] if q["type"] == "true_false")
    tf.update(prompt="Dot-product scoring needs no parameters of its own.", answer=True)
    q = parse_quiz(data).question(tf["id"])
    assert grade_question(q, "not of its own").pending  # "not" before words of a statement that says "no"
    tf.update(prompt="Attention is always a hard argmax.", answer=False)
    q = parse_quiz(data).question(tf["id"])
    assert grade_question(q, "not always").score == 1 and grade_question(q, "not always, true").pending


@pytest.mark.parametrize("also, problem", [
    ({"a": ["beta"]}, "is also a wording of option"),
    ({"a": ["the beta"]}, "is also a wording of option"),     # articles aside, it is b's text
    ({"b": ["b)"]}, "reads as an option letter"),
    ({"a": ["first"], "b": ["first"]}, "also a wording of option a"),
])
def test_the_loader_refuses_a_wording_that_names_another_option(minimal_quiz_data, also, problem):
    from autograder.quiz.loader import quiz_from_data as parse_quiz
    from autograder.quiz.model import QuizFormatError

    mc = next(q for q in minimal_quiz_data["questions"] if q["type"] == "multiple_choice")
    for option in mc["options"]:
        option["also"] = also.get(option["id"], [])
    with pytest.raises(QuizFormatError, match=problem):
        parse_quiz(minimal_quiz_data)


def _option_slips(real_quizzes):
    """(question, option id, its wording with one word mistyped) for every wording of every option."""
    from autograder.quiz.choices import option_wording

    found = []
    for q in _questions(real_quizzes, "multiple_choice"):
        for option in q.options:
            for wording in (option.text, *option.also):
                words = option_wording(wording).split()
                for k, word in enumerate(words):
                    if len(word) < 4 or not word.isalpha():
                        continue
                    slips = {word[:i] + word[i + 1:] for i in range(len(word))}
                    slips |= {word[:i] + word[i + 1] + word[i] + word[i + 2:] for i in range(len(word) - 1)}
                    slips |= {word[:i] + "q" + word[i + 1:] for i in range(len(word))}  # a changed letter
                    found += [(q, option.id, " ".join(words[:k] + [s] + words[k + 1:])) for s in sorted(slips - {word})[:6]]
    return found


def test_a_typo_in_an_option_never_turns_it_into_another(real_quizzes):
    """Every wording of every option with one word mistyped: read as that option (full credit for the right
    one, 0 for a wrong one), or sent to a person; never credit for a wrong option's typo, never 0 by itself for
    the right option's."""
    cases = _option_slips(real_quizzes)
    assert len(cases) > 300
    wrong = []
    for q, option, written in cases:
        r = grade_question(q, written)
        if r.pending:
            continue
        if (r.score == q.points) != (option == q.answer):
            wrong.append((q.id, option, written, r.score, r.feedback))
    read = sum(not grade_question(q, w).pending for q, _, w in cases)
    assert not wrong and read > len(cases) / 3, (wrong[:10], read, len(cases))


def test_a_shape_in_symbols_after_a_letter_is_its_reason_not_a_second_letter(real_quizzes):
    """"option a - B, T_q, T_k, d_k": the list of names is the shape option a writes in symbols (heldout4)."""
    q = next(q for q in _questions(real_quizzes, "multiple_choice") if q.id == "sc-12")
    assert grade_question(q, "option a - B, T_q, T_k, d_k").score == q.points
    assert grade_question(q, "a, b").score == 0 and not grade_question(q, "a, b").pending  # two letters: two options
    assert grade_question(q, "b - B, T_q, T_k, d_k").score < q.points  # the letter of another option
