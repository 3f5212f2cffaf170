"""Code answers ("Q @ K.transpose(-2, -1)", "softmax(QKᵀ/√d_k) V"): judged by what they compute.

The parent reads the answer (`notation.read_expression`: bounded, allow-listed, never evaluated) and
writes it back as canonical source inside a tiny module. That module runs in the sandbox, one fresh
child per distinct answer, on seeded random tensors that the child rebuilds from their seeds; the
answer key's own module runs in a child of its own. Only tensors come back, and the parent compares
them. Verdicts are kept per (question, canonical answer) in a cache file, so a class that shares
answers pays once per distinct answer, and a re-run pays nothing.
"""
from __future__ import annotations

import ast
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from .equivalence import Verdict
from .model import CodeSpec, Question
from .normalize import sentence_forms
from .notation import Reading, Unreadable, UnknownName, Vocabulary, read_expression

EVALUATOR_VERSION = "7"  # 2: a name or attribute slip goes to review, not to 0; 3: listed misconceptions;
#                          4: the second input set has other sizes; 5: and is float64, larger, compared tightly
#                          6: a third set with masked positions at -inf, for inputs the spec says may carry them
#                          7: that set large and float64; outputs must keep the key's dtype
SEEDS = (1013, 2029)  # two input sets: a coincidence on one is not a match
MASKED_SEED = 3041  # the first set's sizes, with -inf where a seeded mask hides a key (never a whole row)
# ... and in float64 at the size of unscaled dot products of the lesson's widths (std √512 ≈ 22): an answer
# that clamps large scores (`clamp(max=50)`) is no match, the softmax written out with exp() still is
MASKED_SCALE = 40.0
RTOL, ATOL = 1e-4, 1e-6  # float32 inputs (the first set)
PRECISE_RTOL, PRECISE_ATOL = 1e-9, 1e-12  # float64 inputs (the second): two ways of writing the key agree to ~1e-15
SECOND_SCALE = 5.0  # large scores (clamps show), small enough that exp() of every score stays finite in float64
# Errors that say a name was mistyped (`F.sofmax`, `dims=-1`), not that the computation is wrong: a
# person reads such an answer, as the maths questions do with an unknown name.
_SLIPS = ("NameError:", "AttributeError:", "TypeError: ")
_SLIP_TYPEERROR = "unexpected keyword argument"
MODULES = frozenset({"torch", "F", "nn", "math"})
HELPERS = '''import math
import torch
import torch.nn.functional as F
from torch import nn


def _mul(a, b):
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and a.dim() >= 2 and b.dim() >= 2:
        return a @ b
    return a * b


def sqrt(x):
    return torch.sqrt(x) if isinstance(x, torch.Tensor) else math.sqrt(x)


def exp(x):
    return torch.exp(x) if isinstance(x, torch.Tensor) else math.exp(x)


def softmax(x, dim=-1):
    return torch.softmax(x, dim=dim)


SCORES = {
    "dot": lambda Q, K: Q @ K.transpose(-2, -1),
    "scaled_dot": lambda Q, K: Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1]),
}
'''


@dataclass(frozen=True)
class CodeAnswer:
    """A readable code answer: its canonical source and the key under which its verdict is kept."""
    source: str
    key: str


def vocabulary(spec: CodeSpec) -> Vocabulary:
    functions = frozenset(spec.functions)
    return Vocabulary(frozenset([*spec.inputs, *spec.constants]), dict(spec.aliases), functions, MODULES)


class _Products(ast.NodeTransformer):
    """In maths notation a product of two matrices is the matrix product, otherwise the plain product."""

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.op, ast.MatMult):
            return ast.Call(ast.Name("_mul", ast.Load()), [node.left, node.right], [])
        return node


def canonical_source(reading: Reading) -> str:
    tree = _Products().visit(reading.tree) if reading.maths else reading.tree
    return ast.unparse(ast.fix_missing_locations(tree))


def spec_fingerprint(spec: CodeSpec) -> str:
    data = json.dumps([EVALUATOR_VERSION, spec.answer, spec.inputs, spec.constants, spec.functions,
                       spec.variants, sorted(spec.aliases), spec.wrong_names, spec.notation, spec.masked], sort_keys=True)
    return hashlib.sha256(data.encode()).hexdigest()[:16]


def prepare(question: Question, given: object) -> CodeAnswer | Verdict:
    """Read a code answer in the parent: a CodeAnswer to evaluate, or a verdict reached without running it."""
    spec = question.code
    try:
        reading = _read_as_sentence_wrote_it(given, vocabulary(spec))
    except UnknownName as unknown:
        if unknown.name in spec.wrong_names or unknown.name.startswith("_"):
            return Verdict(False, f"Incorrect: `{unknown.name}` is not part of what this question asks for.")
        return Verdict(None, f"{unknown}; your instructor will read this answer.")
    except Unreadable as problem:
        return Verdict(None, f"The grader could not read this as one PyTorch expression ({problem}); "
                             "your instructor will read it.")
    source = canonical_source(reading)
    cut = _gradient_cut(source)
    if cut:
        return Verdict(None, f"It computes the tensors through `{cut}`, which stops the gradient: the values may be "
                             "the key's, but training through it would not be; your instructor will read it.")
    if reading.maths and spec.notation == "code":
        # right maths is not the PyTorch expression the question asks for; how much it earns is a teacher's call
        return Verdict(None, f"This reads as maths notation ({reading.shown}), and the question asks for a "
                             "PyTorch expression; your instructor will read it.")
    for index, listed in enumerate(misconception_sources(question)):
        if listed is not None and written_alike(listed) == written_alike(source):
            # written as the quiz lists it (it may not even run: "Q @ K", "V softmax(score(Q, K))")
            return Verdict(False, "Incorrect: it is a listed misconception.", index)
    listed = "\n".join(str(m.answer) for m in question.misconceptions)
    key = hashlib.sha256(f"{question.id}\n{spec_fingerprint(spec)}\n{listed}\n{source}".encode()).hexdigest()[:24]
    return CodeAnswer(source, key)


# What cuts an expression off the autograd graph: equal tensors, but nothing would train through them.
GRADIENT_CUTS = frozenset({"detach", "detach_", "data", "numpy", "item", "tolist", "no_grad", "inference_mode"})


def _gradient_cut(source: str) -> str:
    """The first attribute of `source` that cuts the gradient (`.detach()`, `.data`, ...), or ""."""
    try:
        tree = ast.parse(source, mode="eval")
    except SyntaxError:
        return ""
    return next((f".{node.attr}" for node in ast.walk(tree)
                 if isinstance(node, ast.Attribute) and node.attr in GRADIENT_CUTS), "")


def _read_as_sentence_wrote_it(given: object, vocabulary: Vocabulary) -> Reading:
    """The code as written; if it does not read, as the sentence around it may have changed it: a full stop
    at its end ("Q @ K.mT."), a capital first letter ("Torch.matmul(...)", a phone's doing). Only the first
    form that reads is taken, and only when the code as written does not read: nothing that reads is
    changed, and Python's case is never guessed elsewhere."""
    try:
        return read_expression(given, vocabulary)
    except (UnknownName, Unreadable) as problem:
        first_problem = problem
    for form in sentence_forms(str(given)):
        try:
            return read_expression(form, vocabulary)
        except (UnknownName, Unreadable):
            continue
    raise first_problem


class _AsMatmul(ast.NodeTransformer):
    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == "_mul" and len(node.args) == 2:
            return ast.BinOp(node.args[0], ast.MatMult(), node.args[1])
        return node


def written_alike(source: str) -> str:
    """A source with maths juxtaposition ("V softmax(...)") written as the matrix product a quiz lists."""
    return ast.unparse(ast.fix_missing_locations(_AsMatmul().visit(ast.parse(source, mode="eval"))))


def misconception_sources(question: Question) -> list[str | None]:
    """Each listed misconception's canonical source (None where it cannot be read: the loader refuses that)."""
    sources = []
    for m in question.misconceptions:
        try:
            sources.append(canonical_source(read_expression(str(m.answer), vocabulary(question.code))))
        except (UnknownName, Unreadable):
            sources.append(None)
    return sources


def module_source(spec: CodeSpec, expression: str) -> str:
    """The module a child runs: helpers, then one `answer_<variant>` per meaning of score(Q, K)."""
    arguments = ", ".join([*spec.inputs, *spec.constants])
    lines = [HELPERS, f"def _answer(score, {arguments}):", f"    return ({expression})", ""]
    for variant in spec.variants or ("dot",):
        lines += [f"def answer_{variant}({arguments}):",
                  f"    return _answer(SCORES[{variant!r}], {arguments})", ""]
    return "\n".join(lines)


def input_sets(spec: CodeSpec) -> tuple[int, ...]:
    """The seeds an answer runs on. Inputs the spec marks `masked` (scores after masked_fill, as in the
    lesson's forward) get a third set with -inf entries: an answer that equals the key only on finite
    scores (`scores + 0 * scores` turns -inf into NaN) is not a match."""
    return SEEDS + (MASKED_SEED,) if spec.masked else SEEDS


def probe_arguments(spec: CodeSpec, seed: int) -> list:
    """Seeded inputs as placeholders the sandbox rebuilds (sandbox/child/inputs.py), then the constants. The
    second input set has every size changed (sizes(): equal sizes stay equal), so an answer that writes a size
    of the first set as a number ("/ 2" for / sqrt(d_k) with d_k = 4, `dim=scores.shape[0]`) is not a match.
    The masked set (input_sets()) has the first set's sizes, large float64 values and -inf in `masked` inputs."""
    second = seed == SEEDS[1]
    resize = sizes(spec) if second else {}
    # the second set is also in float64 and five times larger: compared tightly (same_tensor), an answer that
    # clamps the scores, rounds them or adds 1e-6 to the weights is no longer within the tolerance of float32
    values = ({"dtype": "float64", "scale": SECOND_SCALE} if second else
              {"dtype": "float64", "scale": MASKED_SCALE} if seed == MASKED_SEED else {})
    tensors = [{"$randn": {"shape": [resize.get(n, n) for n in shape], "seed": seed + index, **values,
                           **({"masked": True} if seed == MASKED_SEED and name in spec.masked else {})}}
               for index, (name, shape) in enumerate(spec.inputs.items())]
    return tensors + [resize.get(value, value) if isinstance(value, int) else value for value in spec.constants.values()]


def sizes(spec: CodeSpec) -> dict[int, int]:
    """Each size of the spec's inputs (and a constant equal to one, such as d_k) -> another size: all grow by
    five, so distinct sizes stay distinct, equal ones equal, and no new size is an old one's square or root
    by chance of the first set (4 -> 9: sqrt(d_k) goes from 2 to 3). Size 1 (a broadcast axis) stays 1."""
    found = {n for shape in spec.inputs.values() for n in shape}
    return {n: n + 5 for n in found if n > 1}


def same_tensor(output: object, expected: object) -> bool:
    import torch

    if not isinstance(output, torch.Tensor) or not isinstance(expected, torch.Tensor):
        return False
    # the dtype too: float64 weights from float32 scores break `weights @ V` in forward
    if output.shape != expected.shape or output.dtype != expected.dtype:
        return False
    rtol, atol = (PRECISE_RTOL, PRECISE_ATOL) if expected.dtype == torch.float64 else (RTOL, ATOL)
    # NaN only ever matches NaN: a listed misconception may compute NaN at masked positions; the key never does
    return bool(torch.allclose(output.double(), expected.double(), rtol=rtol, atol=atol, equal_nan=True))


class CodeEvaluator:
    """Evaluates distinct code answers in the sandbox, one fresh child each; keeps verdicts in a cache file."""

    def __init__(self, isolation: str = "auto", cache_path: Path | None = None, allow_weak: bool = False) -> None:
        self.isolation = isolation
        self.allow_weak = allow_weak
        self.cache_path = cache_path
        self.cache: dict[str, dict] = _read_cache(cache_path)
        self.server = None
        self.references: dict[str, dict] = {}
        self.evaluated = 0

    def verdict(self, key: str) -> Verdict | None:
        entry = self.cache.get(key)
        return Verdict(entry["equal"], entry["message"], entry["matched"], entry["computes"]) if entry else None

    def evaluate(self, work: Iterable[tuple[Question, CodeAnswer]]) -> None:
        todo = {answer.key: (question, answer) for question, answer in work if answer.key not in self.cache}
        if not todo:
            return
        try:
            for question, answer in todo.values():
                verdict = self._judge(question, answer)
                self.cache[answer.key] = {"equal": verdict.equal, "message": verdict.message,
                                          "matched": verdict.matched, "computes": verdict.computes}
                self.evaluated += 1
        finally:
            self._save()

    def close(self) -> None:
        if self.server is not None:
            self.server.close()
            self.server = None

    def _server(self):
        if self.server is None:
            from ..sandbox import ForkServer, SandboxConfig

            self.server = ForkServer(SandboxConfig(isolation=self.isolation, allow_weak=self.allow_weak))
        return self.server

    def _run(self, spec: CodeSpec, expression: str) -> dict:
        """{(variant, seed): output tensor or an error message} for one expression, in a fresh child."""
        from ..sandbox import ChildFailure

        child = self._server().spawn()
        outputs: dict = {}
        try:
            limits = self._server().config.limits
            loaded = child.request({"op": "load", "module": "quiz_answer", "filename": "answer",
                                    "cells": [module_source(spec, expression)]}, limits.load_seconds)
            if loaded.get("errors"):
                first = loaded["errors"][0]
                message = f"{first.get('type', 'Error')}: {str(first.get('message', ''))[:200]}"
                return {(v, s): message for v in spec.variants or ("dot",) for s in input_sets(spec)}
            for variant in spec.variants or ("dot",):
                for seed in input_sets(spec):
                    reply = child.request({"op": "run", "target": f"answer_{variant}",
                                           "args": probe_arguments(spec, seed), "kwargs": {}}, limits.call_seconds)
                    if reply.get("ok"):
                        outputs[variant, seed] = reply.get("output")
                    else:
                        error = reply.get("error") if isinstance(reply.get("error"), dict) else {}
                        outputs[variant, seed] = f"{error.get('type', 'Error')}: {str(error.get('message', ''))[:200]}"
        except ChildFailure as failure:
            return {(v, s): f"it did not finish ({failure})" for v in spec.variants or ("dot",) for s in input_sets(spec)}
        finally:
            child.close()
        return outputs

    def _reference(self, question: Question) -> dict:
        fingerprint = spec_fingerprint(question.code)
        if fingerprint not in self.references:
            reading = read_expression(question.code.answer, vocabulary(question.code))
            outputs = self._run(question.code, canonical_source(reading))
            broken = [v for v in outputs.values() if isinstance(v, str) or v is None]
            if broken:
                raise RuntimeError(f"question {question.id}: the answer key itself fails in the sandbox: {broken[0]}")
            self.references[fingerprint] = outputs
        return self.references[fingerprint]

    def computed(self, spec: CodeSpec, source: str) -> dict:
        """What a source computes on the spec's inputs, per (variant, seed): a tensor or an error message."""
        key = f"{spec_fingerprint(spec)}:{source}"
        if key not in self.references:
            self.references[key] = self._run(spec, source)
        return self.references[key]

    def _misconception(self, question: Question, index: int, source: str) -> dict:
        """What a listed misconception computes (errors kept as messages: they match nothing)."""
        key = f"{spec_fingerprint(question.code)}:{source}"
        if key not in self.references:
            self.references[key] = self._run(question.code, source)
        return self.references[key]

    def _judge(self, question: Question, answer: CodeAnswer) -> Verdict:
        expected = self._reference(question)
        outputs = self._run(question.code, answer.source)
        errors = [v for v in outputs.values() if isinstance(v, str)]
        variants = question.code.variants or ("dot",)
        seeds = input_sets(question.code)
        for variant in variants:
            if all(same_tensor(outputs.get((variant, s)), expected[variant, s]) for s in seeds):
                return Verdict(True, "Correct: it computes the same tensors as the expected answer.")
        for index, source in enumerate(misconception_sources(question)):
            listed = self._misconception(question, index, source) if source is not None else {}
            if listed and any(all(same_tensor(outputs.get((v, s)), listed.get((v, s))) for s in seeds)
                              for v in variants):
                return Verdict(False, "Incorrect: it computes what a listed misconception computes.", index)
        if errors and len(errors) == len(outputs) and all(_is_slip(e) for e in errors):
            return Verdict(None, f"Running it failed with {errors[0]}, which looks like a typo in a name; "
                                 "your instructor will read it")
        if errors and len(errors) == len(outputs):
            return Verdict(False, f"Incorrect: evaluating it on test tensors failed with {errors[0]}")
        return Verdict(False, "Incorrect: on test tensors it computes something else than the expected answer"
                              + _shape_note(outputs, expected), computes=_digest(outputs))

    def _save(self) -> None:
        if self.cache_path is None:
            return
        from ..results import write_atomic

        write_atomic(self.cache_path, json.dumps(self.cache, indent=0, sort_keys=True))


def _digest(outputs: dict) -> str | None:
    """What an answer computes, as a short digest of its tensors rounded to 4 decimals (None if any input
    set failed): answers with one digest compute the same thing."""
    import torch

    digest = hashlib.sha256()
    for key in sorted(outputs):
        value = outputs[key]
        if not isinstance(value, torch.Tensor) or not value.dtype.is_floating_point:
            return None
        rounded = torch.round(torch.nan_to_num(value.double(), nan=1e15) * 1e4).clamp(-1e15, 1e15).to(torch.int64)
        digest.update(repr((key, tuple(value.shape))).encode() + rounded.numpy().tobytes())
    return "computes " + digest.hexdigest()[:16]


def _is_slip(error: str) -> bool:
    if error.startswith("TypeError: "):
        return _SLIP_TYPEERROR in error
    return error.startswith(_SLIPS)


def _shape_note(outputs: dict, expected: dict) -> str:
    import torch

    for key, value in outputs.items():
        if isinstance(value, torch.Tensor) and value.shape != expected[key].shape:
            return f" (shape {tuple(value.shape)}, expected {tuple(expected[key].shape)})."
    return "."


def _read_cache(path: Path | None) -> dict[str, dict]:
    if path is None or not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, dict) and set(v) == {"equal", "message", "matched", "computes"}
            and v["equal"] in (True, False, None) and isinstance(v["message"], str)
            and (v["matched"] is None or type(v["matched"]) is int)
            and (v["computes"] is None or isinstance(v["computes"], str))} if isinstance(data, dict) else {}
