"""The instructor's flag on files that run a copy of PyTorch's own attention code.

A fresh attack round ran PyTorch's attention from copies the refusals cannot know (its source cut out and
exec'd, functional.py imported a second time, a TorchScript archive, inductor's and ONNX's reference
patterns, names put together at run time) and kept full marks unflagged. Such a copy computes with plain
operations, like code typed by hand, so it is shown to the instructor instead: every way of reaching one,
generated below in several spellings, is flagged, and no correct style of the catalogue is.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from autograder.grading.circumvention import circumvention

ROUTES = {
    "exec a cut-out source": "src = open(F.__file__).read()\nexec(src, ns)\n",
    "eval": "fn = eval('F.multi_' + 'head_attention_forward')\n",
    "compile then run": "code = compile(text, 'x', 'exec')\n",
    "builtins by __self__": "run = getattr(print.__self__, ''.join(map(chr, [101, 120, 101, 99])))\n",
    "builtins by name": "import builtins\nrun = getattr(builtins, name)\n",
    "__builtins__": "run = __builtins__[name]\n",
    "__import__": "m = __import__(name)\n",
    "a second import": "import importlib.util\nspec = importlib.util.spec_from_file_location('f', path)\n",
    "module_from_spec alone": "mod = util.module_from_spec(spec)\nspec.loader.exec_module(mod)\n",
    "pkgutil": "import pkgutil\nfn = pkgutil.resolve_name(name)\n",
    "resolve_name from": "from pkgutil import resolve_name\n",
    "runpy": "import runpy\n",
    "a TorchScript archive": "fn = torch.jit.load(io.BytesIO(blob))\n",
    "inspect.getsource": "import inspect\n",
    "onnx reference": "import torch.onnx.ops._impl as impl\n",
    "inductor pattern by string": "name = '_sfdp_pattern_1'\n",
    "marshal a code object": "import marshal\n",
    "class-tree escape": "cls = ().__class__.__base__.__subclasses__()\n",
    "linecache": "import linecache\n",
    # rewriting the grader's own code in the child (its report of the inputs after a call, its watch)
    "the module table": "import sys\nh = sys.modules[name]\n",
    "a caller's globals": "import sys\ng = sys._getframe(3).f_globals\n",
    "a traceback's frame": "g = err.__traceback__.tb_frame.f_back.f_locals\n",
    "a tracing hook": "import sys\nsys.settrace(hook)\n",
}


@pytest.mark.parametrize("route", sorted(ROUTES))
def test_every_way_of_running_a_copy_is_flagged(route):
    body = ROUTES[route]
    for spelled in (body, f"def attention(Q, K, V, mask=None):\n" + "".join(f"    {line}\n" for line in body.splitlines())):
        assert circumvention("import torch\nimport torch.nn.functional as F\n" + spelled), (route, spelled)


def test_eval_and_compile_as_methods_are_not_flagged():
    """`layer.eval()` (every notebook), `re.compile` and `torch.compile`'s name as an attribute are no copies;
    neither is a layer's own `self.modules()`."""
    assert circumvention("layer = SingleHeadAttention(8, 4).eval()\nimport re\npattern = re.compile('x')\n"
                         "n = len(list(layer.modules()))\n") == ()


def test_no_correct_style_of_the_catalogue_is_flagged():
    folder = Path(__file__).parent / "catalogue" / "correct"
    files = sorted(folder.glob("*.py"))
    assert files
    flagged = {f.name: circumvention(f.read_text(encoding="utf-8")) for f in files}
    assert not {k: v for k, v in flagged.items() if v}
