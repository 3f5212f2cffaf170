"""Fixed texts say what a check tests, never a cause or a remedy the evidence has not shown.

A hidden test's message, a public check's assertion text and the feedback's own sentences are written once and
shown to every student whose code fails there, whatever they wrote: "use torch.special.xlogy" then reaches a
student who already does. Such a text states the property the check tests, in the lesson's words; a cause or a
remedy belongs to a diagnosis (diagnosis/), which names it only where the evidence proves it.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from autograder import paths
from autograder.authoring.master import read_master

MASTERS = sorted(paths.SOURCE_DIR.glob("*.py"))
KIT = Path(__file__).resolve().parents[1] / "autograder"
# the feedback's own sentences, and the engine's messages for what every call is checked for
ENGINE = [KIT / "reporting" / "explain.py", KIT / "grading" / "student.py"]
# texts shown only with the diagnosis that proves them (the fused kernels that ran, named)
PROVEN = {"FUSED_HINT"}
SHOWN_ROLES = ("hidden", "hidden-setup", "public")

# Wording that tells the student what to do (a remedy), says why it failed (a cause), or names the code to
# write: none of it may stand in a text shown whatever the student's code is.
REMEDY = re.compile(r"(^|[.:;]\s*|\b(?:then|and|so)\s+)(use|call|apply|keep|pass|remove|add|fix|try|avoid|replace|"
                    r"fill|mask|normali[sz]e|transpose|divide|multiply|compute|return|read|mix|project|scale|"
                    r"subtract|make sure|remember|do not|don't|never|always)\b", re.IGNORECASE)
ADVICE = re.compile(r"\b(instead|rather than|make sure|should use|must use|is not enough|fix (it|that)|"
                    r"first\)?\.?$|must (use|subtract|call|apply|fill|transpose|divide|multiply|mask))", re.IGNORECASE)
CAUSE = re.compile(r"\b(probably|likely|perhaps|maybe|looks like|seems|because|caused by|you (used|forgot|wrote|"
                   r"called|applied|divided|multiplied|mixed|masked)|did you|leaks? the future|an inverted|"
                   r"a shifted|gives wrong values|hand-written|detached)\b", re.IGNORECASE)
CODE = re.compile(r"\b(torch|F|nn|math|np)\.\w|masked_fill|xlogy|\.detach|no_grad|\.data\b|numpy|transpose\(|"
                  r"squeeze\(|\btril\b|\btriu\b|bias=False|\bdim=|item assignment|/=|\bself\.W\w*\(",
                  re.IGNORECASE)
RULES = {"remedy": REMEDY, "advice": ADVICE, "cause": CAUSE, "code": CODE}


def text_of(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
    return None


def not_shown(tree: ast.AST) -> set[int]:
    """Strings no student reads: decorators (question names, tags), the names of the functions a probe calls,
    keys, helper docstrings (only a test's docstring is its name in the feedback), f-string pieces."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            for decorator in node.decorator_list:
                skipped |= {id(n) for n in ast.walk(decorator)}
            body = node.body
            if (not node.name.startswith("test_") and body and isinstance(body[0], ast.Expr)
                    and text_of(body[0].value) is not None):
                skipped.add(id(body[0].value))
        elif isinstance(node, ast.JoinedStr):
            skipped |= {id(n) for n in ast.walk(node) if n is not node}
        elif isinstance(node, ast.Subscript):
            skipped |= {id(n) for n in ast.walk(node.slice)}
        elif isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in ("run", "call", "known_mistake", "right_result", "getattr", "hasattr", "get") and node.args:
                skipped.add(id(node.args[0]))
            if name == "join" or name in ("tensor", "mark", "zip"):
                skipped |= {id(a) for a in node.args}
        elif isinstance(node, ast.Assign) and any(getattr(t, "id", "") in PROVEN for t in node.targets):
            skipped |= {id(n) for n in ast.walk(node.value)}
        elif isinstance(node, ast.Dict):
            skipped |= {id(k) for k in node.keys if k is not None}
    return skipped


def fixed_texts(source: str) -> list[tuple[int, str]]:
    tree = ast.parse(source)
    skipped = not_shown(tree)
    return [(node.lineno, text) for node in ast.walk(tree)
            if id(node) not in skipped and (text := text_of(node)) is not None and " " in text.strip()]


def master_texts() -> list[tuple[str, str]]:
    found = []
    for path in MASTERS:
        for cell in read_master(path).cells:
            if cell.role in SHOWN_ROLES:
                found += [(f"{path.name} ({cell.role} {cell.exercise or ''}) line {line}", text)
                          for line, text in fixed_texts(cell.source)]
    return found


def engine_texts() -> list[tuple[str, str]]:
    return [(f"{path.name} line {line}", text) for path in ENGINE
            for line, text in fixed_texts(path.read_text(encoding="utf-8"))]


def offences(text: str) -> list[str]:
    return [f"{rule}: {found.group(0).strip()!r}" for rule, pattern in RULES.items()
            if (found := pattern.search(text))]


def test_the_scanner_finds_texts_and_flags_causes_and_remedies():
    """The scan reads the masters' messages, and each rule catches the kind of text it is there for."""
    texts = [t for _, t in master_texts()]
    assert len(texts) > 80
    assert any("sum to 1" in t for t in texts)
    assert offences("p * p.log() is nan where p = 0; use torch.special.xlogy(p, p).")
    assert offences("An inverted or shifted mask leaks the future.")
    assert offences("Softmax over the keys: F.softmax(scores, dim=-1).")
    assert offences("its own question says what is wrong, fix it first.")
    assert offences("so -30 is not enough.")
    assert not offences("Each query's weights are a softmax over the keys (the last dimension) and sum to 1.")
    assert not offences("e_ij = q_i . k_j / sqrt(d_k), with d_k = K.shape[-1] (this check uses several d_k).")


@pytest.mark.parametrize("where,text", master_texts() + engine_texts())
def test_a_fixed_text_names_no_cause_and_no_remedy(where, text):
    assert not offences(text), f"{where}: {text!r} -> {offences(text)}"


# --- graded: no message tells a student to use what their code already uses ------------------------------

API = re.compile(r"\b(?:torch|F|nn|math)(?:\.\w+)+|\b(?:masked_fill_?|xlogy|tril|triu|transpose|unsqueeze|squeeze|"
                 r"detach|no_grad|einsum|bmm|log_softmax|logsumexp|finfo|where)\b")
TELLS = re.compile(r"\b(use|using|call|try|apply|prefer|instead|should be|compute)\b", re.IGNORECASE)
QUOTED = re.compile(r"^\s*(at )?line \d+:|^\s*>")   # the student's own line, quoted with an exception
# lines that carry a diagnosis (its title names the proven cause): explained here, or pointed to
DIAGNOSED = ("Mistake:", "Same mistake as in", "The same mistake also fails", "No cause was found for this check")

# Wrong code written with the very functions the old fixed hints recommended.
ALREADY_USES = {
    "xlogy_without_minus": ("attention_scores", "def softmax_entropy(weights):\n"
                            "    return torch.special.xlogy(weights, weights).sum(dim=-1)\n"),
    "softmax_over_queries": ("attention_scores", "def attention_weights(scores, mask=None):\n"
                             "    if mask is not None:\n        scores = apply_mask(scores, mask)\n"
                             "    return F.softmax(scores, dim=-2)\n"),
    "tril_shifted": ("attention_scores", "def causal_mask(T):\n"
                     "    return torch.tril(torch.ones(T, T, dtype=torch.bool), diagonal=1)\n"),
    "masked_fill_in_place": ("attention_scores", "def apply_mask(scores, mask):\n"
                             "    return scores.masked_fill_(mask == 0, float('-inf'))\n"),
    "general_linear_other_way": ("attention_scores", "class GeneralScore(nn.Module):\n"
                                 "    def __init__(self, d_q, d_k):\n        super().__init__()\n"
                                 "        self.W = nn.Linear(d_q, d_k, bias=False)\n"
                                 "    def forward(self, Q, K):\n        return self.W(Q) @ K.transpose(-2, -1)\n"),
    "layer_with_biases": ("single_head_attention", "class SingleHeadAttention(nn.Module):\n"
                          "    def __init__(self, d_model, d_k):\n        super().__init__()\n"
                          "        self.W_Q = nn.Linear(d_model, d_k)\n        self.W_K = nn.Linear(d_model, d_k)\n"
                          "        self.W_V = nn.Linear(d_model, d_k)\n"
                          "    def forward(self, x_q, x_kv, mask=None):\n"
                          "        return attention(self.W_Q(x_q), self.W_K(x_kv), self.W_V(x_kv), mask)\n"),
}


def heldout():
    import importlib.util
    import sys
    bench = Path(__file__).resolve().parents[1] / "bench" / "heldout_mistakes.py"
    spec = importlib.util.spec_from_file_location("heldout_mistakes", bench)
    module = sys.modules.setdefault("heldout_mistakes", importlib.util.module_from_spec(spec))
    spec.loader.exec_module(module)
    return module


def other_styles_made_wrong() -> dict[str, tuple[str, str]]:
    """Each correct style of the catalogue with one edit (bench/heldout_mistakes.py's operators) in one of its
    graded definitions: wrong code written in that style (the style as it is where no edit applies; the
    catalogue's own test proves the styles themselves pass)."""
    import random

    from tests.test_catalogue import CORRECT, student_text
    bench, found = heldout(), {}
    for n, (name, entry) in enumerate(sorted(CORRECT.items())):
        text = student_text(name)
        found[name] = (entry.ASSIGNMENT, text)   # replaced by its edited version below, where one applies
        rng = random.Random(n)
        functions = [f for f in bench.FUNCTIONS[entry.ASSIGNMENT] if re.search(rf"^(def|class) {f}\b", text, re.M)]
        for _ in range(20):
            function = rng.choice(functions)
            try:
                edits = bench.edits(text, function)
                mutant = bench.apply(text, [rng.choice(edits)]) if edits else None
            except Exception:  # noqa: BLE001 - a style the mutator cannot read: keep it as it is
                mutant = None
            if mutant:
                found[name] = (entry.ASSIGNMENT, mutant)
                break
    return found


def told_to_use(line: str, source: str) -> list[str]:
    if QUOTED.search(line) or line.startswith(DIAGNOSED):
        return []   # the student's own code quoted, or a diagnosis that proved its cause
    return [name for name in dict.fromkeys(API.findall(line))
            if TELLS.search(line) and re.search(re.escape(name.split(".")[-1]), source)]


@pytest.fixture(scope="module")
def graded_styles(tmp_path_factory):
    from autograder.results import FAILED
    from autograder.reporting.explain import failure_lines, plan_explanations
    from tests.classroom import grade, solution_text, write_class

    students = other_styles_made_wrong()
    for name, (assignment, code) in ALREADY_USES.items():
        students[name] = (assignment, solution_text(assignment) + "\n\n" + code)
    root = tmp_path_factory.mktemp("styles")
    write_class(root / "in", {name: {f"{a}.py": text} for name, (a, text) in students.items()})
    results = grade(root / "in", root / "out", workers=2)
    shown = {}
    for name, (assignment, text) in students.items():
        result = results[name]
        plan = plan_explanations(result)
        shown[name] = (text, [(t.test_id, line) for t in result.tests
                              if t.status == FAILED and t.test_id.startswith(f"{assignment}::")
                              for line in failure_lines(t, plan) for line in line.splitlines()])
    return shown


def test_no_message_tells_a_student_to_use_what_their_code_already_uses(graded_styles):
    assert all(graded_styles[name][1] for name in ALREADY_USES), "every hand-made wrong file fails somewhere"
    offences = [(name, test, line, names) for name, (text, lines) in graded_styles.items()
                for test, line in lines if (names := told_to_use(line, text))]
    assert not offences, "\n".join(map(str, offences))


def test_the_check_above_would_see_the_old_hint():
    source = ALREADY_USES["xlogy_without_minus"][1]
    assert told_to_use("p * p.log() is nan where p = 0; use torch.special.xlogy(p, p).", source)
    assert not told_to_use("Mistake: the minus sign is missing. Evidence: use of torch.special.xlogy", source)


def test_a_value_symptom_never_says_no_entry_differs_when_the_check_failed():
    """When the verdict's rule is not the per-entry bound (a row-wise rule, a bound from the inputs), the
    symptom gives the largest difference, never "0 of N entries differ" nor "batch items ... are right"
    beside a failure (found by a fresh cheat round: "0 of 72 entries differ; the largest difference is 0.186")."""
    import torch

    from autograder.diagnosis.symptoms import where_wrong

    expected = torch.full((2, 3, 4), 0.25)
    yours = expected.clone()
    yours[0, 2, 3] += 0.186
    loose = where_wrong(yours, expected, rtol=1.0, atol=1.0)
    assert loose.startswith("The largest difference is 0.186 at [0, 2, 3]") and "0 of" not in loose
    assert "are right" not in loose and "is right" not in loose
    tight = where_wrong(yours, expected, rtol=1e-5, atol=1e-6)
    assert tight.startswith("1 of 24 entries differ") and "Batch item 1 is right." in tight
