"""A static look for deliberate attempts to undo the grader's kernel refusals (sandbox/child/forbid.py) or
switch off its kernel watch (sandbox/child/watch.py).

Forbidden attention kernels are switched off before student code loads and judged by what runs, never
by names: a student may call their own helper `scaled_dot_product_attention`. What a source check is
still good for is the rare file that reaches for the tools it would take to get a fused kernel back or
hide it (docs/kernels.md): PyTorch's mode stacks and torch-function switches, its operator registry and
dispatcher internals (`torch.library`, `torch._C._dispatch_*`), the garbage collector's object lists,
`ctypes`, code-object surgery and module reloading, PyTorch's internal attention code, the tools that run
a copy of it (`exec`/`eval`/`compile`, re-imports, `inspect.getsource`, TorchScript archives, names put
together at run time), and the grader's own child modules. No exercise needs any of them. Such a file is flagged for the instructor (a
zero-point test that says why); it loses no points for the flag itself.
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
    # what it would take to undo forbid.py: re-register or redispatch kernels, find its objects, swap code back
    "Library", "_dispatch_library", "_dispatch_has_kernel_for_dispatch_key", "_dispatch_find_dangling_impls",
    "_dispatch_dump", "_dispatch_dump_table", "_dispatch_get_all_op_names", "redispatch", "py_kernels", "py_impl",
    "decomposition_table", "get_objects", "get_referrers", "get_referents", "__code__", "__closure__",
    "__globals__", "co_consts", "reload", "meta_path", "path_hooks", "ctypes", "pythonapi", "cffi",
    "_higher_order_ops", "_decomp", "_refs", "_prims", "_inductor", "quantizable", "_internal",
    "_native_multi_head_attention", "_transformer_encoder_layer_fwd", "_masked_softmax", "_safe_softmax",
}
# what it would take to run a copy of PyTorch's own attention code (its source re-executed or re-imported, a
# compiled TorchScript archive, a name put together at run time): flagged wherever they appear
TOOLS |= {"getsource", "getsourcelines", "jit", "onnx", "resolve_name", "__self__", "__builtins__", "ModuleType",
          "spec_from_file_location", "module_from_spec", "exec_module", "source_to_code", "_sfdp_pattern_1",
          "__subclasses__", "__mro__", "__bases__", "__base__", "__loader__", "__spec__"}
# what it would take to rewrite the grader's own code in the child (its report of the inputs after a call, its
# watch): other frames' globals and locals, the interpreter's module table, tracing hooks
TOOLS |= {"_getframe", "f_globals", "f_locals", "f_back", "f_builtins", "tb_frame", "gi_frame", "cr_frame",
          "_current_frames", "settrace", "setprofile"}
# builtins flagged when called by their own name only (`layer.eval()` and `re.compile` are not them)
BUILTIN_TOOLS = {"exec", "eval", "compile", "__import__"}
MODULE_TOOLS = {"gc", "importlib", "ctypes", "cffi", "library", "multiprocessing", "subprocess",
                "threading", "_thread", "concurrent", "pkgutil", "runpy", "builtins", "inspect", "linecache",
                "marshal"}  # modules whose import alone is flagged
GRADER_MODULES = {"harness", "watch", "wire", "inputs", "forbid", "zygote", "confine"}  # the child's own modules


@functools.lru_cache(maxsize=64)
def circumvention(source: str) -> tuple[str, ...]:
    """Names in the source that only serve to switch off or rewire the watch, sorted; () if none."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return ()
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and (node.id in TOOLS or node.id in BUILTIN_TOOLS):
            found.add(node.id)
        elif isinstance(node, ast.Attribute) and node.attr in TOOLS:
            found.add(node.attr)
        elif isinstance(node, ast.Attribute) and node.attr == "modules" and isinstance(node.value, ast.Name) \
                and node.value.id == "sys":  # `sys.modules`, not a layer's `self.modules()`
            found.add("sys.modules")
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                names = {alias.name, getattr(node, "module", None) or ""}
                found |= {part for name in names for part in name.split(".")} & (TOOLS | GRADER_MODULES
                                                                                   | MODULE_TOOLS)
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
                           f"{', '.join(found)}, which no exercise needs and which can be used to get the fused "
                           "attention kernels back or hide them from the grader's check.")
