"""Small, generic edits of one function or class of a student's own code: the repair search's candidates.

Each edit changes one place of the definition as a student's slip would: a call replaced by a sibling from the
lessons' vocabulary, a dimension, an axis or an index changed, a keyword added or dropped, a wrapping call added
or dropped, two arguments or two names of the same kind swapped, a comparison or a `~` flipped, a discarded
result kept, a call moved across a sum, a layer's module built in `forward` moved to `__init__`. None of them
knows a mistake: whether an edit is a repair is decided only by the hidden checks (repair/search.py).

An edit is found again on a fresh parse by its place (the node's index in a fixed walk of the definition) and
its choice (the index of its alternative there), so that two edits compose (repair/candidates.py lists and
makes them).
"""
from __future__ import annotations

import ast
import copy
import itertools
from dataclasses import dataclass

from .syntax import (Mutate, body_of, callee, definition, in_method, integer, is_module_call, is_module_construction,
                     is_number, method, minus_inf, names_swapped, next_statement, nodes, number_node, replaced,
                     self_call, substitute, swapped_with_next, to_init, transposed_name, value_of)

# Calls students mix up, by name: each may become another of its group.
SIBLINGS = [("tanh", "sigmoid", "relu"), ("softmax", "log_softmax"), ("tril", "triu"),
            ("log", "log2", "log10", "log1p"), ("sum", "mean"), ("unsqueeze", "squeeze"), ("matmul", "mul", "bmm"),
            ("amax", "amin"), ("max", "min")]
SIBLING_OF = {name: [other for other in group if other != name] for group in SIBLINGS for name in group}
# Calls that wrap a value without changing what it is about: dropping one is a candidate edit.
WRAPPERS = {"sqrt", "softmax", "log_softmax", "normalize", "detach", "tanh", "sigmoid", "relu", "exp", "log",
            "abs", "contiguous", "clone", "float", "squeeze", "rsqrt", "log2", "log10", "log1p", "neg", "t", "transpose"}
REDUCTIONS = {"sum", "mean", "amax", "max", "logsumexp", "norm", "amin", "min", "prod"}
AXIS_CALLS = {"softmax", "log_softmax", "sum", "mean", "unsqueeze", "squeeze", "transpose", "permute", "amax",
              "max", "logsumexp", "normalize", "cumsum", "flip", "size", "norm", "amin", "min", "prod", "swapaxes",
              "movedim", "tril", "triu", "view", "reshape", "expand", "repeat"}
AXES = (-1, -2, 0, 1, 2, -3)
FLIPPED = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.Gt: ast.LtE,
           ast.LtE: ast.Gt}
NEIGHBOUR = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt}
COMPARISONS = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)
NAME_GROUPS = [("Q", "K", "V"), ("q", "k", "v"), ("x_q", "x_kv"), ("query", "key", "value"), ("queries", "keys", "values")]
# cost rank of each kind of edit: the search tries cheap, likely slips first
RANK = {"call": 0, "axis": 1, "keyword": 1, "operator": 2, "unwrap": 2, "swap": 2, "name": 3, "compare": 3,
        "keep": 0, "across-sum": 1, "to-init": 1, "wrap": 4, "constant": 4, "index": 3, "order": 2, "compare-other": 4,
        "name-other": 4}


@dataclass(frozen=True)
class Edit:
    index: int        # the node, in walk order of the definition
    choice: int       # which of its alternatives
    kind: str         # call, axis, keyword, operator, unwrap, wrap, swap, name, compare, keep, across-sum, ...
    old: str          # the node's code before
    new: str          # and after
    line: int         # the node's line in its cell
    key: str          # what reports count repairs by: kind and what changed, without the student's names

    @property
    def rank(self) -> int:
        return RANK.get(self.kind, 5)


class Context:
    """What edits of one definition may use: its names by group, and a class's unused modules."""

    def __init__(self, root: ast.AST) -> None:
        loaded = {n.id for n in ast.walk(root) if isinstance(n, ast.Name)}
        loaded |= {a.arg for n in ast.walk(root) if isinstance(n, ast.arguments) for a in n.args}
        self.groups = [tuple(name for name in group if name in loaded) for group in NAME_GROUPS]
        self.groups = [g for g in self.groups if len(g) > 1]
        self.parameter_groups: list[tuple[str, ...]] = []
        for function in [n for n in ast.walk(root) if isinstance(n, ast.FunctionDef)]:
            own = tuple(a.arg for a in function.args.args if a.arg != "self")
            if len(own) > 1 and own not in self.groups:
                self.parameter_groups.append(own)   # a function's own parameters: two of them swapped
        self.attr_groups: list[tuple[str, ...]] = []
        self.unused_modules: list[str] = []
        self.forward_names: set[str] = set()
        self.parameters = {a.arg for n in ast.walk(root) if isinstance(n, ast.arguments) for a in n.args} - {"self"}
        # the definition's own variables (not modules like torch or F): what a discarded result may be kept in
        self.variables = self.parameters | {n.id for n in ast.walk(root) if isinstance(n, ast.Name)
                                            and isinstance(n.ctx, ast.Store)}
        if isinstance(root, ast.ClassDef):
            attrs = sorted({n.attr for n in ast.walk(root) if isinstance(n, ast.Attribute)
                            and isinstance(n.value, ast.Name) and n.value.id == "self"})
            by_prefix: dict[str, list[str]] = {}
            for attr in attrs:
                stem = attr.rstrip("qkvQKV").rstrip("_") if len(attr) > 1 else ""
                if stem and stem != attr:
                    by_prefix.setdefault(stem, []).append(attr)
            self.attr_groups = [tuple(g) for g in by_prefix.values() if len(g) > 1]
            init = method(root, "__init__")
            forward = method(root, "forward")
            if init is not None and forward is not None:
                made = {t.attr for s in ast.walk(init) if isinstance(s, ast.Assign) for t in s.targets
                        if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"}
                used = {n.attr for n in ast.walk(forward) if isinstance(n, ast.Attribute)}
                self.unused_modules = sorted(made - used)
                self.forward_names = {a.arg for a in forward.args.args if a.arg != "self"}


def in_place(call: ast.Call) -> bool:
    """`x.masked_fill_(...)`, `x.add_(...)`: a call whose result is its receiver, changed."""
    return isinstance(call.func, ast.Attribute) and call.func.attr.endswith("_") and not call.func.attr.endswith("__")


def kept_names(call: ast.Call, variables: set[str]) -> list[str]:
    """The variables a discarded call's result may have been meant for, at most three: its receiver
    (`x.masked_fill(...)`), each variable passed to it (`apply_mask(scores, mask)`, `torch.softmax(scores, -1)`),
    then any other the call reads (`torch.as_tensor(mask).bool()`), each once."""
    found = []
    if isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name):
        found.append(call.func.value.id)
    found += [a.id for a in [*call.args, *(k.value for k in call.keywords)] if isinstance(a, ast.Name)]
    found += [n.id for n in ast.walk(call) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
    return [name for name in dict.fromkeys(found) if name in variables and name != "self"][:3]


def alternatives(node: ast.AST, root: ast.AST, context: Context) -> list[tuple[str, ast.AST | None, Mutate, str]]:
    """Every edit of this node: (kind, the new node or None, how to make it, the key reports count it by)."""
    found: list[tuple[str, ast.AST | None, Mutate, str]] = []

    def put(kind: str, new: ast.AST, key: str) -> None:
        found.append((kind, new, replaced(new), key))

    if isinstance(node, ast.Call):
        name = callee(node)
        if name in SIBLING_OF:
            for other in SIBLING_OF[name]:
                func = copy.copy(node.func)
                if isinstance(func, ast.Attribute):
                    func.attr = other
                else:
                    func.id = other
                put("call", ast.Call(func, node.args, node.keywords), f"call-{name}-to-{other}")
        if name in AXIS_CALLS:
            for position, arg in enumerate(node.args):
                value = integer(arg)
                if value is not None and (name != "size" or position == 0):
                    for axis in AXES:
                        if axis != value:
                            args = list(node.args)
                            args[position] = number_node(axis)
                            put("axis", ast.Call(node.func, args, node.keywords), f"axis-of-{name}")
            for k, keyword in enumerate(node.keywords):
                value = integer(keyword.value)
                if keyword.arg == "dim" and value is not None:
                    for axis in AXES:
                        if axis != value:
                            keywords = list(node.keywords)
                            keywords[k] = ast.keyword("dim", number_node(axis))
                            put("axis", ast.Call(node.func, node.args, keywords), f"axis-of-{name}")
            own = 1 if is_module_call(node) or not isinstance(node.func, ast.Attribute) else 0
            if name in ("softmax", "log_softmax") and not any(k.arg == "dim" for k in node.keywords) \
                    and len(node.args) == own:
                put("keyword", ast.Call(node.func, node.args, [*node.keywords, ast.keyword("dim", number_node(-1))]),
                    f"keyword-dim-added-to-{name}")
        if name in REDUCTIONS:
            keep = [k for k in node.keywords if k.arg == "keepdim"]
            if not keep:
                put("keyword", ast.Call(node.func, node.args, [*node.keywords, ast.keyword("keepdim", ast.Constant(True))]),
                    f"keepdim-added-to-{name}")
            else:
                put("keyword", ast.Call(node.func, node.args, [k for k in node.keywords if k.arg != "keepdim"]),
                    f"keepdim-dropped-from-{name}")
        if isinstance(node.func, ast.Attribute) and name and name.endswith("_") and not name.startswith("_") \
                and not is_module_call(node):
            put("call", ast.Call(ast.Attribute(node.func.value, name[:-1], ast.Load()), node.args, node.keywords),
                "in-place-call-to-copy")
        for k, keyword in enumerate(node.keywords):
            if isinstance(keyword.value, ast.Constant) and type(keyword.value.value) is bool:
                keywords = list(node.keywords)
                keywords[k] = ast.keyword(keyword.arg, ast.Constant(not keyword.value.value))
                put("keyword", ast.Call(node.func, node.args, keywords), "keyword-flag-flipped")
        if name == "sqrt" and len(node.args) == 1 and isinstance(node.args[0], ast.Constant) \
                and type(node.args[0].value) is int:
            for param in sorted(context.parameters)[:4]:
                size = ast.Subscript(ast.Attribute(ast.Name(param, ast.Load()), "shape", ast.Load()), number_node(-1),
                                     ast.Load())
                put("constant", ast.Call(node.func, [size], []), "constant-to-size")
        for keyword in node.keywords:
            if keyword.arg and keyword.arg != "keepdim":
                put("keyword", ast.Call(node.func, node.args, [k for k in node.keywords if k is not keyword]),
                    f"keyword-{keyword.arg.lower().replace('_', '-')}-dropped")
        if name in WRAPPERS:
            if isinstance(node.func, ast.Attribute) and not node.args and not is_module_call(node):
                put("unwrap", node.func.value, f"call-{name}-dropped")     # x.detach() -> x
            elif node.args and not isinstance(node.args[0], ast.Starred):
                if not (isinstance(node.func, ast.Attribute) and not is_module_call(node)):
                    put("unwrap", node.args[0], f"call-{name}-dropped")    # torch.sqrt(x) -> x
                else:
                    put("unwrap", node.func.value, f"call-{name}-dropped")  # x.softmax(-1) -> x
        if len(node.args) >= 2 and not node.keywords or len(node.args) == 2:
            for i in range(len(node.args) - 1):
                for j in range(i + 1, len(node.args)):
                    a, b = node.args[i], node.args[j]
                    if integer(a) is None and integer(b) is None and ast.dump(a) != ast.dump(b):
                        args = list(node.args)
                        args[i], args[j] = b, a
                        put("swap", ast.Call(node.func, args, node.keywords), "arguments-swapped")
        if name == "len" and len(node.args) == 1:
            put("call", ast.Subscript(ast.Attribute(node.args[0], "shape", ast.Load()), number_node(-1), ast.Load()),
                "len-to-last-size")
        for unused in context.unused_modules:
            for position, arg in enumerate(node.args):
                if isinstance(arg, ast.Name) and arg.id in context.forward_names:
                    args = list(node.args)
                    args[position] = self_call(unused, arg)
                    put("wrap", ast.Call(node.func, args, node.keywords), "unused-module-applied")
    elif isinstance(node, ast.BinOp):
        if isinstance(node.op, (ast.MatMult, ast.Mult)):
            other = ast.Mult() if isinstance(node.op, ast.MatMult) else ast.MatMult()
            put("operator", ast.BinOp(node.left, other, node.right),
                "operator-matmul-to-mul" if isinstance(node.op, ast.MatMult) else "operator-mul-to-matmul")
        if isinstance(node.op, (ast.MatMult, ast.Sub)) or (isinstance(node.op, ast.Div) and not is_number(node.right)):
            put("swap", ast.BinOp(node.right, node.op, node.left), "operands-swapped")
        if isinstance(node.op, ast.Div) and not is_number(node.right):
            put("wrap", ast.BinOp(node.left, node.op, ast.BinOp(node.right, ast.Pow(), ast.Constant(0.5))),
                "sqrt-added-to-divisor")
        if isinstance(node.op, ast.MatMult):
            keys = transposed_name(node.right)
            if keys is not None:   # scores with no scale: divided by sqrt of the keys' last size
                size = ast.Subscript(ast.Attribute(ast.Name(keys, ast.Load()), "shape", ast.Load()), number_node(-1),
                                     ast.Load())
                put("wrap", ast.BinOp(node, ast.Div(), ast.BinOp(size, ast.Pow(), ast.Constant(0.5))), "scale-added")
        if isinstance(node.op, (ast.Div, ast.Mult)):   # a scale left out: x / s -> x, x * s -> x
            put("unwrap", node.left, "divisor-dropped" if isinstance(node.op, ast.Div) else "factor-dropped")
            if isinstance(node.op, ast.Mult):
                put("unwrap", node.right, "factor-dropped")
        if isinstance(node.op, (ast.Div, ast.Mult)) and not isinstance(node.op, ast.MatMult):
            put("operator", ast.BinOp(node.left, ast.Mult() if isinstance(node.op, ast.Div) else ast.Div(),
                                      node.right), "operator-div-mul")
        if isinstance(node.left, ast.BinOp) and not isinstance(node.left.op, type(node.op)):   # d ** 1 / 2
            put("operator", ast.BinOp(node.left.left, node.left.op, ast.BinOp(node.left.right, node.op, node.right)),
                "regrouped")
        if isinstance(node.op, ast.Pow) and is_number(node.right):
            put("constant", ast.BinOp(node.left, node.op, ast.Constant(0.5 if value_of(node.right) != 0.5 else -0.5)),
                "power-changed")
        if isinstance(node.op, ast.Add) and isinstance(node.left, ast.Call) and isinstance(node.right, ast.Call) \
                and ast.dump(node.left.func) == ast.dump(node.right.func) and len(node.left.args) == 1 \
                and len(node.right.args) == 1 and not node.left.keywords and not node.right.keywords:
            inner = ast.BinOp(node.left.args[0], ast.Add(), node.right.args[0])
            put("across-sum", ast.Call(node.left.func, [inner], []), "call-moved-across-sum")
    elif isinstance(node, ast.Compare) and len(node.ops) == 1:
        op = type(node.ops[0])
        if op not in (ast.Is, ast.IsNot) and any(isinstance(c, ast.Constant) and c.value is None
                                                 for c in [node.left, *node.comparators]):
            for identity in (ast.IsNot, ast.Is):   # `mask != None` (on a tensor: elementwise) for `mask is not None`
                put("compare", ast.Compare(node.left, [identity()], node.comparators), "comparison-with-none-to-is")
        if op in FLIPPED:
            put("compare", ast.Compare(node.left, [FLIPPED[op]()], node.comparators), "comparison-flipped")
        if op in NEIGHBOUR:
            put("compare", ast.Compare(node.left, [NEIGHBOUR[op]()], node.comparators), "comparison-boundary")
        for other in COMPARISONS:
            if other is not op and other is not FLIPPED.get(op) and other is not NEIGHBOUR.get(op) and op in FLIPPED:
                put("compare-other", ast.Compare(node.left, [other()], node.comparators), "comparison-changed")
        if op in (ast.Is, ast.IsNot):
            put("compare", ast.Compare(node.left, [ast.IsNot() if op is ast.Is else ast.Is()], node.comparators),
                "comparison-flipped")
        for position, value in enumerate(node.comparators):
            number = integer(value)
            if number is not None:   # mask == 0 written mask == 1
                for other in (number + 1, number - 1, 0):
                    if other != number:
                        comparators = list(node.comparators)
                        comparators[position] = number_node(other)
                        put("constant", ast.Compare(node.left, node.ops, comparators), "constant-changed")
    elif isinstance(node, ast.UnaryOp):
        if isinstance(node.op, (ast.Invert, ast.Not)):
            put("compare", node.operand, "negation-dropped")
            put("compare", ast.Compare(node.operand, [ast.Eq()], [ast.Constant(0)]), "negation-as-comparison")
        elif isinstance(node.op, ast.USub) and not is_number(node.operand):
            put("operator", node.operand, "minus-dropped")
        elif isinstance(node.op, ast.USub) and (type(value_of(node)) is float or abs(value_of(node)) >= 10):
            put("constant", minus_inf(), "fill-to-minus-inf")   # a negative number that is no axis: a fill
    elif isinstance(node, ast.Subscript) and integer(node.slice) is not None:
        for axis in AXES:
            if axis != integer(node.slice):
                put("index", ast.Subscript(node.value, number_node(axis), node.ctx), "index-changed")
    elif isinstance(node, ast.Constant) and type(node.value) is float:   # integers are axes and indices (above)
        put("constant", minus_inf(), "fill-to-minus-inf")
        options = [-node.value]
        if type(node.value) is float and node.value not in (0.0, 1.0, -1.0):
            options.append(1.0 / node.value)   # -1e-9 written for -1e9
        for value in options:
            if value != node.value:
                put("constant", number_node(value), "constant-changed")
    elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
        if node.id in context.forward_names:
            for unused in context.unused_modules:
                put("wrap", self_call(unused, node), "unused-module-applied")
        for kind, groups in (("name", context.groups), ("name-other", context.parameter_groups)):
            for group in groups:
                if node.id in group:
                    for other in group:
                        if other != node.id:
                            put(kind, ast.Name(other, ast.Load()), "name-swapped")
    elif isinstance(node, ast.Attribute) and node.attr in ("T", "mT") and isinstance(node.ctx, ast.Load):
        put("unwrap", node.value, "transpose-dropped")
        if node.attr == "T":   # .T reverses every axis of a 3-D tensor
            put("axis", ast.Call(ast.Attribute(node.value, "transpose", ast.Load()), [number_node(-2), number_node(-1)],
                                 []), "transpose-of-last-two")
    elif isinstance(node, ast.Attribute) and node.attr == "weight" and isinstance(node.ctx, ast.Load):
        put("wrap", ast.Attribute(node, "T", ast.Load()), "transpose-added")
    elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self" \
            and isinstance(node.ctx, ast.Load):
        for group in context.attr_groups:
            if node.attr in group:
                for other in group:
                    if other != node.attr:
                        put("name", ast.Attribute(node.value, other, node.ctx), "module-swapped")
    elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and not in_place(node.value):
        for target in kept_names(node.value, context.variables):   # `scores.masked_fill(...)`, `apply_mask(scores, m)`
            put("keep", ast.Assign([ast.Name(target, ast.Store())], node.value, lineno=node.lineno), "result-kept")
    elif isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple) and len(node.value.elts) == 2:
        put("order", ast.Return(ast.Tuple(node.value.elts[::-1], ast.Load())), "returned-pair-swapped")
    elif isinstance(node, ast.Return) and node.value is not None:
        put("operator", ast.Return(ast.UnaryOp(ast.USub(), node.value)), "sign-of-result")
    elif isinstance(node, ast.Assign) and len(node.targets) == 1 and is_module_construction(node.value):
        mover = to_init(node)
        if mover is not None and method(root, "__init__") is not None and in_method(root, node, "forward"):
            found.append(("to-init", None, mover, "module-built-in-forward-moved-to-init"))
    docstring = isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    if isinstance(node, ast.stmt) and not isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not docstring:
        following = next_statement(root, node)
        if following is not None and not isinstance(following, (ast.FunctionDef, ast.ClassDef)) \
                and ast.dump(following) != ast.dump(node):
            found.append(("order", None, swapped_with_next, "statements-swapped"))
    if isinstance(node, (ast.Assign, ast.Return, ast.Expr, ast.AugAssign)):
        present = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        for group in context.groups:
            for a, b in itertools.combinations([name for name in group if name in present], 2):
                put("swap", names_swapped(node, a, b), "names-swapped")
    return found


