"""`python bench/heldout_mistakes.py`: does the feedback name mistakes it was never shown?

Held-out mistakes are made without looking at the diagnosis' mistake space: the reference solution's source is
mutated (AST: dimensions and constants, operands and operators, comparisons, calls and the names they are given;
one or two mutations, in one function or in two), each mutant that the hidden graders fail is graded as a
student through the real engine, and its feedback is judged against its edits: each edit is labelled by what it
changes in the code (EDITS below reads only the edit's text), and a named mistake that no edit of the mutant
accounts for is a wrong cause.

    python bench/heldout_mistakes.py [--singles 200] [--pairs 120] [--seed 0] [--workers 2] [--show wrong]

Prints the table: mutants named correctly, partly, with the symptom only, and with a wrong cause.
"""
from __future__ import annotations

import argparse
import ast
import copy
import random
import re
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from autograder import paths  # noqa: E402
from autograder.authoring.master import read_master  # noqa: E402
from autograder.authoring.render import answer_code  # noqa: E402
from autograder.repair.syntax import substitute  # noqa: E402

FUNCTIONS = {"attention_scores": ["dot_scores", "scaled_dot_scores", "apply_mask", "attention_weights",
                                  "causal_mask", "padding_mask", "softmax_entropy"],
             "single_head_attention": ["attention", "SingleHeadAttention"]}
SWAPPED_CALLS = {"tril": ["triu"], "triu": ["tril"], "softmax": ["log_softmax"], "tanh": ["relu", "sigmoid"],
                 "sum": ["mean"], "unsqueeze": ["squeeze"], "sqrt": ["exp"]}
COMPARISONS = [ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE]
OPERATORS = {ast.Div: [ast.Mult, ast.FloorDiv], ast.Mult: [ast.Div], ast.Add: [ast.Sub], ast.Sub: [ast.Add],
             ast.Pow: [ast.Mult]}


def reference_module(assignment: str) -> str:
    """The reference code only: set-up imports and the solution cells."""
    master = read_master(paths.SOURCE_DIR / f"{assignment}.py")
    parts = [c.source for c in master.of("setup")]
    parts += [answer_code(master, e, False) for e in master.exercises() if master.of("solution", e)]
    return "\n\n\n".join(parts) + "\n"


# --- the mutations ---------------------------------------------------------------------------------

def number(node: ast.AST) -> float | int | None:
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and number(node.operand) is not None:
        return -number(node.operand)
    return None


def constant(value) -> ast.AST:
    return ast.UnaryOp(ast.USub(), ast.Constant(-value)) if value < 0 else ast.Constant(value)


def alternatives(node: ast.AST, names: list[str]) -> list[ast.AST]:
    """Every node this one may become: the mutation operators."""
    found: list[ast.AST] = []
    value = number(node)
    if value is not None:
        options = [value + 1, value - 1, -value, 0] if isinstance(value, int) else [value * 2, value / 2, -value, 1.0]
        found += [constant(v) for v in dict.fromkeys(options) if v != value]
    elif isinstance(node, ast.Constant) and node.value in ("-inf", "inf"):
        found.append(ast.Constant("inf" if node.value == "-inf" else "-inf"))
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and not isinstance(node.operand, ast.Constant):
        found.append(node.operand)
    elif isinstance(node, ast.BinOp):
        found += [ast.BinOp(node.left, op(), node.right) for op in OPERATORS.get(type(node.op), [])]
        found.append(ast.BinOp(node.right, node.op, node.left))
        if isinstance(node.op, (ast.Div, ast.Mult)):
            found.append(node.left)
    elif isinstance(node, ast.Compare) and len(node.ops) == 1:
        found += [ast.Compare(node.left, [op()], node.comparators) for op in COMPARISONS
                  if not isinstance(node.ops[0], op)]
    elif isinstance(node, ast.Call):
        if isinstance(node.func, ast.Attribute):
            for name in SWAPPED_CALLS.get(node.func.attr, []):
                found.append(ast.Call(ast.Attribute(node.func.value, name, ast.Load()), node.args, node.keywords))
        if len(node.args) == 1 and not node.keywords and not (isinstance(node.func, ast.Attribute)
                                                               and node.func.attr in ("ones", "arange")):
            found.append(node.args[0])
        found += [ast.Call(node.func, node.args, [k for k in node.keywords if k is not drop])
                  for drop in node.keywords if drop.arg == "dim"]
    elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in names:
        found += [ast.Name(other, ast.Load()) for other in names if other != node.id]
    elif isinstance(node, ast.Attribute) and node.attr in ("W_Q", "W_K", "W_V"):
        found += [ast.Attribute(node.value, other, node.ctx) for other in ("W_Q", "W_K", "W_V") if other != node.attr]
    return found


def definition(tree: ast.Module, name: str) -> ast.AST:
    return next(n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.name == name)


def body_nodes(node: ast.AST) -> list[ast.AST]:
    """The function's nodes in a fixed order, docstrings and the digits of a negative number left out."""
    skipped = {id(n.value) for n in ast.walk(node) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
    skipped |= {id(n.operand) for n in ast.walk(node) if isinstance(n, ast.UnaryOp) and number(n) is not None}
    return [n for n in ast.walk(node) if id(n) not in skipped and not isinstance(n, (ast.arguments, ast.arg))]


def local_names(node: ast.AST) -> list[str]:
    """What a function is given: its arguments (not self), and the projections Q, K, V a layer makes first."""
    names = {a.arg for a in node.args.args if a.arg != "self"}
    names |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and n.id in ("Q", "K", "V")}
    return sorted(names)


def methods(node: ast.AST) -> list[ast.FunctionDef]:
    return [node] if isinstance(node, ast.FunctionDef) else [n for n in node.body if isinstance(n, ast.FunctionDef)]


@dataclass(frozen=True)
class Edit:
    function: str
    method: int       # which method of a class (0 for a function)
    index: int        # the node, in body_nodes order
    choice: int       # which alternative
    old: str
    new: str
    line: str         # the statement the edit is in, as the reference writes it
    new_line: str = ""   # that statement with the edit made

    @property
    def label(self) -> str:
        return f"{self.function}: `{self.old}` -> `{self.new}` in `{self.line}`"


def edits(source: str, function: str) -> list[Edit]:
    tree = ast.parse(source)
    found = []
    for method, node in enumerate(methods(definition(tree, function))):
        names = local_names(node)
        statements = {id(c): stmt for stmt in ast.walk(node) if isinstance(stmt, ast.stmt)
                      for c in ast.walk(stmt)}   # outer statements first, so each node ends with its own statement
        for index, child in enumerate(body_nodes(node)):
            for choice, new in enumerate(alternatives(child, names)):
                statement = statements.get(id(child))
                found.append(Edit(function, method, index, choice, ast.unparse(child), ast.unparse(new),
                                  first_line(statement), first_line(edited(statement, child, new))))
    return found


def first_line(statement: ast.AST | None) -> str:
    return ast.unparse(statement).splitlines()[0] if statement is not None else ""


def edited(statement: ast.AST | None, child: ast.AST, new: ast.AST) -> ast.AST | None:
    """A copy of the statement with this one node replaced (the edit's own place, whatever else looks alike)."""
    if statement is None or statement is child:
        return None
    memo: dict = {}
    copied = copy.deepcopy(statement, memo)
    substitute(copied, memo[id(child)], copy.deepcopy(new))
    return copied


def apply(source: str, chosen: list[Edit]) -> str | None:
    """The source with these edits (each found afresh by its place, so two in one function compose)."""
    tree = ast.parse(source)
    targets = []
    for edit in chosen:
        node = methods(definition(tree, edit.function))[edit.method]
        child = body_nodes(node)[edit.index]
        targets.append((node, child, alternatives(child, local_names(node))[edit.choice]))
    for node, child, new in targets:
        if any(child in ast.walk(other_new) or child is other_child
               for _, other_child, other_new in targets if other_child is not child and child in ast.walk(other_child)):
            return None   # nested edits: the outer one would swallow the inner one
        substitute(node, child, copy.deepcopy(new))
    text = ast.unparse(ast.fix_missing_locations(tree))
    return text if text != ast.unparse(ast.parse(source)) else None


# --- what each edit means, read from the edit alone -------------------------------------------------

SCALES = {"scale-missing", "scale-by-dk", "scale-sqrt-tk", "scale-hardcoded", "scale-multiplied",
          "scale-power-precedence", "scale-sqrt-dmodel", "scale-wrong-factor"}
MASKINGS = {"mask-inverted", "mask-not-applied", "mask-zero-fill", "mask-small-fill", "mask-added"}
SOURCES = {"keys-with-wq", "values-with-wk", "keys-from-xq", "values-from-xq", "queries-from-xkv",
           "keys-values-from-xq", "projection-swapped"}


def dim_of(text: str) -> str | None:
    found = re.search(r"dim=(-?\d+)", text)
    return found[1] if found else None


def masked_where(line: str) -> tuple[bool, bool] | None:
    """For `x.masked_fill(condition, ...)`: is a key with mask 0, and one with mask 1, filled? (Evaluated on a
    0/1 mask, as the edited code would.)"""
    import torch
    try:
        call = next(n for n in ast.walk(ast.parse(line.strip()))
                    if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "masked_fill")
        values = {"mask": torch.tensor([0.0, 1.0]), "scores": torch.tensor([5.0, 7.0]), "torch": torch}
        filled = eval(compile(ast.Expression(call.args[0]), "<edit>", "eval"), values)  # noqa: S307 - our own AST
        return bool(filled[0]), bool(filled[1])
    except Exception:  # noqa: BLE001 - not a condition on the mask
        return None


def transposed_dims(line: str) -> tuple[int, int] | None:
    """The dimensions of a 3-D tensor's `.transpose(a, b)` in this statement (a == b mod 3: no transpose)."""
    found = re.search(r"\.transpose\((-?\d+), (-?\d+)\)", line)
    return (int(found[1]), int(found[2])) if found else None


SCALE_LINE = re.compile(r"sqrt|self\.scale|d_k \*\*|d_k = K\.shape")


def meaning(edit: Edit) -> set[str]:
    """The mistake ids that describe this edit, read from the edit and its statement alone (empty: no
    catalogued words fit it, so naming any mistake for it is a wrong cause)."""
    f, old, new, line = edit.function, edit.old, edit.new, edit.line
    pattern = rf"\b{re.escape(old)}\b" if re.fullmatch(r"\w+", old) else re.escape(old)
    new_line = edit.new_line or re.sub(pattern, new.replace("\\", "\\\\"), line, count=1)
    if "log_softmax" in new:
        return {"log-softmax"}
    if "softmax(" in line and re.search(r"dim|^-?\d+$", old):
        dim = dim_of(new_line)
        return {"softmax-no-dim"} if dim in (None, "0") else {"softmax-wrong-dim"} if dim in ("-2", "1") else set()
    if f == "softmax_entropy":
        if old.startswith("-") and new == old[1:] and not re.fullmatch(r"-?\d+", old):
            return {"entropy-missing-minus"}
        if "mean" in new:
            return {"entropy-mean"}
        if re.search(r"dim", old + new) or re.fullmatch(r"-?\d+", old):
            return {"entropy-wrong-dim"}
        return {"entropy-missing-minus"} if old.startswith("-") else set()
    if f == "causal_mask":
        return {"causal-inverted"} if "triu" in new else {"causal-not-triangular"} if "tril" not in new else set()
    if f == "padding_mask":
        if re.fullmatch(r"-?\d+", old) and "unsqueeze" in old + line and "[" not in old:
            return {"padding-over-queries"} if re.search(r"unsqueeze\((-1|2)\)", new_line) else set()
        comparison = re.search(r" (<=|<|>=|>|==|!=) ", new_line)
        return {"<=": {"padding-off-by-one"}, ">=": {"padding-inverted"},
                ">": {"padding-inverted", "padding-off-by-one"}}.get(comparison[1] if comparison else "", set())
    if "apply_mask(scores, mask)" in line:
        return {"mask-not-applied"} if "apply_mask(scores, scores)" in new_line else set()
    if line.startswith("if mask"):
        import torch
        try:
            taken = bool(eval(new_line[3:].rstrip(":"), {"mask": torch.ones(1)}))  # noqa: S307 - our own text
        except Exception:  # noqa: BLE001
            return set()
        return set() if taken else {"mask-not-applied"}
    if "masked_fill" in line:
        if "inf" in old:
            if re.fullmatch(r"'inf'|float\('inf'\)", new):
                return {"mask-fill-plus-inf"}
            return {"mask-small-fill", "mask-zero-fill"} if "inf" not in new else set()
        return {(True, False): set(), (False, True): {"mask-inverted"}, (False, False): {"mask-not-applied"}}.get(
            masked_where(new_line), set())
    swapped = transposed_dims(new_line)
    if swapped != transposed_dims(line):   # the edit is in the transpose's dimensions
        return {"k-not-transposed"} if swapped and swapped[0] % 3 == swapped[1] % 3 else set()
    if f in ("scaled_dot_scores", "attention", "SingleHeadAttention") and SCALE_LINE.search(line):
        in_matmul = old in ("Q", "K", "-2") or old.startswith("Q @") and "@ Q" in new
        if not in_matmul:
            return SCALES
    if f == "SingleHeadAttention" and {old, new} <= {"Q", "K", "V"} and (
            "transpose(-2, -1)" in line or "weights @ V" in line):
        # in the layer Q, K and V are projections, so another of them in a slot is that slot made with
        # another weight (weights @ K is V made with W_K): the projection mistakes describe the same computation
        return SOURCES | ({"scores-wrong-operand"} if "transpose" in line else {"mix-wrong-operand"})
    if "transpose(-2, -1)" in line and {old, new} == {"Q", "K"}:
        return {"scores-wrong-operand"}
    if "weights @ V" in line and old == "V" and new in ("Q", "K"):
        return {"mix-wrong-operand"}
    if f == "dot_scores" and "sqrt" in new:
        return {"unwanted-scale"}
    if "transpose(-2, -1)" in line and re.search(r"K\.transpose\(-2, -1\) @ Q", new):
        return {"k-at-q"}
    if f == "SingleHeadAttention" and "self.W_Q(x_q)" in line:
        return SOURCES
    if "return weights @ V, weights" in line and old == "weights @ V, weights":
        return {"returns-weights-first"}
    return set()


# --- grading the mutants -------------------------------------------------------------------------

@dataclass
class Mutant:
    assignment: str
    edits: tuple[Edit, ...]
    text: str

    @property
    def label(self) -> str:
        return "; ".join(e.label for e in self.edits)


def generate(singles: int, pairs: int, seed: int) -> list[Mutant]:
    """`singles` one-edit mutants and `pairs` two-edit ones (in one function or two), drawn with `seed`."""
    rng = random.Random(seed)
    one, two = [], []
    for assignment, functions in FUNCTIONS.items():
        source = reference_module(assignment)
        found = [e for f in functions for e in edits(source, f)]
        for edit in found:
            text = apply(source, [edit])
            if text:
                one.append(Mutant(assignment, (edit,), text))
        for _ in range(pairs * 3):
            first, second = rng.sample(found, 2)
            if (first.function, first.method, first.index) != (second.function, second.method, second.index):
                text = apply(source, [first, second])
                if text:
                    two.append(Mutant(assignment, (first, second), text))
    rng.shuffle(one)
    rng.shuffle(two)
    return spread(one, singles) + two[:pairs]


def spread(mutants: list[Mutant], count: int) -> list[Mutant]:
    """`count` mutants taken in turn from each function, so that the layer's many edits do not crowd out the rest."""
    by_function: dict[str, list[Mutant]] = {}
    for mutant in mutants:
        by_function.setdefault(mutant.edits[0].function, []).append(mutant)
    chosen: list[Mutant] = []
    while len(chosen) < count and any(by_function.values()):
        for pool in by_function.values():
            if pool and len(chosen) < count:
                chosen.append(pool.pop())
    return chosen


def grade(mutants: list[Mutant], workers: int) -> dict[int, tuple[bool, set[str], bool]]:
    """{mutant index: (failed by the graders, mistakes the feedback names, a grader problem)}."""
    from tests.classroom import grade as grade_class, write_class
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        write_class(root / "in", {f"m{i:04d}": {f"{m.assignment}.py": m.text} for i, m in enumerate(mutants)})
        results = grade_class(root / "in", root / "out", workers=workers)
    verdicts = {}
    for i, mutant in enumerate(mutants):
        tests = [t for t in results[f"m{i:04d}"].tests if t.test_id.startswith(f"{mutant.assignment}::")]
        failed = any(t.score < t.max_score for t in tests)
        problem = any(t.status not in ("passed", "failed") for t in tests)
        verdicts[i] = (failed, {d.mistake for t in tests for d in t.diagnoses}, problem)
    return verdicts


def verdict(mutant: Mutant, said: set[str]) -> str:
    meanings = [meaning(e) for e in mutant.edits]
    if said - set().union(*meanings):
        return "wrong cause"
    if not said:
        return "symptom only"
    return "named" if all(m & said for m in meanings if m) and any(meanings) else "partly named"


def table(mutants: list[Mutant], verdicts: dict) -> tuple[str, dict[str, list[Mutant]]]:
    kept = [(i, m) for i, m in enumerate(mutants) if verdicts[i][0]]
    groups: dict[str, dict[str, list[Mutant]]] = {}
    for i, mutant in kept:
        kind = "one edit" if len(mutant.edits) == 1 else (
            "two edits, one function" if mutant.edits[0].function == mutant.edits[1].function
            else "two edits, two functions")
        groups.setdefault(kind, {}).setdefault(verdict(mutant, verdicts[i][1]), []).append(mutant)
    columns = ["named", "partly named", "symptom only", "wrong cause"]
    lines = ["| mutants | failed by the graders | " + " | ".join(columns) + " |", "|---" * (len(columns) + 2) + "|"]
    everything: dict[str, list[Mutant]] = {c: [] for c in columns}
    for kind, found in sorted(groups.items()):
        total = sum(map(len, found.values()))
        lines.append(f"| {kind} | {total} | " + " | ".join(
            f"{len(found.get(c, []))} ({100 * len(found.get(c, [])) / total:.0f}%)" for c in columns) + " |")
        for c in columns:
            everything[c] += found.get(c, [])
    total = sum(map(len, everything.values()))
    lines.append(f"| all | {total} | " + " | ".join(
        f"{len(everything[c])} ({100 * len(everything[c]) / max(1, total):.0f}%)" for c in columns) + " |")
    return "\n".join(lines), everything


def dump(path: Path, mutants: list[Mutant], verdicts: dict) -> None:
    import json
    rows = [{"edits": [e.label for e in m.edits], "functions": [e.function for e in m.edits],
             "meanings": [sorted(meaning(e)) for e in m.edits], "failed": verdicts[i][0],
             "named": sorted(verdicts[i][1]), "verdict": verdict(m, verdicts[i][1]) if verdicts[i][0] else "passed"}
            for i, m in enumerate(mutants)]
    path.write_text(json.dumps(rows, indent=1))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--singles", type=int, default=200)
    parser.add_argument("--pairs", type=int, default=120)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--show", default="wrong cause", help="list the mutants of one verdict")
    parser.add_argument("--dump", type=Path, help="write every graded mutant, its edits and verdict as JSON")
    args = parser.parse_args()
    started = time.perf_counter()
    mutants = generate(args.singles, args.pairs, args.seed)
    verdicts = grade(mutants, args.workers)
    text, everything = table(mutants, verdicts)
    print(text)
    print(f"\n{len(mutants)} mutants graded in {time.perf_counter() - started:.0f} s "
          f"({sum(v[2] for v in verdicts.values())} with a grader problem)")
    if args.dump:
        dump(args.dump, mutants, verdicts)
    for mutant in everything.get(args.show, []):
        index = mutants.index(mutant)
        print(f"  {args.show}: {mutant.label}  => {sorted(verdicts[index][1])}")
    return 1 if everything["wrong cause"] else 0


if __name__ == "__main__":
    sys.exit(main())
