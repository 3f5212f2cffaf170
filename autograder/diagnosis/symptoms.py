"""What exactly is wrong with a result, when no mistake model explains it: facts only, no cause.

"rows 2 and 3 of batch item 0 sum to 0.6 and 0.75", "forbidden key 4 gets weight up to 0.31 in 5 rows",
"shape (3, 7, 5) where (3, 5, 7) was expected", "every entry is 0.5 times the expected value".
"""
from __future__ import annotations

import torch

from .compare import ATOL, RTOL, SCALE_ATOL

LISTED = 4  # rows, keys or items named one by one before "and N more"


def describe(got: object, want: torch.Tensor, what: str, *, allowed: torch.Tensor | None = None,
             weights: bool = False, rtol: float = RTOL, atol: float | None = None) -> str:
    """One sentence (or a few) on how `got` differs from the expected `want`. `allowed` (broadcastable to
    `want`) marks the keys a mask allows; `weights` says rows should sum to 1 over the last dim."""
    if not isinstance(got, torch.Tensor):
        return f"{what} returned {type(got).__name__}, where a tensor of shape {tuple(want.shape)} was expected."
    if tuple(got.shape) != tuple(want.shape):
        return f"{what} has shape {tuple(got.shape)} where {tuple(want.shape)} was expected.{rearranged(got, want)}"
    if (got.dtype == torch.bool) != (want.dtype == torch.bool):
        kind = "a bool tensor" if want.dtype == torch.bool else "floating-point numbers"
        same = " Its values are right." if torch.equal(got.double(), want.double()) else ""
        return f"{what} has dtype {got.dtype} where {kind} was expected.{same}"
    mine, theirs = got.detach().double(), want.detach().double()
    tolerance = (SCALE_ATOL * theirs[theirs.isfinite()].abs().max().item() if theirs.isfinite().any() else 0.0) \
        if atol is None else atol
    facts = [f for f in (not_finite(mine, theirs), masked_leaks(mine, allowed), row_sums(mine) if weights else "")
             if f]
    if not facts:
        facts = [scaled(mine, theirs, rtol, ATOL + tolerance) or where_wrong(mine, theirs, rtol, ATOL + tolerance)]
    return f"{what}: " + " ".join(facts)


def rows_named(indices: list[tuple[int, ...]]) -> str:
    """Rows (all indices but the last), grouped by batch item: "rows 2 and 3 of batch item 0"."""
    if not indices or len(indices[0]) != 2:
        return listing([f"row {i[0]}" if len(i) == 1 else f"row {list(i)}" for i in indices], "rows")
    groups: dict[int, list[str]] = {}
    for item, row in indices:
        groups.setdefault(item, []).append(str(row))
    return listing([f"{'rows' if len(rows) > 1 else 'row'} {listing(rows)} of batch item {item}"
                    for item, rows in groups.items()], "batch items")


def listing(items: list[str], unit: str = "") -> str:
    """ "a, b and c"; past LISTED items "a, b, c, d and 3 more (unit)"."""
    if len(items) > LISTED:
        return ", ".join(items[:LISTED]) + f" and {len(items) - LISTED} more" + (f" {unit}" if unit else "")
    return ", ".join(items[:-1]) + (" and " if len(items) > 1 else "") + items[-1]


def rearranged(got: torch.Tensor, want: torch.Tensor) -> str:
    if got.dim() >= 2 and tuple(got.transpose(-2, -1).shape) == tuple(want.shape):
        if torch.allclose(got.transpose(-2, -1).double(), want.double(), rtol=RTOL, atol=1e-4, equal_nan=True):
            return " Its values are the expected ones with the last two axes swapped."
    if got.numel() == want.numel() and sorted(got.shape) != sorted(want.shape):
        return f" It has {got.numel()} entries, as expected, arranged differently."
    return ""


def number(value: float, scale: float = 1.0) -> str:
    """A value as a student reads it: signed infinities, NaN, and nothing finer than the question's scale
    (a weight of 2.7e-34 is "0.0000 but not 0", not 2.655e-34)."""
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "inf" if value > 0 else "-inf"
    if value != 0 and abs(value) < 1e-4 * max(scale, 1e-12):
        return f"{'-' if value < 0 else ''}nearly 0 (but not 0)"
    return f"{value:.3g}"


def kinds(values: torch.Tensor) -> str:
    """ "NaN", "-inf", "NaN or inf": the non-finite values present, signs kept."""
    present = [name for name, hit in (("NaN", values.isnan()), ("inf", values == float("inf")),
                                      ("-inf", values == float("-inf"))) if bool(hit.any())]
    return " or ".join(present)


def not_finite(mine: torch.Tensor, theirs: torch.Tensor) -> str:
    bad = ~mine.isfinite() & theirs.isfinite()
    if not bad.any():
        return ""
    where = f", in {rows_named([tuple(i) for i in bad.any(-1).nonzero().tolist()])}" if bad.dim() >= 2 else ""
    count = int(bad.sum())
    return (f"{count} {'entry is' if count == 1 else 'entries are'} {kinds(mine[bad])} where the expected values "
            f"are finite{where}.")


def masked_leaks(mine: torch.Tensor, allowed: torch.Tensor | None, limit: float = 1e-6) -> str:
    if allowed is None:
        return ""
    forbidden = mine.masked_fill(allowed.bool().expand_as(mine), 0)
    leaked = (forbidden.abs() > limit) | forbidden.isnan()
    if not leaked.any():
        return ""
    keys = []
    for key in leaked.reshape(-1, mine.shape[-1]).any(0).nonzero().flatten().tolist():
        column = leaked[..., key]
        values = mine[..., key][column]
        finite = values[values.isfinite()]
        if finite.numel() == values.numel():
            worst = finite[finite.abs().argmax()].item()
            weight = f"weight up to {number(worst)}" if worst > 0 else f"weight {number(worst)}"
        else:
            weight = f"weight {kinds(values)}"
        rows = int(column.sum())
        keys.append(f"forbidden key {key} gets {weight} in {rows} row{'s' if rows > 1 else ''}")
    rule = "exactly 0" if limit == 0 else f"at most {limit:g}"
    return listing(keys) + f" (a masked key must get weight {rule})."


def row_sums(mine: torch.Tensor, atol: float = 1e-5) -> str:
    sums = mine.sum(-1)
    off = ~((sums - 1).abs() <= atol)  # NaN sums are off too
    if not off.any():
        return ""
    indices = [tuple(i) for i in off.nonzero().tolist()]
    values = listing([number(sums[i].item()) for i in indices])
    if len(indices) == 1:
        return f"the weights of {rows_named(indices)} sum to {values} over the keys, not 1."
    return f"the weights of {len(indices)} rows do not sum to 1 over the keys: {rows_named(indices)} sum to {values}."


def scaled(mine: torch.Tensor, theirs: torch.Tensor, rtol: float, atol: float) -> str:
    big = theirs.abs() > max(atol * 10, 1e-6)
    if not big.any() or not (mine.isfinite() & theirs.isfinite()).all():
        return ""
    factor = (mine[big] / theirs[big]).median().item()
    if abs(factor - 1) < 1e-3 or not torch.allclose(mine, theirs * factor, rtol=rtol, atol=atol):
        return ""
    if factor != 0 and abs(factor) < 1:
        inverse = 1 / factor
        shown = f"{round(inverse):d}" if abs(inverse - round(inverse)) < 1e-3 * abs(inverse) else f"{inverse:.4g}"
        return f"every entry is 1/{shown} of the expected value ({factor:.4g} times it)."
    return f"every entry is {factor:.4g} times the expected value."


def where_wrong(mine: torch.Tensor, theirs: torch.Tensor, rtol: float, atol: float) -> str:
    difference = (mine - theirs).abs().nan_to_num(float("inf"))
    wrong = difference > atol + rtol * theirs.abs()
    worst = tuple(int(i) for i in torch.unravel_index(difference.argmax(), difference.shape))
    scale = theirs[theirs.isfinite()].abs().max().item() if theirs.isfinite().any() else 1.0
    largest = (f"the largest difference is {number(difference[worst].item(), scale)} at {list(worst)} "
               f"(yours {number(mine[worst].item(), scale)}, expected {number(theirs[worst].item(), scale)}).")
    if not wrong.any():  # the verdict's rule is not this per-entry bound: a count of 0 would be a false sentence
        return largest[0].upper() + largest[1:]
    text = f"{int(wrong.sum())} of {wrong.numel()} entries differ from the expected values; {largest}"
    if mine.dim() >= 3 and mine.shape[0] > 1:
        items = wrong.reshape(mine.shape[0], -1).any(-1)
        if not items.all():
            right = [str(i) for i in (~items).nonzero().flatten().tolist()]
            several = len(right) > 1
            text += f" Batch item{'s' if several else ''} {listing(right)} {'are' if several else 'is'} right."
    return text


def fault(kind: type, message: str, detail: str) -> Exception:
    """A failure whose message is for the student and whose `detail` (tolerances, rounding bounds) is for the
    instructor's view only (TestResult.grader_detail)."""
    raised = kind(message.strip())
    raised.detail = detail
    return raised
