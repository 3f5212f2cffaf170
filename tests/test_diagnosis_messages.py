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
