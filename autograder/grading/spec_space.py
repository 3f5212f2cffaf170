"""A declared spec's argument space, and the probes drawn from it (docs/authoring.md, "Declaring a spec").

A master's `role="spec"` cell is one Python dict literal (read with ast.literal_eval: no code runs). Its named
sizes have ranges; a tensor argument's shape names them (`"... T_k"`: 1 to n leading dims of their own), its dtype
is float, integer or bool and its values lie in a range whose bounds may be sizes (`[1, "T_k"]`), a mask is bool and
may broadcast (any of its dims may be 1, unless declared `"broadcast": False`), a Python scalar has a range. From that
alone come:

- the edges, deterministic: every size at each bound, every two sizes equal (unless declared `apart`), every
  rank of a `...`, every scalar at each bound, every value range reached at both ends, every mask dim at 1;
- `draws` seeded draws, sizes kept distinct where the ranges allow.

The same for every student and every run: seeds come from the exercise's name through probe_seed, so the seed
sweep (ATTNKIT_SEED_SHIFT) moves them with every other probe.
"""
from __future__ import annotations

import ast
import itertools
import zlib
from dataclasses import dataclass, field

import torch

from ..diagnosis.catalog import MISTAKE_ID
from .student import probe_seed

KEYS = {"sizes", "apart", "init", "args", "result", "points", "draws", "hint", "mistakes"}
RESULTS = ("values", "exact")
DTYPES = ("float32", "float64", "int64", "int32", "bool")
DTYPE_NAMES = {"float": "float32", "double": "float64", "int": "int64", "long": "int64"}   # what authors write too
INTEGER = ("int64", "int32")


class SpecError(ValueError):
    """A declaration the engine cannot read; the message is one sentence naming the exercise and the entry."""


@dataclass(frozen=True)
class Arg:
    name: str
    kind: str                        # tensor, mask, float, int, size
    dims: tuple[str, ...] = ()       # size names or digits (tensor, mask)
    leading: tuple[int, int] | None = None
    low: float | str = -3.0          # values (tensor: a number or a size's name) or range (float, int)
    high: float | str = 3.0
    dtype: str = "float32"
    size: str = ""                   # kind "size": the named size's value
    broadcast: bool = True           # a mask: each dim may also be 1 (probed so)


@dataclass(frozen=True)
class Mistake:
    id: str
    edit: str                        # a key of the repair stage's edits (repair/edits.py)
    at: str                          # the reference's code the edit changes
    says: str                        # the lesson's sentence a student reads
    to: str = ""                     # the code it becomes, where that edit has several (an axis)


@dataclass(frozen=True)
class Declaration:
    exercise: str
    sizes: dict
    apart: frozenset
    init: tuple[Arg, ...]
    args: tuple[Arg, ...]
    result: str
    points: float
    draws: int
    hint: str
    mistakes: tuple[Mistake, ...]
    derived: dict = field(default_factory=dict)   # {size: its factors}: "d_model": "h * d_head"


@dataclass(frozen=True)
class Probe:
    """One call: the constructor's arguments (a class), the forward's or function's, and what it probes."""
    init: tuple
    args: tuple
    label: str
    seed: int
    sizes: dict = field(default_factory=dict)


def read(exercise: str, text: str) -> Declaration:
    """The declaration of a spec cell's text, checked; SpecError names what is wrong (never another error)."""
    try:
        return _read(exercise, text)
    except SpecError:
        raise
    except Exception as error:  # noqa: BLE001 - a shape no check below foresaw: still one sentence, no traceback
        raise SpecError(f"the spec of {exercise}: an entry has a form the kit cannot read ({type(error).__name__}: "
                        f"{' '.join(str(error).split())}); compare it with docs/authoring.md, \"Declaring a spec\"") from None


def _read(exercise: str, text: str) -> Declaration:
    def wrong(what: str) -> SpecError:
        return SpecError(f"the spec of {exercise}: {what}")
    try:
        raw = ast.literal_eval(text.strip())
    except (ValueError, SyntaxError) as error:
        raise wrong(f"is not one Python dict literal ({error})") from None
    if not isinstance(raw, dict) or set(raw) - KEYS:
        raise wrong(f"must be a dict with keys among {sorted(KEYS)}, got {sorted(raw) if isinstance(raw, dict) else raw!r}")
    sizes, derived = {}, {}
    for name, bounds in (raw.get("sizes") or {}).items():
        if isinstance(bounds, str):
            derived[name] = tuple(word.strip() for word in bounds.split("*"))
            continue
        if not (isinstance(bounds, (list, tuple)) and len(bounds) == 2 and all(type(b) is int for b in bounds)
                and 1 <= bounds[0] <= bounds[1]):
            raise wrong(f"size {name!r} needs [lowest, highest] whole numbers from 1 up, got {bounds!r}")
        sizes[name] = (bounds[0], bounds[1])
    for name, factors in derived.items():
        if not all(f in sizes or f.isdigit() for f in factors):
            raise wrong(f"size {name!r} is [lowest, highest] or a product of sizes with a range and whole numbers "
                        f"such as 'h * d_head', got {' * '.join(factors)!r}")
    for pair in raw.get("apart") or []:
        if not (isinstance(pair, (list, tuple)) and len(set(map(str, pair))) == 2 and set(pair) <= set(sizes)):
            raise wrong(f"`apart` lists pairs of declared sizes with a range, such as [\"T_q\", \"T_k\"], got {pair!r}")
    apart = frozenset(frozenset(pair) for pair in raw.get("apart") or [])
    named = {**sizes, **{name: _product_range(factors, sizes) for name, factors in derived.items()}}
    args = tuple(_arg(wrong, name, value, named) for name, value in (raw.get("args") or {}).items())
    init = tuple(_arg(wrong, name, value, named) for name, value in (raw.get("init") or {}).items())
    if not args:
        raise wrong("declares no `args`")
    result = raw.get("result", "values")
    if result not in RESULTS:
        raise wrong(f"`result` is one of {list(RESULTS)}, got {result!r}")
    points, draws = raw.get("points", 1), raw.get("draws", 6)
    if not isinstance(points, (int, float)) or points < 0 or type(draws) is not int or not 0 <= draws <= 50:
        raise wrong("`points` is a number of 0 or more and `draws` a whole number from 0 to 50")
    mistakes = []
    for mistake_id, value in (raw.get("mistakes") or {}).items():
        if not (isinstance(value, dict) and {"edit", "at", "says"} <= set(value)
                and all(isinstance(value[k], str) and value[k].strip() for k in ("edit", "at", "says"))):
            raise wrong(f"mistake {mistake_id!r} needs `edit`, `at` and `says` (texts)")
        if not MISTAKE_ID.fullmatch(str(mistake_id)):
            raise wrong(f"mistake id {mistake_id!r} must be lower-case words joined by hyphens")
        mistakes.append(Mistake(mistake_id, value["edit"], value["at"], value["says"].strip(), str(value.get("to", ""))))
    return Declaration(exercise, sizes, apart, init, args, result, float(points), draws, str(raw.get("hint", "")),
                       tuple(mistakes), derived)


def _arg(wrong, name: str, value: object, sizes: dict) -> Arg:
    if not isinstance(value, dict):
        raise wrong(f"argument {name!r} is a dict such as {{'shape': 'B T d'}} or {{'float': [0.5, 2.0]}}")
    if "size" in value:
        if value["size"] not in sizes:
            raise wrong(f"argument {name!r} names size {value['size']!r}, which `sizes` does not declare")
        return Arg(name, "size", size=value["size"])
    for kind in ("float", "int"):
        if kind in value:
            bounds = value[kind]
            if not (isinstance(bounds, (list, tuple)) and len(bounds) == 2 and all(_number(b) for b in bounds)
                    and bounds[0] <= bounds[1]):
                raise wrong(f"argument {name!r}: `{kind}` needs [lowest, highest] numbers, got {bounds!r}")
            return Arg(name, kind, low=bounds[0], high=bounds[1])
    shape = value.get("shape") or value.get("mask")
    if not isinstance(shape, str):
        raise wrong(f"argument {name!r} needs `shape` (or `mask`, `float`, `int`, `size`)")
    words = shape.split()
    leading = None
    if words and words[0] == "...":
        bounds = value.get("leading", [1, 2])
        if not (isinstance(bounds, (list, tuple)) and len(bounds) == 2 and all(type(b) is int for b in bounds)
                and 0 <= bounds[0] <= bounds[1] <= 4):
            raise wrong(f"argument {name!r}: `leading` is [fewest, most] leading dims, at most 4")
        leading, words = (bounds[0], bounds[1]), words[1:]
    for word in words:
        if word not in sizes and not word.isdigit():
            raise wrong(f"argument {name!r}: {word!r} in its shape is neither a declared size nor a number")
    if "mask" in value:
        broadcast = value.get("broadcast", True)
        if type(broadcast) is not bool:
            raise wrong(f"argument {name!r}: `broadcast` is true (each dim may also be 1, the default) or false "
                        f"(exactly its shape), got {broadcast!r}")
        return Arg(name, "mask", tuple(words), leading, dtype="bool", broadcast=broadcast)
    dtype = value.get("dtype", "float32")
    dtype = DTYPE_NAMES.get(dtype, dtype) if isinstance(dtype, str) else dtype
    if dtype not in DTYPES:
        raise wrong(f"argument {name!r}: `dtype` is one of {list(DTYPES)} (an integer tensor is int64 or int32), "
                    f"got {value.get('dtype')!r}")
    default = [0, 1] if dtype == "bool" else [-3.0, 3.0]
    bounds = value.get("values", default)
    if not (isinstance(bounds, (list, tuple)) and len(bounds) == 2
            and all(_number(b) or (isinstance(b, str) and b in sizes) for b in bounds)):
        raise wrong(f"argument {name!r}: `values` is [lowest, highest], each a number or a declared size's name "
                    f"(such as [1, \"T_k\"]), got {bounds!r}")
    if dtype in INTEGER and not all(isinstance(b, str) or float(b).is_integer() for b in bounds):
        raise wrong(f"argument {name!r}: an {dtype} tensor's `values` are whole numbers or sizes, got {bounds!r}")
    low, high = (_range(b, sizes) for b in bounds)
    if not (low[1] <= high[0] if dtype in INTEGER else low[1] < high[0]):
        raise wrong(f"argument {name!r}: `values` is [lowest, highest] with the lowest "
                    f"{'at most' if dtype in INTEGER else 'below'} the highest at every size in range, got {list(bounds)!r}")
    kept = tuple(b if isinstance(b, str) else (int(b) if dtype in INTEGER else float(b)) for b in bounds)
    return Arg(name, "tensor", tuple(words), leading, kept[0], kept[1], dtype)


def _number(value: object) -> bool:
    return type(value) in (int, float)


def _product_range(factors: tuple, sizes: dict) -> tuple[int, int]:
    low = high = 1
    for factor in factors:
        low *= int(factor) if factor.isdigit() else sizes[factor][0]
        high *= int(factor) if factor.isdigit() else sizes[factor][1]
    return low, high


def _range(bound, sizes: dict) -> tuple[float, float]:
    """The lowest and highest a value bound can be: a number, or a named size over its range."""
    return tuple(sizes[bound]) if isinstance(bound, str) else (bound, bound)


def bound_of(bound, sizes: dict) -> float:
    """A value bound on one probe: a number, or the named size's value there."""
    return sizes[bound] if isinstance(bound, str) else bound


def shown(bound) -> str:
    return bound if isinstance(bound, str) else f"{bound:g}"


# --- the probes -------------------------------------------------------------------------------------------------

def _seed(exercise: str, group: str, number: int) -> int:
    return probe_seed(zlib.crc32(f"{exercise}/{group}".encode()) % 1_000_000 + 1000 * number)


def base_sizes(spec: Declaration) -> dict:
    """Every size near the middle of its range, all different where the ranges allow (a swap of two is seen)."""
    chosen: dict = {}
    for name, (low, high) in sorted(spec.sizes.items(), key=lambda item: item[1][1] - item[1][0]):  # narrowest first
        middle = (low + high + 1) // 2
        options = sorted(range(low, high + 1), key=lambda v: (abs(v - middle), v))
        chosen[name] = next((v for v in options if v not in chosen.values()), middle)
    return {name: chosen[name] for name in spec.sizes}


def _respects_apart(spec: Declaration, sizes: dict) -> bool:
    return all(sizes[a] != sizes[b] for a, b in (tuple(pair) for pair in spec.apart))


def _settle(spec: Declaration, sizes: dict, fixed: set) -> dict | None:
    """`sizes` with the sizes not in `fixed` moved, where needed, so that no `apart` pair coincides."""
    sizes = dict(sizes)
    for name in spec.sizes:
        if name in fixed:
            continue
        low, high = spec.sizes[name]
        for value in [sizes[name], *range(low, high + 1)]:
            sizes[name] = value
            if all(sizes[a] != sizes[b] for a, b in (tuple(p) for p in spec.apart) if name in (a, b)):
                break
    return sizes if _respects_apart(spec, sizes) else None


def edges(spec: Declaration) -> list[Probe]:
    """The deterministic edge probes, each labelled with what it probes."""
    base = base_sizes(spec)
    plans: list[tuple[str, dict, dict]] = [("sizes near the middle of their ranges", base, {})]
    for name, (low, high) in spec.sizes.items():
        for value, which in ((low, "lower"), (high, "upper")):
            plans.append((f"{name} = {value}, its {which} bound", {**base, name: value}, {"fixed": {name}}))
    for a, b in itertools.combinations(spec.sizes, 2):
        low, high = max(spec.sizes[a][0], spec.sizes[b][0]), min(spec.sizes[a][1], spec.sizes[b][1])
        if frozenset((a, b)) not in spec.apart and low <= high:
            value = (low + high) // 2
            plans.append((f"{a} = {b} = {value}", {**base, a: value, b: value}, {"fixed": {a, b}}))
    for arg in spec.args:
        if arg.leading:
            for count in range(arg.leading[0], arg.leading[1] + 1):
                plans.append((f"{arg.name} with {count} leading dim{'s' * (count != 1)}", base, {"ranks": {arg.name: count}}))
        if arg.kind in ("float", "int"):
            for value, which in ((arg.low, "lower"), (arg.high, "upper")):
                plans.append((f"{arg.name} = {value:g}, its {which} bound", base, {"scalars": {arg.name: value}}))
        if arg.kind == "tensor":
            plans.append((f"{arg.name} reaching {shown(arg.low)} and {shown(arg.high)}", base, {"extremes": {arg.name}}))
        if arg.kind == "mask" and arg.broadcast:
            for position, dim in enumerate(arg.dims):
                plans.append((f"{arg.name} of size 1 in dim {position + 1} ({dim}), broadcast", base, {"ones": {(arg.name, position)}}))
        if arg.kind == "mask":
            plans.append((f"{arg.name} allowing every key", base, {"full": {arg.name}}))
    probes, seen = [], set()
    for number, (label, sizes, how) in enumerate(plans):
        sizes = _settle(spec, sizes, how.get("fixed", set()))
        if sizes is None:
            continue
        probe = build(spec, sizes, how, _seed(spec.exercise, "edges", number), label)
        key = repr((probe.init, [(a.shape, a.dtype) if isinstance(a, torch.Tensor) else a for a in probe.args],
                    sorted(how.get("extremes", ())), sorted(how.get("full", ()))))
        if key not in seen:   # an edge equal to another in every size and setting adds nothing
            seen.add(key)
            probes.append(probe)
    return probes


def draws(spec: Declaration) -> list[Probe]:
    """`spec.draws` seeded draws from the whole space, the sizes different from each other where they can be."""
    probes = []
    for number in range(spec.draws):
        seed = _seed(spec.exercise, "draws", number)
        generator = torch.Generator().manual_seed(seed)

        def pick(low, high):
            return int(torch.randint(int(low), int(high) + 1, (1,), generator=generator))
        sizes = None
        for _ in range(30):
            sizes = {name: pick(*bounds) for name, bounds in spec.sizes.items()}
            if len(set(sizes.values())) == len(sizes):
                break
        sizes = _settle(spec, sizes, set()) or base_sizes(spec)
        ranks = {a.name: pick(*a.leading) for a in spec.args if a.leading}
        scalars = {a.name: (pick(a.low, a.high) if a.kind == "int"
                            else a.low + (a.high - a.low) * float(torch.rand((), generator=generator, dtype=torch.float64)))
                   for a in spec.args if a.kind in ("float", "int")}
        probes.append(build(spec, sizes, {"ranks": ranks, "scalars": scalars}, seed, f"seeded draw {number + 1}"))
    return probes


def with_derived(spec: Declaration, sizes: dict) -> dict:
    """`sizes` with each derived size, the product of its factors."""
    sizes = dict(sizes)
    for name, factors in spec.derived.items():
        product = 1
        for factor in factors:
            product *= int(factor) if factor.isdigit() else sizes[factor]
        sizes[name] = product
    return sizes


def build(spec: Declaration, sizes: dict, how: dict, seed: int, label: str) -> Probe:
    """The probe's values: tensors drawn from `seed` in their declared range, scalars at their middle unless set."""
    sizes = with_derived(spec, sizes)
    generator = torch.Generator().manual_seed(seed)
    leading_sizes = [int(n) for n in torch.randint(1, 4, (4,), generator=generator)]

    def value(arg: Arg):
        if arg.kind == "size":
            return sizes[arg.size]
        if arg.kind in ("float", "int"):
            chosen = how.get("scalars", {}).get(arg.name)
            if chosen is None:
                chosen = (arg.low + arg.high) / 2
            return int(round(chosen)) if arg.kind == "int" else float(chosen)
        count = (how.get("ranks", {}).get(arg.name, arg.leading[0])) if arg.leading else 0
        shape = leading_sizes[:count] + [int(w) if w.isdigit() else sizes[w] for w in arg.dims]
        for name, position in how.get("ones", ()):
            if name == arg.name:
                shape[count + position] = 1
        if arg.kind == "mask":
            allowed = torch.rand(shape, generator=generator) < 0.6
            if shape:
                first = torch.randint(0, shape[-1], shape[:-1] + [1], generator=generator)
                allowed.scatter_(-1, first, True)   # every row keeps an allowed key
            return torch.ones(shape, dtype=torch.bool) if arg.name in how.get("full", ()) else allowed
        low, high = bound_of(arg.low, sizes), bound_of(arg.high, sizes)
        if arg.dtype == "bool":
            drawn = torch.rand(shape, generator=generator) < 0.5
        elif arg.dtype in INTEGER:
            drawn = torch.randint(int(low), int(high) + 1, shape, generator=generator, dtype=torch.int64)
        else:
            drawn = torch.rand(shape, generator=generator, dtype=torch.float64) * (high - low) + low
        if arg.name in how.get("extremes", ()) and drawn.numel():
            flat = drawn.view(-1)
            flat[0], flat[-1] = low, high
        return drawn.to(getattr(torch, arg.dtype))
    return Probe(tuple(value(a) for a in spec.init), tuple(value(a) for a in spec.args), label, seed, dict(sizes))


def expectations(spec: Declaration) -> str:
    """The handout's sentence on what the grader expects where the lesson is silent, from the declaration."""
    def described(arg: Arg) -> str:
        if arg.kind == "size":
            return f"`{arg.name}` is the size {arg.size} (a Python int)"
        if arg.kind in ("float", "int"):
            if arg.low == arg.high:
                return f"`{arg.name}` is the Python {arg.kind} {arg.low:g}"
            return f"`{arg.name}` is a Python {arg.kind} from {arg.low:g} to {arg.high:g}"
        dims = ", ".join(arg.dims)
        lead = ""
        if arg.leading:
            lead = f"with {arg.leading[0]} to {arg.leading[1]} leading dims, "
            dims = "..., " + dims
        if arg.kind == "mask":
            shapes = ("any dim of size 1 broadcast (graded in each such shape too)" if arg.broadcast
                      else "always exactly this shape")
            return (f"`{arg.name}` is a bool mask of shape ({dims}), {lead}True for an allowed key, {shapes}, "
                    "at least one allowed key in each row")
        if arg.dtype == "bool":
            return f"`{arg.name}` is a bool tensor of shape ({dims}), {lead}True or False"
        return (f"`{arg.name}` is {arg.dtype} of shape ({dims}), {lead}"
                f"{'whole numbers' if arg.dtype in INTEGER else 'values'} from {shown(arg.low)} to {shown(arg.high)}")
    parts = [described(a) for a in spec.args]
    if spec.init:
        parts.insert(0, f"the layer is built as {spec.exercise}({', '.join(a.name for a in spec.init)}), where "
                        + ", ".join(described(a) for a in spec.init))
    sizes = ", ".join([*(f"{n} = {lo}" if lo == hi else f"{n} from {lo} to {hi}" for n, (lo, hi) in spec.sizes.items()),
                       *(f"{n} = {' * '.join(f)}" for n, f in spec.derived.items())])
    apart = "; ".join(f"{a} and {b} never equal" for a, b in (sorted(p) for p in spec.apart))
    text = f"{'; '.join(parts)}; sizes: {sizes}" + (f" ({apart})" if apart else "")
    text += (", any two of them may be equal" + (" unless said otherwise" if apart else "") if len(spec.sizes) > 1 else "")
    result = ("compared with the reference to float32 rounding" if spec.result == "values"
              else "compared exactly with the reference")
    return f"{text}. The result is {result}."
