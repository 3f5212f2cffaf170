"""The candidates of one definition of a student's cell: its single edits (repair/edits.py), listed cheapest kind
first with the code they change shown unambiguously, and made: as the cell, or as the definition alone under
another name, to sit beside the student's own code."""
from __future__ import annotations

import ast
import copy
import functools

from .edits import Context, Edit, alternatives, definition, nodes, substitute


def singles(source: str, name: str) -> list[Edit]:
    """Every single edit of the definition `name` in this cell, cheapest kinds first, then in order of the code."""
    segment = _segment(source, name)
    if segment is None:
        return []
    root = definition(ast.parse(segment), name)
    context = Context(root)
    parents = {id(child): parent for parent in ast.walk(root) for child in ast.iter_child_nodes(parent)}
    found = []
    for index, node in enumerate(nodes(root)):
        for choice, (kind, new, _, key) in enumerate(alternatives(node, root, context)):
            old_text = ast.unparse(node)
            new_text = ast.unparse(new) if new is not None else moved_text(node, key)
            if old_text != new_text:
                if new is not None:
                    old_text, new_text = unambiguous(node, new, parents)
                found.append(Edit(index, choice, kind, old_text, new_text, getattr(node, "lineno", root.lineno),
                                  key.lower().replace("_", "-")))
    return sorted(found, key=lambda e: (e.rank, e.index, e.choice))


def unambiguous(node: ast.AST, new: ast.AST, parents: dict) -> tuple[str, str]:
    """The edit's old and new code, widened to an enclosing expression until the old code occurs once in its
    statement (`self.W_Q(x_kv)` rather than a `self.W_Q` written twice there): the student must see which."""
    statement = node
    while not isinstance(statement, ast.stmt) and id(statement) in parents:
        statement = parents[id(statement)]
    text = ast.unparse(statement)
    shown, replacement = node, new
    while ast.unparse(shown) and text.count(ast.unparse(shown)) > 1 and id(shown) in parents \
            and not isinstance(shown, ast.stmt):
        parent = parents[id(shown)]
        memo: dict = {}
        copied = copy.deepcopy(parent, memo)
        substitute(copied, memo[id(shown)], replacement)
        shown, replacement = parent, copied
    return ast.unparse(shown), ast.unparse(replacement)


def moved_text(node: ast.AST, key: str = "") -> str:
    if key == "statements-swapped":
        return f"{ast.unparse(node).splitlines()[0]}  (moved below the next statement)"
    return f"{ast.unparse(node)}  (moved to __init__)"


@functools.lru_cache(maxsize=8)
def _segment(source: str, name: str) -> str | None:
    """The definition's own lines, at their lines of the cell (blank lines before): parsing this alone is much
    cheaper than copying the parsed cell, and gives every node its line in the cell."""
    root = definition(ast.parse(source), name)
    if root is None:
        return None
    first = min([root.lineno, *(d.lineno for d in root.decorator_list)])
    lines = source.splitlines(keepends=True)
    return "\n" * (first - 1) + "".join(lines[first - 1:root.end_lineno])


def edited(source: str, name: str, chosen: list[Edit]) -> ast.AST | None:
    """The definition `name` of this cell with these edits made (on a parse of its own), or None when they overlap
    (one inside the other) or no longer fit the code."""
    segment = _segment(source, name)
    if segment is None:
        return None
    root = definition(ast.parse(segment), name)
    walked = nodes(root)
    context = Context(root)
    made = []
    for edit in chosen:
        if edit.index >= len(walked):
            return None
        node = walked[edit.index]
        options = alternatives(node, root, context)
        if edit.choice >= len(options) or options[edit.choice][3].lower().replace("_", "-") != edit.key:
            return None
        made.append((node, options[edit.choice][2]))
    for node, _ in made:
        if any(other is not node and any(n is node for n in ast.walk(other)) for other, _ in made):
            return None   # nested: the outer edit would lose the inner one
    for node, mutate in made:
        mutate(root, node)
    return ast.fix_missing_locations(root)


def apply(source: str, name: str, chosen: list[Edit]) -> str | None:
    """The cell's source with these edits made in the definition `name` (the rest of the cell as written)."""
    root = edited(source, name, chosen)
    if root is None:
        return None
    lines = source.splitlines(keepends=True)
    first = min([root.lineno, *(d.lineno for d in root.decorator_list)])
    return "".join(lines[:first - 1]) + ast.unparse(root) + "\n" + "".join(lines[root.end_lineno:])


def renamed(source: str, name: str, chosen: list[Edit], new_name: str) -> str | None:
    """The edited definition alone, under another name (references to its own name inside it follow), so that
    many candidates can sit in one module beside the student's own code."""
    root = edited(source, name, chosen)
    if root is None:
        return None
    root.name = new_name
    for node in ast.walk(root):
        if isinstance(node, ast.Name) and node.id == name:
            node.id = new_name
    return ast.unparse(root)


def shown_apart(source: str, name: str, chosen: list[Edit]) -> list[Edit]:
    """The edits as the student is shown them: two in one statement whose code the other's touches (the names of
    `scores + f(mask)` swapped: `scores` → `mask` and `mask` → `scores`, made one after the other, would undo
    each other) are shown as one edit of that statement, before and after; the others as they are."""
    if len(chosen) != 2 or any("(moved" in e.new for e in chosen):
        return list(chosen)
    a, b = sorted(chosen, key=lambda e: e.index)
    if not (a.old in b.new or b.old in a.new or a.old in b.old or b.old in a.old or a.new in b.old or b.new in a.old):
        return list(chosen)
    segment = _segment(source, name)
    after = edited(source, name, [a, b])
    if segment is None or after is None:
        return list(chosen)
    before = definition(ast.parse(segment), name)
    old, new = statement_at(before, a, b), statement_at(after, a, b)
    if old is None or new is None or type(old) is not type(new) or old.lineno != new.lineno \
            or ast.unparse(old) == ast.unparse(new):
        return list(chosen)
    return [Edit(a.index, a.choice, a.kind, ast.unparse(old), ast.unparse(new), old.lineno, f"{a.key}-and-{b.key}")]


def statement_at(root: ast.AST, a: Edit, b: Edit) -> ast.stmt | None:
    """The innermost statement (not a block) on both edits' lines, if one holds them both."""
    found = [n for n in ast.walk(root) if isinstance(n, ast.stmt) and not hasattr(n, "body")
             and n.lineno <= min(a.line, b.line) and max(a.line, b.line) <= (n.end_lineno or n.lineno)]
    return max(found, key=lambda n: n.lineno) if found else None
