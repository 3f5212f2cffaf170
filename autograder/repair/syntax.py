"""Small pieces of Python syntax the repair edits are made of (repair/edits.py): finding a definition and its
nodes, replacing a node, and the few expressions and statement moves edits build."""
from __future__ import annotations

import ast
import copy
from typing import Callable


Mutate = Callable[[ast.AST, ast.AST], None]  # (definition, node) -> None: edits the fresh tree in place


def definition(tree: ast.Module, name: str) -> ast.AST | None:
    """The last top-level definition of `name` (a later definition wins, as when the file runs)."""
    found = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.name == name]
    return found[-1] if found else None


def nodes(definition_node: ast.AST) -> list[ast.AST]:
    """The definition's nodes in a fixed order (docstrings and the digits of a negative number left out)."""
    docs = {id(n.value) for n in ast.walk(definition_node) if isinstance(n, ast.Expr)
            and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str)}
    docs |= {id(n.operand) for n in ast.walk(definition_node) if isinstance(n, ast.UnaryOp)
             and isinstance(n.op, ast.USub) and isinstance(n.operand, ast.Constant)}
    return [n for n in ast.walk(definition_node) if id(n) not in docs]


def callee(node: ast.Call) -> str | None:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None


def integer(node: ast.AST) -> int | None:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant) \
            and type(node.operand.value) is int:
        return -node.operand.value
    return None


def number_node(value: float | int) -> ast.AST:
    return ast.UnaryOp(ast.USub(), ast.Constant(-value)) if value < 0 else ast.Constant(value)


def replaced(new: ast.AST) -> Mutate:
    def mutate(root: ast.AST, node: ast.AST) -> None:
        substitute(root, node, new)   # `new` was built on this very parse: no copy needed
    return mutate


def substitute(root: ast.AST, old: ast.AST, new: ast.AST) -> bool:
    for parent in ast.walk(root):
        for field, value in ast.iter_fields(parent):
            if value is old:
                setattr(parent, field, new)
                return True
            if isinstance(value, list) and any(v is old for v in value):
                setattr(parent, field, [new if v is old else v for v in value])
                return True
    return False


def method(root: ast.AST, name: str) -> ast.FunctionDef | None:
    return next((n for n in root.body if isinstance(n, ast.FunctionDef) and n.name == name), None) \
        if isinstance(root, ast.ClassDef) else None


def body_of(root: ast.AST, statement: ast.AST) -> list | None:
    for parent in ast.walk(root):
        for field in ("body", "orelse", "finalbody"):
            body = getattr(parent, field, None)
            if isinstance(body, list) and any(s is statement for s in body):
                return body
    return None


def next_statement(root: ast.AST, statement: ast.AST) -> ast.AST | None:
    body = body_of(root, statement)
    if body is None:
        return None
    at = next(i for i, s in enumerate(body) if s is statement)
    return body[at + 1] if at + 1 < len(body) else None


def swapped_with_next(root: ast.AST, statement: ast.AST) -> None:
    """This statement and the next one of its block, in the other order (a mask applied after the softmax)."""
    body = body_of(root, statement)
    at = next(i for i, s in enumerate(body) if s is statement)
    body[at], body[at + 1] = body[at + 1], body[at]


def names_swapped(statement: ast.AST, a: str, b: str) -> ast.AST:
    """The statement with every read of `a` made a read of `b` and the other way round."""
    new = copy.deepcopy(statement)
    for n in ast.walk(new):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in (a, b):
            n.id = b if n.id == a else a
    return new


def minus_inf() -> ast.AST:
    return ast.Call(ast.Name("float", ast.Load()), [ast.Constant("-inf")], [])


def transposed_name(node: ast.AST) -> str | None:
    """`K` of `K.transpose(-2, -1)`, `K.T`, `K.mT`, `K.transpose(1, 2)`: the operand a score's keys are."""
    if isinstance(node, ast.Call) and callee(node) in ("transpose", "swapaxes") and isinstance(node.func, ast.Attribute):
        node = node.func.value
    elif isinstance(node, ast.Attribute) and node.attr in ("T", "mT"):
        node = node.value
    else:
        return None
    return node.id if isinstance(node, ast.Name) else None


def is_number(node: ast.AST) -> bool:
    return value_of(node) is not None


def value_of(node: ast.AST) -> float | None:
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant) \
            and type(node.operand.value) in (int, float):
        return -node.operand.value
    return None


def is_module_call(node: ast.Call) -> bool:
    """`torch.softmax(x, ...)`, `F.softmax(...)`, `math.sqrt(...)`: a function of a module, not a method of x."""
    func = node.func
    return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in (
        "torch", "F", "math", "np", "numpy", "functional", "nn")


def is_module_construction(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) \
        and node.func.value.id == "nn" and node.func.attr[:1].isupper()


def self_call(attr: str, arg: ast.AST) -> ast.Call:
    return ast.Call(ast.Attribute(ast.Name("self", ast.Load()), attr, ast.Load()), [arg], [])


def in_method(root: ast.AST, node: ast.AST, name: str) -> bool:
    found = method(root, name)
    return found is not None and any(n is node for n in ast.walk(found))


def to_init(statement: ast.Assign) -> Mutate | None:
    """`self.W = nn.Linear(...)` or `W = nn.Linear(...)` in forward: made once in __init__ instead (a local name
    becomes an attribute). Sizes read from forward's inputs cannot move."""
    target = statement.targets[0]
    if isinstance(target, ast.Name):
        attr = f"_{target.id}" if not target.id.startswith("_") else target.id
        local = target.id
    elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
        attr, local = target.attr, None
    else:
        return None

    def mutate(root: ast.AST, node: ast.AST) -> None:
        init, forward = method(root, "__init__"), method(root, "forward")
        forward.body = [s for s in forward.body if s is not node] or [ast.Pass()]
        for n in ast.walk(forward):
            if local is not None and isinstance(n, ast.Name) and n.id == local:
                substitute(forward, n, ast.Attribute(ast.Name("self", ast.Load()), attr, n.ctx))
        init.body.append(ast.Assign([ast.Attribute(ast.Name("self", ast.Load()), attr, ast.Store())],
                                    copy.deepcopy(node.value), lineno=0))
    return mutate
