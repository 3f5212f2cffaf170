"""The documented input space of the exercises and the hidden probes drawn from it (the hypothesis strategies
that describe it are in space_strategies.py).

What the handouts promise is a range, not a list of points: any B, T_q, T_k, d (B = 1, T = 1, T_q != T_k, and
coincidences such as T_q = B or T_k = d included); a mask that is bool or 0/1 of any dtype (int or float), of any
shape that broadcasts to the scores, contiguous, expanded or not contiguous, each row keeping at least one
allowed key (fully masked rows are out of scope, as the handouts say); allowed scores anywhere in |s| <= 1e4.

Scores are drawn row by row: a probe's rows sit at different depths inside ONE tensor (some rows or batch
items near -9000, others near 0 or far above it, masked entries in rows of every kind), or all at one depth
from -20 to -9000. No statistic of the whole tensor (min, max, mean, spread) nor the mask's dtype, shape or
layout then tells a probe from an ordinary call: code that fills masked keys with a small number unless it
recognises a probe still leaks weight on one of them (tests/probe_detecting_cheats.py).

A probe is drawn as plain numbers (sizes, seeds, choices) and built into tensors here, so the same draw gives the
same tensors in the grader and in the child. Draws are made once per process with a fixed hypothesis seed
(generation only: no shrinking, no example database), so a regrade sees exactly the same probes; the seed goes
through probe_seed, so the seed sweep (ATTNKIT_SEED_SHIFT) moves them with every other probe.

The probes every grader draws are the same for every student, so `make assignments` draws them once and stores
them beside the graders (graders/probes.json, GRADER_DRAWS). A stored draw is used only while its fingerprint
(the text of this module and of space_strategies.py, and hypothesis's version) is unchanged and its hypothesis
seed is the one asked for (a seed shift asks for others); anything else is drawn here and now, as before. Grading
then neither imports hypothesis nor spends time drawing.
"""
from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import torch

from .student import probe_seed

SCORE_LIMIT = 1e4                       # the handouts' range of allowed scores
# The largest sizes the graders use, as the handouts state them: batch items, queries and keys, features, and the
# rank of softmax_entropy's weights (..., T_k). Each is reached by the edge cases below.
MAX_B, MAX_T, MAX_D, MAX_RANK = 4, 64, 64, 5
MASK_DTYPES = ("bool", "int64", "float32", "float64")
MASK_FORMS = ("B,T_q,T_k", "T_q,T_k", "B,1,T_k", "1,T_q,T_k", "T_k", "1,1,T_k")
LAYOUTS = ("contiguous", "expanded", "strided")
DEPTHS = (0.0, -20.0, -50.0, -120.0, -300.0, -1000.0, -3000.0, -9000.0)  # how far rows sit below zero
SPREADS = (1.0, 30.0, 300.0)             # score spreads: from ordinary to nearly one-hot rows
# How the rows of one probe share its depth D: all of them; each row at D or 0; each batch item at D or 0;
# one row at D, the others at 0; each row at D or -D (so that the mean stays near 0).
PROFILES = ("uniform", "rows", "batches", "single", "balanced")
# Probes every run includes (besides the drawn ones): each profile at depths where a fill of -120 or -1000
# leaks, so that every whole-tensor statistic looks ordinary on one of them while a row still leaks.
# The first comes first in its test, where it is the call made with gradients: deep enough for a -1000 fill.
COVERING_DEPTHS = (("single", -9000.0, 1.0), ("uniform", -50.0, 1.0), ("uniform", -300.0, 1.0),
                   ("uniform", -3000.0, 30.0), ("rows", -9000.0, 30.0), ("batches", -1000.0, 1.0),
                   ("balanced", -3000.0, 1.0), ("balanced", -120.0, 1.0))


@dataclass(frozen=True)
class MaskProbe:
    """One drawn point of the mask space (plain numbers; `build` makes the tensors)."""
    B: int
    T_q: int
    T_k: int
    form: str
    dtype: str
    layout: str
    pattern_seed: int
    score_seed: int
    spread: float
    depth: float
    profile: str = "uniform"
    masked: float | None = None   # the score every masked entry gets (else drawn as the allowed ones are)

    def shape(self) -> tuple[int, ...]:
        sizes_ = {"B": self.B, "T_q": self.T_q, "T_k": self.T_k, "1": 1}
        return tuple(sizes_[part] for part in self.form.split(","))

    def build(self):
        """(scores (B, T_q, T_k) float32, mask as handed over (contiguous), allowed (B, T_q, T_k) bool)."""
        generator = torch.Generator().manual_seed(self.pattern_seed)
        pattern = torch.rand(self.shape(), generator=generator) > 0.4
        keep = torch.randint(self.T_k, pattern.shape[:-1] + (1,), generator=generator)
        if self.T_k > 1:  # every row forbids a key, so that every row can show a leak
            drop = (keep + 1 + torch.randint(self.T_k - 1, keep.shape, generator=generator)) % self.T_k
            pattern.scatter_(-1, drop, False)
        pattern.scatter_(-1, keep, True)  # every row keeps a key, whatever the mask's shape
        allowed = pattern.expand(self.B, self.T_q, self.T_k)
        generator = torch.Generator().manual_seed(self.score_seed)
        scores = torch.randn(self.B, self.T_q, self.T_k, generator=generator, dtype=torch.float64) * self.spread
        scores = (scores + self.row_depths().unsqueeze(-1)).clamp(-SCORE_LIMIT, SCORE_LIMIT)
        if self.masked is not None:
            scores = scores.masked_fill(~allowed, self.masked)
        return scores.float(), pattern.to(getattr(torch, self.dtype)), allowed

    def row_depths(self) -> torch.Tensor:
        """(B, T_q) float64: where each row's scores sit, by the profile (one row at least at the depth)."""
        generator = torch.Generator().manual_seed(self.score_seed + 1)
        B, T_q, D = self.B, self.T_q, self.depth
        if self.profile == "uniform":
            return torch.full((B, T_q), D, dtype=torch.float64)
        if self.profile == "batches":
            chosen = torch.rand(B, 1, generator=generator) < 0.5
            chosen[torch.randint(B, (1,), generator=generator)] = True
            return torch.where(chosen.expand(B, T_q), D, 0.0).double()
        chosen = torch.rand(B, T_q, generator=generator) < (0.0 if self.profile == "single" else 0.5)
        chosen.view(-1)[torch.randint(B * T_q, (1,), generator=generator)] = True
        other = -D if self.profile == "balanced" else 0.0
        return torch.where(chosen, D, other).double()

    def child_layout(self) -> str | None:
        """How the child hands the mask to the student (sandbox/child/inputs.py: laid_out)."""
        if self.layout == "expanded":
            return f"expanded:{self.B},{self.T_q},{self.T_k}"
        return "strided" if self.layout == "strided" else None

    def describe(self) -> str:
        where = {"uniform": f"around {self.depth:g}", "rows": f"around {self.depth:g} in some rows, 0 in the others",
                 "batches": f"around {self.depth:g} in some batch items, 0 in the others",
                 "single": f"around {self.depth:g} in one row, 0 in the others",
                 "balanced": f"around {self.depth:g} in some rows, {-self.depth:g} in the others"}[self.profile]
        masked = "" if self.masked is None else f", masked scores at {self.masked:g}"
        return (f"a {self.dtype} ({self.form}) mask, {self.layout}, B={self.B}, T_q={self.T_q}, T_k={self.T_k}, "
                f"allowed scores {where} (spread {self.spread:g}){masked}")


def mask_draws(count: int, seed: int, coincident: bool = True) -> tuple:
    """The covering probes first (COVERING_DEPTHS: every profile deep enough to leak, every mask dtype and
    layout), then `count` probes drawn from the whole mask space, then (unless the caller sends edge_masks,
    which hold them all) one per mask form with T_q = B > 1."""
    # the last of a few examples: hypothesis tends to start with the smallest sizes
    covering = tuple(draw_examples(f"covering:{n}", 4, seed + 101 + n)[-1] for n in range(len(COVERING_DEPTHS)))
    coincident = tuple(draw_examples(f"coincident:{form}", 1, seed + 1 + n)[0]
                       for n, form in enumerate(MASK_FORMS)) if coincident else ()
    return covering + draw_examples("masks", count, seed) + coincident


# Edges by construction: the extreme and coincident cases of the space, derived here, the same on every run (the
# seed sweep moves their contents, not their sizes). Sizes are named (B, T_q, T_k, d); every pair of them equal
# (the others kept apart), each at 1, B = 1 with T = 1, all equal, and each at its largest value.
def coincident_sizes(names: tuple[str, ...], distinct: tuple[int, ...], largest: tuple[int, ...]) -> tuple:
    """Size tuples over `names`: the `distinct` ones, every pair set equal, each at 1, the first two at 1, all
    equal, each at its largest and all at their largest, without repeats, in that order."""
    n = len(names)
    found: list[tuple[int, ...]] = [distinct]

    def with_(changes: dict) -> tuple[int, ...]:
        return tuple(changes.get(i, v) for i, v in enumerate(distinct))

    spare = min(set(range(2, 9)) - set(distinct))  # a value no other size has (4 here: within every bound)
    found += [with_({i: spare, j: spare}) for i in range(n) for j in range(i + 1, n)]
    found += [with_({i: 1}) for i in range(n)] + [with_({0: 1, 1: 1}), tuple([3] * n), tuple([1] * n)]
    found += [with_({i: largest[i]}) for i in range(n)] + [tuple(largest)]
    return tuple(dict.fromkeys(found))


EDGE_LAYOUTS = ("contiguous", "strided")
# At the largest sizes, where code written with loops takes longest, the mask forms that differ most: the whole
# (B, T_q, T_k) mask and the 1-D (T_k,) one.
LARGEST_FORMS = ("B,T_q,T_k", "T_k")


def edge_sizes() -> tuple:
    """(B, T_q, T_k, d) for the score functions and attention."""
    return coincident_sizes(("B", "T_q", "T_k", "d"), (2, 3, 5, 7), (MAX_B, MAX_T, MAX_T, MAX_D))


def edge_mask_sizes() -> tuple:
    """(B, T_q, T_k) where a mask's form matters: sizes apart, every pair equal, all equal, B = T_q = 1, T_k = 1 (one
    key), all 1, and all at their largest (a size alone at its largest is the score functions' edge)."""
    distinct, largest = (2, 3, 5), (MAX_B, MAX_T, MAX_T)
    alone = {tuple(value if j == i else n for j, n in enumerate(distinct)) for i in (0, 1) for value in (1, largest[i])}
    alone.add(tuple(largest[j] if j == 2 else n for j, n in enumerate(distinct)))
    return tuple(s for s in coincident_sizes(("B", "T_q", "T_k"), distinct, largest) if s not in alone)


def edge_masks(seed: int) -> tuple:
    """Every mask form at every coincidence and bound of (B, T_q, T_k) (a 1-D (T_k,) mask at T_q = T_k, a
    (T_q, T_k) mask at T_q = B ...), handed over in its own shape (contiguous or not: an expanded mask would hide
    its shape; the drawn probes expand theirs), dtypes in turn, each row with allowed scores at -1e4 (or, in
    every other probe, some rows at +1e4) and its masked scores at +1e4: both bounds of |score| <= 1e4 in one
    row. Largest: B = MAX_B, T_q = T_k = MAX_T (LARGEST_FORMS there)."""
    largest = (MAX_B, MAX_T, MAX_T)
    pairs = [(size, form) for size in edge_mask_sizes() for form in MASK_FORMS
             if size != largest or form in LARGEST_FORMS]
    probes = []
    for n, ((B, T_q, T_k), form) in enumerate(pairs):
        turn = n + n // len(MASK_FORMS)  # dtypes and layouts in turn, not in step with the forms
        probes.append(MaskProbe(B, T_q, T_k, form, MASK_DTYPES[turn % len(MASK_DTYPES)], EDGE_LAYOUTS[turn % 2],
                                probe_seed(seed + 2 * n), probe_seed(seed + 2 * n + 1), 1.0, -SCORE_LIMIT,
                                "balanced" if n % 2 else "uniform", SCORE_LIMIT))
    return tuple(probes)


def edge_T() -> tuple:
    """Sequence lengths for causal_mask(T): every T from 1 to MAX_T. A (T, T) mask is cheap, and any sample of
    lengths leaves room for code that is wrong only at the ones left out (a fresh cheat round found a mask
    wrong at nine primes between 11 and 61, which the ends of fixed buffers never reach)."""
    return tuple(range(1, MAX_T + 1))


def edge_ranks() -> tuple:
    """Shapes (..., T_k) of softmax_entropy's weights: every rank from 1 to MAX_RANK, with sizes that coincide
    (so a reduction over another axis keeps the right shape) and T_k up to MAX_T."""
    return ((5,), (1,), (MAX_T,), (3, 5), (5, 5), (1, 1), (2, 3, 5), (3, 3, 3), (2, 1, MAX_T), (2, 3, 4, 5),
            (4, 4, 4, 4), (1, 2, 1, 3), (2, 3, 2, 3, 4), (2, 2, 2, 2, 2))


def edge_lengths() -> tuple:
    """(lengths, T_k) for padding_mask: B = 1, T_k = 1, B = T_k, every length full or 1, T_k = MAX_T."""
    return (([1], 1), ([3], 5), ([2, 3, 1], 3), ([4, 4], 4), ([1, 1, 1, 1], 6), ([5, 2], 5),
            ([MAX_T, 1, 33, 17], MAX_T), ([7, 7], 7))


def draw_examples(name: str, count: int, seed: int) -> tuple:
    """`count` examples of the strategy called `name` (space_strategies.NAMED), the same ones on every run for
    one seed (moved by the seed sweep): from graders/probes.json when stored there for this very draw."""
    key = f"{name}/{count}/{probe_seed(seed)}"
    stored = _stored().get(key)
    if stored is not None:
        return tuple(MaskProbe(**e) if isinstance(e, dict) else tuple(e) for e in stored)
    from . import space_strategies  # noqa: PLC0415 - hypothesis is imported only for a draw not stored
    return space_strategies.drawn(name, count, probe_seed(seed))


# Every draw the hidden graders make with the seeds they use: (strategy, count, seed) of draw_examples, and
# ("mask_draws", count, seed) for the probe sets of mask_draws.
GRADER_DRAWS = (("sizes", 6, 2), ("sizes", 6, 4), ("mask_draws", 8, 40), ("mask_draws", 8, 41),
                ("mask_draws", 8, 42))
STORE = Path(__file__).resolve().parents[1] / "graders" / "probes.json"


def fingerprint() -> str:
    here = Path(__file__).resolve().parent
    text = "".join((here / name).read_text(encoding="utf-8") for name in ("space.py", "space_strategies.py"))
    return hashlib.sha256(f"{text}\nhypothesis {metadata.version('hypothesis')}".encode()).hexdigest()


@functools.lru_cache(maxsize=1)
def _stored() -> dict:
    try:
        table = json.loads(STORE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return table.get("draws", {}) if table.get("fingerprint") == fingerprint() else {}


def stored_draws_text() -> str:
    """graders/probes.json as `make assignments` writes it: every draw of GRADER_DRAWS, drawn now."""
    from . import space_strategies  # noqa: PLC0415

    wanted: list[tuple[str, int, int]] = []
    for name, count, seed in GRADER_DRAWS:
        if name == "mask_draws":
            wanted += [(f"covering:{n}", 4, seed + 101 + n) for n in range(len(COVERING_DEPTHS))]
            wanted += [(f"coincident:{form}", 1, seed + 1 + n) for n, form in enumerate(MASK_FORMS)]
            wanted.append(("masks", count, seed))
        else:
            wanted.append((name, count, seed))
    draws = {f"{name}/{count}/{seed}": [dataclasses.asdict(e) if isinstance(e, MaskProbe) else list(e)
                                         for e in space_strategies.drawn(name, count, seed)]
             for name, count, seed in wanted}
    return json.dumps({"fingerprint": fingerprint(), "draws": draws}, indent=1, sort_keys=True) + "\n"
