"""A static look for deliberate attempts to switch off the grader's kernel watch (sandbox/child/watch.py).

Forbidden attention kernels are judged by what runs, never by names: a student may call their own
helper `scaled_dot_product_attention`. What a source check is still good for is the rare file that
reaches for PyTorch's mode stacks, torch-function switches or the grader's own child modules: no
exercise needs them, and they are the tools to hide a fused kernel from the watch. Such a file is
flagged for the instructor (a zero-point test that says why); it loses no points for the flag itself.
"""
from __future__ import annotations

import ast
import functools

TOOLS = {
    "TorchFunctionMode", "TorchDispatchMode", "_python_dispatch", "DisableTorchFunction",
    "DisableTorchFunctionSubclass", "_disabled_torch_function_impl", "_pop_mode", "_push_mode",
    "_pop_mode_temporarily", "_pop_torch_function_stack", "_push_on_torch_function_stack",
    "_set_torch_function_mode", "_len_torch_function_stack", "_get_function_stack_at",
    "_unset_dispatch_mode", "_set_dispatch_mode", "_get_current_dispatch_mode",
    "_get_current_dispatch_mode_stack", "_ExcludeDispatchKeyGuard", "_DisableTorchDispatch",
    "_dispatch_call_boxed", "_dispatch_tls_set_dispatch_key_excluded", "__torch_function__",
    "__torch_dispatch__", "_is_torch_function_mode_enabled", "_is_torch_function_enabled",
}
GRADER_MODULES = {"harness", "watch", "wire", "inputs"}  # the child's own modules (sys.modules keys)


@functools.lru_cache(maxsize=64)
def circumvention(source: str) -> tuple[str, ...]:
    """Names in the source that only serve to switch off or rewire the watch, sorted; () if none."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return ()
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in TOOLS:
            found.add(node.id)
        elif isinstance(node, ast.Attribute) and node.attr in TOOLS:
            found.add(node.attr)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                names = {alias.name, getattr(node, "module", None) or ""}
                found |= {part for name in names for part in name.split(".")} & (TOOLS | GRADER_MODULES)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if node.value in TOOLS or node.value in GRADER_MODULES - {"inputs"}:  # "inputs" is a common word
                found.add(repr(node.value))
    return tuple(sorted(found))


def flag(student) -> None:
    """The zero-point hidden test of each assignment: flag a file that reaches for the tools above."""
    from .student import NotAttempted, StudentFault
    if student.source.problem is not None:
        raise NotAttempted(student.source.problem)
    found = circumvention(student.source.text)
    if found:
        raise StudentFault(f"Flagged for your instructor (no points are taken for this flag): your file uses "
                           f"{', '.join(found)}, which no exercise needs and which can switch off the grader's "
                           "check for fused attention kernels.")
