"""The bounded search of the mistake space (stages.py): which combination of up to MAX_DEVIATIONS stage variants
reproduces every call the graders made to one target?

An explanation must reproduce each judged call of the target: the same output (compare.agree) where the code
returned, an exception where it raised. The simplest explanations win (fewest distinct mistakes, then fewest
fitted values), and a mistake is named only when every simplest explanation contains it: where two
explanations that differ fit all the evidence, the one they do not share is not named. A fitted scale must
also follow one law over every call (the same divisor, or the same power of d_k), else it explains nothing.
Runs in the trusted process, only for targets whose failure no single-mistake model explains; results are
cached by the number of calls seen.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import torch

from .compare import agree
from .pipeline import NotApplicable
from .stages import FITTED, Pipeline, Variant, pipeline_for

MAX_DEVIATIONS = 2
THREE_BUDGET = 400     # combinations of three deviations searched at most (the entropy's, the masks')
WEIGHT_FLOOR = 1e-30


@dataclass(frozen=True)
class Call:
    probe: object        # float64 probe
    output: object       # the student's result (canonical), None if it raised
    raised: bool
    deviates: bool


@dataclass(frozen=True)
class Explanation:
    variants: tuple[Variant, ...]
    factors: tuple[tuple[int, float], ...]   # (d_k, fitted factor) per call, for a fitted scale

    @property
    def mistakes(self) -> frozenset[str]:
        return frozenset(v.mistake for v in self.variants)

    @property
    def rank(self) -> tuple[int, int]:
        return len(self.mistakes), sum(v.fitted for v in self.variants)


def combinations(pipeline: Pipeline, size: int):
    for stages in itertools.combinations(pipeline.stages, size):
        yield from itertools.product(*(pipeline.stages[s] for s in stages))


def merged(chosen: tuple[Variant, ...]) -> dict | None:
    kwargs: dict = {}
    for variant in chosen:
        for key, value in variant.kwargs.items():
            if key in kwargs and kwargs[key] != value:
                return None  # two variants that set one thing two ways
            kwargs[key] = value
    return kwargs


def weights_in(output: object, kwargs: dict) -> torch.Tensor | None:
    if isinstance(output, (list, tuple)) and len(output) == 2:
        output = output[0] if kwargs.get("order") == "returns-weights-first" else output[1]
    return output.double() if isinstance(output, torch.Tensor) and output.is_floating_point() else None


def fit_factor(pipeline: Pipeline, call: Call, kwargs: dict) -> float | None:
    """The scale c with which this call's raw scores give the student's output: the output itself for a
    score function, else from the weights: log w_ij - log w_ia = c (s_ij - s_ia) within a row."""
    if pipeline.raw_scores is None or call.raised:
        return None
    raw = pipeline.raw_scores(call.probe, **kwargs).double()
    got = weights_in(call.output, kwargs)
    if got is None or got.shape != raw.shape:
        return None
    if pipeline.target in ("dot_scores", "scaled_dot_scores"):
        usable = raw.abs() > 1e-3
        return (got[usable] / raw[usable]).median().item() if usable.any() else None
    usable = (got > WEIGHT_FLOOR) & got.isfinite()
    anchor_weight, anchor = got.masked_fill(~usable, -1.0).max(dim=-1, keepdim=True)
    spread = raw - raw.gather(-1, anchor)
    usable &= (anchor_weight > WEIGHT_FLOOR) & (spread.abs() > 1e-3)
    if not usable.any():
        return None
    ratios = (got.clamp_min(WEIGHT_FLOOR).log() - anchor_weight.clamp_min(WEIGHT_FLOOR).log()) / spread
    return ratios[usable].median().item()


def d_k_of(call: Call) -> int:
    probe = call.probe
    if probe.target == "SingleHeadAttention" and probe.params:
        return int(probe.params["W_Q.weight"].shape[0])
    return int(probe.args[1].shape[-1])


def right_factor(pipeline: Pipeline, d_k: int, factor: float) -> bool:
    """Is a fitted factor the lesson's own (1/sqrt(d_k); 1 for the plain dot product)? Then it is no deviation."""
    right = 1.0 if pipeline.target == "dot_scores" else 1 / math.sqrt(d_k)
    return math.isclose(factor, right, rel_tol=1e-5)


def lawful(factors: list[tuple[int, float]]) -> bool:
    """One divisor for every call, or one power of d_k: a scale that changes for no reason explains nothing."""
    divisors = [(d, 1 / c) for d, c in factors if c > 0]
    if len(divisors) != len(factors) or not divisors:
        return False
    first_d, first = divisors[0]
    if all(math.isclose(v, first, rel_tol=1e-4) for _, v in divisors):
        return True
    if any(d <= 1 for d, _ in divisors):
        return False
    power = math.log(first) / math.log(first_d)
    return all(math.isclose(v, d ** power, rel_tol=1e-4) for d, v in divisors)


def explains(pipeline: Pipeline, chosen: tuple[Variant, ...], calls: list[Call],
             exact_zeros: bool) -> Explanation | None:
    kwargs = merged(chosen)
    if kwargs is None:
        return None
    fitted = FITTED in kwargs.values()
    factors, shown = [], False
    for call in calls:
        own = dict(kwargs)
        try:
            if fitted and call.raised:
                own["factor"] = factors[0][1] if factors else 1.0  # whether it raises does not hang on the factor
            elif fitted:
                factor = fit_factor(pipeline, call, kwargs)
                if factor is None:
                    raise NotApplicable("no factor to fit")
                own["factor"] = factor
                factors.append((d_k_of(call), factor))
            predicted = pipeline.run(call.probe, **own)
        except NotApplicable:
            continue
        except Exception:  # noqa: BLE001 - code with these mistakes raises here
            if call.raised:
                continue
            return None
        if call.raised or not agree(call.output, predicted, exact_zeros=exact_zeros).same:
            return None
        # evidence before naming: a wrong call on sizes that tell mistakes apart, where the prediction is not
        # NaN throughout (many mistakes, every key masked say, give NaN everywhere)
        shown = shown or (call.deviates and not call.probe.degenerate() and finite_somewhere(predicted))
    if not shown or (fitted and (not lawful(factors) or all(right_factor(pipeline, d, c) for d, c in factors))):
        return None
    return Explanation(chosen, tuple(factors))


def finite_somewhere(predicted: object) -> bool:
    parts = predicted if isinstance(predicted, (list, tuple)) else [predicted]
    tensors = [p for p in parts if isinstance(p, torch.Tensor) and p.is_floating_point()]
    return not tensors or any(bool(p.isfinite().any()) for p in tensors)


def combination_count(pipeline: Pipeline, size: int) -> int:
    return sum(math.prod(len(pipeline.stages[s]) for s in stages)
               for stages in itertools.combinations(pipeline.stages, size))


def deviations_allowed(pipeline: Pipeline) -> int:
    """Two deviations everywhere; three where the pipeline is small enough to search them quickly."""
    return 3 if combination_count(pipeline, 3) <= THREE_BUDGET else MAX_DEVIATIONS


class Search:
    """Per target, the explanations that survive the calls seen so far. More calls only take explanations away,
    so a later check filters the survivors on its new calls, and a target with none stays without."""

    def __init__(self) -> None:
        self._state: dict[str, tuple[int, int, list[Explanation]]] = {}   # target -> (calls, size, survivors)

    def simplest(self, target: str, calls: list[Call], exact_zeros: bool) -> list[Explanation]:
        """The simplest explanations of these calls ([] if none within the allowed number of deviations)."""
        pipeline = pipeline_for(target)
        if pipeline is None or not any(c.deviates for c in calls):
            return []
        seen, size, survivors = self._state.get(target, (0, 1, None))
        if survivors is not None and seen == len(calls):
            return self.best(survivors)
        if survivors == [] and seen and size > deviations_allowed(pipeline):
            return []   # nothing explained fewer calls, on telling evidence: nothing explains more
        ordered = most_telling_first(calls)
        if survivors:
            survivors = [e for old in survivors
                         if (e := explains(pipeline, old.variants, ordered, exact_zeros)) is not None]
        found = survivors or []
        while not found and size <= min(deviations_allowed(pipeline), len(pipeline.stages)):
            found = [e for chosen in combinations(pipeline, size)
                     if (e := explains(pipeline, chosen, ordered, exact_zeros)) is not None]
            if not found:
                size += 1
        if not found and not any(c.deviates and not c.probe.degenerate() for c in calls):
            size = 1   # no telling call yet: the search is not over
        self._state[target] = (len(calls), size, found)
        return self.best(found)

    @staticmethod
    def best(found: list[Explanation]) -> list[Explanation]:
        rank = min((e.rank for e in found), default=None)
        return [e for e in found if e.rank == rank]


def most_telling_first(calls: list[Call]) -> list[Call]:
    """Wrong results first, those with the most inputs (masks) and the newest first: most combinations fail
    on them at once."""
    wrong = sorted([c for c in calls if c.deviates][::-1], key=lambda c: -len(c.probe.args))
    return wrong + [c for c in calls if not c.deviates]


def named(explanations: list[Explanation]) -> frozenset[str]:
    """The mistakes every simplest explanation shares: only those are proven."""
    if not explanations:
        return frozenset()
    return frozenset.intersection(*(e.mistakes for e in explanations))


def describe_factor(explanation: Explanation) -> str:
    """ "your scores are 1/64 of Q K^T at d_k = 64 (the lesson divides by sqrt(d_k) = 8)" and the law."""
    if not explanation.factors:
        return ""
    d_k, factor = explanation.factors[0]
    text = (f"your scores are Q K^T divided by {1 / factor:.4g} at d_k = {d_k}, where the lesson divides by "
            f"sqrt(d_k) = {math.sqrt(d_k):.4g}")
    dims = sorted({d for d, _ in explanation.factors})
    if len(dims) > 1:
        divisors = [1 / c for _, c in explanation.factors]
        if all(math.isclose(v, divisors[0], rel_tol=1e-4) for v in divisors):
            text += f"; the divisor is {divisors[0]:.4g} at every d_k tried ({', '.join(map(str, dims))})"
        else:
            power = math.log(divisors[0]) / math.log(d_k)
            text += f"; at every d_k tried ({', '.join(map(str, dims))}) the divisor is d_k ** {power:.3g}"
    return text
