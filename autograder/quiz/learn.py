"""A course's review decisions become the quiz's knowledge: `python -m autograder.quiz learn OUT`.

From a finished review (OUT/review.yaml, groups with a `score`), each decided wording is a candidate addition
to its question in the quiz YAML:

- full points, "accept this reading": free text whose words are the key terms of one accepted answer but for
  words no term lists, each such run standing where exactly one term of that answer stands, adds the run to
  that term's phrases (so every wording that now reads the same is right by itself); any other full-points
  wording is added to `accepted` where the loader takes it (a formula or code answer, free text without terms);
  a multiple-choice wording that names no option is added to the key option's `also`;
- fewer points, "misconception": free text that reads fully in terms is added to `scored` with its points;
  a number, formula or free-text wording otherwise to `misconceptions` with its points (and the group's
  feedback, or "as decided in review", as what it says).

Never learned: words that turn a meaning (negations, causes, hedges, numbers: meaning.GUARDS), verdicts, and
an option decision below full points (it does not say which option the student meant). Each candidate is
written into the YAML text, which must pass the quiz schema and the loader's checks, and is refused when,
with it, the kit would score by itself any decided answer otherwise than it was decided: an answer decided
in the review, or one the kit scored by itself in the class (OUT/.state/quiz/kit-scored.json, kit_scored.py;
for these, a wait for a person is a change too). The command refuses to run without that record.
The candidates are shown as a diff of the quiz file; with `--write`, written (atomically).
"""
from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator


from .model import Question, Quiz, QuizFormatError
from .outcome import review_text

DEFAULT_SAYS = "as decided in review"


@dataclass(frozen=True)
class Candidate:
    quiz_id: str
    question_id: str
    answer: str            # the decided wording
    score: float
    kind: str              # "term", "accepted", "also", "scored", "misconception"
    target: str            # the term name or option id (term, also); "" otherwise
    item: Any              # what is added: a phrase, or a mapping for scored / misconceptions
    refused: str = ""      # why it is not added ("" when it is)

    def describe(self) -> str:
        what = {"term": f"phrase {self.item!r} for term {self.target!r}",
                "also": f"wording {self.item!r} for option ({self.target})",
                "accepted": f"accepted answer {self.item!r}"}.get(self.kind, f"{self.kind} {self.item!r}")
        head = f"{self.quiz_id} {self.question_id}: {self.answer!r} at {self.score:g}: {what}"
        return f"{head} - refused: {self.refused}" if self.refused else head


def decided(document: Any) -> Iterator[tuple[str, str, float, str, str]]:
    """(quiz id, question id, score, feedback, wording) of every decided group's answers in review.yaml."""
    if not isinstance(document, dict):
        return
    for quiz_id, questions in document.items():
        for question_id, block in (questions or {}).items() if isinstance(questions, dict) else ():
            for group in (block or {}).get("groups") or [] if isinstance(block, dict) else []:
                score = group.get("score") if isinstance(group, dict) else None
                if isinstance(score, bool) or not isinstance(score, (int, float)):
                    continue
                feedback = group.get("feedback") if isinstance(group.get("feedback"), str) else ""
                for answer in group.get("answers") or []:
                    yield str(quiz_id), str(question_id), float(score), feedback.strip(), str(answer)


# --- what a decided wording teaches -------------------------------------------------------------------

def propose(q: Question, answer: str, score: float, feedback: str) -> tuple[str, str, Any] | list | str:
    """(kind, target, item) for one decided wording (a list of them: phrases for several terms, added
    together), or why it teaches nothing."""
    full = score >= q.points
    if q.type == "true_false":
        return "a verdict is read by its words, not learned from one answer"
    if q.type == "multiple_choice":
        from .choices import read_choice

        reading = read_choice(answer, {o.id: o.text for o in q.options}, {o.id: o.also for o in q.options})
        if not full or reading.value is not None or "could not read" not in reading.unclear:
            return "an option decision teaches a wording only when it names no option and earns full points"
        return "also", q.answer, answer.strip()
    if q.type == "numeric":
        if full:
            return "a number earns its points by its value: nothing to add"
        return "misconception", "", {"answer": answer.strip(), "points": score, "says": feedback or DEFAULT_SAYS}
    if q.grading in ("maths", "code"):
        if full:
            return "accepted", "", answer.strip()
        if q.grading == "code":
            return "a code answer below full points is learned by what it computes: list it as a misconception"
        return "misconception", "", {"answer": answer.strip(), "points": score, "says": feedback or DEFAULT_SAYS}
    if not q.terms:
        if full:
            return "accepted", "", answer.strip()
        return "misconception", "", {"answer": answer.strip(), "points": score, "says": feedback or DEFAULT_SAYS}
    return _free_text(q, answer, score, feedback)


def _free_text(q: Question, answer: str, score: float, feedback: str) -> tuple[str, str, Any] | str:
    from .meaning import GUARDS, accepted_structures, lexicon, read_meaning, scored_structures

    lex = lexicon(q.terms, q.languages)
    reading = read_meaning(answer, lex)
    if not reading.unknown:  # its key terms in an order no answer of the quiz states
        if score >= q.points:
            return "accepted", "", answer.strip()
        item = {"answer": answer.strip(), "points": score}
        if feedback:
            item["feedback"] = feedback
        return "scored", "", item
    structures = set(accepted_structures(q.accepted, lex)) if score >= q.points else {
        terms for terms, (points, _) in scored_structures(q.scored, lex).items() if points == score}
    runs = _runs(reading.canonical)
    words = [w for kind, run in runs if kind == "unknown" for w in run]
    if any(w in GUARDS or re.search(r"\d", w) or len(w) < 3 for w in words):
        return f"its other words ({' '.join(words)}) may turn the meaning: a person keeps reading them"
    fits = {}
    for terms in structures:
        mapping = _align(runs, terms)
        if mapping is not None:
            fits[terms] = mapping
    mappings = list(fits.values())
    if len(mappings) == 1:  # each run of its other words stands where one term of one answer stands
        return [("term", term, phrase) for phrase, term in mappings[0].items()]
    if score < q.points:  # this wording, at its points
        return "misconception", "", {"answer": answer.strip(), "points": score, "says": feedback or DEFAULT_SAYS}
    if not mappings:
        return f"its other words ({' '.join(words)}) stand where no single term of an accepted answer stands"
    return "its other words fit more than one accepted answer"


def _runs(canonical: str) -> list[tuple[str, tuple[str, ...]]]:
    """The canonical reading as ("term", (name,)) and ("unknown", (words...)) runs, in order."""
    runs: list[tuple[str, tuple[str, ...]]] = []
    for token in canonical.split():
        if token.startswith("<") and token.endswith(">"):
            runs.append(("term", (token[1:-1],)))
        elif runs and runs[-1][0] == "unknown":
            runs[-1] = ("unknown", runs[-1][1] + (token,))
        else:
            runs.append(("unknown", (token,)))
    return runs


def _align(runs, terms: tuple[str, ...]) -> dict[str, str] | None:
    """Each unknown run read as exactly one term, the known ones as they are, gives `terms`: run -> term."""
    if len(runs) != len(terms):
        return None
    mapping: dict[str, str] = {}
    for (kind, run), term in zip(runs, terms):
        if kind == "term" and run[0] != term:
            return None
        if kind == "unknown" and mapping.setdefault(" ".join(run), term) != term:
            return None
    return mapping


# --- the YAML text, edited in place (comments and layout kept) ----------------------------------------

def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _question_span(lines: list[str], question_id: str) -> tuple[int, int, int]:
    """(first line, end line, key indent) of a question's block."""
    pattern = re.compile(rf"^(\s*)- id:\s*['\"]?{re.escape(question_id)}['\"]?\s*(#.*)?$")
    start = next(i for i, line in enumerate(lines) if pattern.match(line))
    dash = len(pattern.match(lines[start]).group(1))
    end = start + 1
    while end < len(lines) and not (lines[end].strip() and _indent(lines[end]) <= dash and
                                    not lines[end].lstrip().startswith("#")):
        end += 1
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1
    return start, end, dash + 2


def _flow_close(lines: list[str], at: int, column: int) -> tuple[int, int]:
    """(line, column) of the `]` closing the flow list opened at lines[at][column]."""
    depth, quote = 0, ""
    for i in range(at, len(lines)):
        for j in range(column if i == at else 0, len(lines[i])):
            c = lines[i][j]
            if quote:
                quote = "" if c == quote else quote
            elif c in "'\"":
                quote = c
            elif c == "[":
                depth += 1
            elif c == "]":
                depth -= 1
                if depth == 0:
                    return i, j
    raise ValueError("unclosed list")


def edit(text: str, c: Candidate) -> str:
    """The quiz text with candidate `c` added to its question."""
    lines = text.split("\n")
    start, end, key = _question_span(lines, c.question_id)
    quoted = json.dumps(c.item, ensure_ascii=False) if isinstance(c.item, str) else None
    if c.kind in ("term", "also"):
        opener = (re.compile(rf"^\s{{{key + 2}}}{re.escape(c.target)}:\s*\[") if c.kind == "term" else
                  re.compile(rf"^\s*- \{{id:\s*{re.escape(c.target)}\s*,"))
        at = next(i for i in range(start, end) if opener.match(lines[i]))
        if c.kind == "also":  # its own `also:`, before the next option
            following = [i for i in range(at + 1, end) if re.match(r"^\s*- ", lines[i])] + [end]
            at = next(i for i in range(at, following[0]) if "also:" in lines[i])
            column = lines[at].index("[", lines[at].index("also:"))
        else:
            column = lines[at].index("[")
        row, col = _flow_close(lines, at, column)
        lines[row] = f"{lines[row][:col]}, {quoted}{lines[row][col:]}"
        return "\n".join(lines)
    name = "misconceptions" if c.kind == "misconception" else c.kind
    entry = quoted if quoted is not None else "{" + ", ".join(
        f"{k}: {json.dumps(v, ensure_ascii=False) if isinstance(v, str) else f'{v:g}'}" for k, v in c.item.items()) + "}"
    header = re.compile(rf"^\s{{{key}}}{name}:\s*(#.*)?$")
    at = next((i for i in range(start, end) if header.match(lines[i])), None)
    if at is None:
        return "\n".join(lines[:end] + [f"{' ' * key}{name}:", f"{' ' * (key + 2)}- {entry}"] + lines[end:])
    last, item_indent = at, key + 2
    for i in range(at + 1, end):
        stripped = lines[i].lstrip()
        if not stripped or (_indent(lines[i]) <= key and not stripped.startswith("- ")) or (
                _indent(lines[i]) <= key and stripped.startswith("#")):
            break
        if stripped.startswith("- ") and i == at + 1:
            item_indent = _indent(lines[i])
        last = i
    return "\n".join(lines[:last + 1] + [f"{' ' * item_indent}- {entry}"] + lines[last + 1:])


# --- candidates, checked ------------------------------------------------------------------------------

def _quiz_of(text: str, path: Path, formulas: bool = True) -> Quiz | str:
    """The quiz the text makes, checked by the schema and the loader, or why it is refused. `formulas=False`
    leaves out comparing formula misconceptions (sympy), for an addition that adds none."""
    from .loader import quiz_from_data, read_yaml

    try:  # read as the kit reads a quiz (libyaml, duplicate keys refused)
        return quiz_from_data(read_yaml(path, text), path, formulas=formulas)
    except QuizFormatError as exc:
        return "; ".join(what for _, what in exc.problems[:3])


def _contradicted(q: Question, decisions: list[tuple[float, str]], kit: list[tuple[Any, float, int]] = ()) -> str:
    """A decided answer of question `q` (as the quiz with the addition has it) that the kit would now score by
    itself otherwise than it was decided: by a person in this review (`decisions`: score, answer), or by the
    kit itself in this class (`kit`: answer, score, students), where a wait for a person is a change too."""
    from .grade import grade_question

    for score, answer in decisions:
        if q.grading == "code":
            if _same_code(q, answer) and score < q.points:
                return f"{answer!r} was decided {score:g}, and would score {q.points:g}"
            continue
        item = grade_question(q, answer)
        if not item.pending and abs(item.score - score) > 1e-9:
            return f"{answer!r} was decided {score:g}, and would score {item.score:g}"
    for answer, score, students in kit:
        if q.grading == "code":  # run in the sandbox: only an accepted wording of its own text changes it
            now, pending = (q.points if _same_code(q, answer) else score), False
        else:
            item = grade_question(q, answer)
            now, pending = item.score, item.pending
        if pending or abs(now - score) > 1e-9:
            who = f"{students} student{'' if students == 1 else 's'}"
            after = "would wait for a person" if pending else f"would score {now:g}"
            return f"{answer!r} was scored {score:g} by the kit for {who} of this class, and {after}"
    return ""


def _same_code(q: Question, answer: Any) -> bool:
    return any("".join(a.split()) == "".join(str(answer).split()) for a in q.accepted)


def learn(document: Any, sources: dict[str, Path], only: set[tuple[str, str, str]] | None = None,
          kit: dict | None = None) -> tuple[list[Candidate], dict[str, str]]:
    """Candidates from a review document and the quiz files they would change (quiz id -> new text).
    `sources`: quiz id -> its YAML file. `only`: (quiz id, question id, review text) of the wordings to learn
    from (one group, kept from the review page); every decision of the document is still kept. `kit`: the
    answers the kit scored by itself in the class (kit_scored.py), kept as they were scored too."""
    from .kit_scored import entries

    texts = {quiz_id: path.read_text(encoding="utf-8") for quiz_id, path in sources.items()}
    quizzes = {quiz_id: _quiz_of(text, sources[quiz_id]) for quiz_id, text in texts.items()}
    every = list(decided(document))
    decisions: dict[tuple[str, str], list[tuple[float, str]]] = {}
    for quiz_id, question_id, score, _, answer in every:
        decisions.setdefault((quiz_id, question_id), []).append((score, answer))
    out: list[Candidate] = []
    seen: set[tuple] = set()
    for quiz_id, question_id, score, feedback, answer in every:
        quiz = quizzes.get(quiz_id)
        if not isinstance(quiz, Quiz) or question_id not in {q.id for q in quiz.questions}:
            continue
        q = quiz.question(question_id)
        if only is not None and (quiz_id, question_id, review_text(answer)) not in only:
            continue
        if (quiz_id, question_id, review_text(answer)) in seen:
            continue
        seen.add((quiz_id, question_id, review_text(answer)))
        proposal = propose(q, answer, score, feedback)
        if isinstance(proposal, str):
            out.append(Candidate(quiz_id, question_id, answer, score, "none", "", None, proposal))
            continue
        together = [Candidate(quiz_id, question_id, answer, score, kind, target, item)
                    for kind, target, item in (proposal if isinstance(proposal, list) else [proposal])]
        if all(any((c.kind, c.target, c.item, c.question_id) == (n.kind, n.target, n.item, question_id)
                   and not c.refused for c in out) for n in together):
            continue  # another wording of the group taught the same
        new_text = texts[quiz_id]
        try:
            for candidate in together:
                new_text = edit(new_text, candidate)
        except (StopIteration, ValueError):
            out += [_refused(c, "the quiz file's layout around this question is not one the edit knows") for c in together]
            continue
        new_quiz = _quiz_of(new_text, sources[quiz_id], formulas=q.grading == "maths" and any(
            c.kind == "misconception" for c in together))
        # only this question changed: its decided answers are the ones it could score otherwise
        why = new_quiz if isinstance(new_quiz, str) else _contradicted(
            new_quiz.question(question_id), decisions[quiz_id, question_id],
            entries(kit or {}, quiz_id, question_id))
        if why:
            out += [_refused(c, why) for c in together]
            continue
        texts[quiz_id], quizzes[quiz_id] = new_text, new_quiz
        out += together
    changed = {quiz_id: text for quiz_id, text in texts.items()
               if text != sources[quiz_id].read_text(encoding="utf-8")}
    return out, changed


def _refused(c: Candidate, why: str) -> Candidate:
    return Candidate(c.quiz_id, c.question_id, c.answer, c.score, c.kind, c.target, c.item, why)


def diff(sources: dict[str, Path], changed: dict[str, str]) -> str:
    return "".join("".join(difflib.unified_diff(
        sources[q].read_text(encoding="utf-8").splitlines(keepends=True), text.splitlines(keepends=True),
        fromfile=f"a/{sources[q].name}", tofile=f"b/{sources[q].name}")) for q, text in changed.items())
