"""Test data for the diagnosis tests: probes shaped like the hidden graders', wrong code written by hand for
the mistake models that no catalogue entry covers, and a way to run a student's code in this process.

Running student code in-process is fine here: it is the kit's own catalogue, trusted test data.
"""
from __future__ import annotations

import re
from pathlib import Path

import torch

from autograder.diagnosis import Observation, Probe
from autograder.diagnosis.pipeline import mistake_of
from tests.classroom import solution_text
from tests.test_catalogue import CORRECT, WRONG  # noqa: F401 - the catalogue's entries, loaded once

CHILD = Path(__file__).resolve().parents[1] / "autograder" / "sandbox" / "child"


def child_harness():
    """The sandbox child's own harness module (describe_error, the probe runner), imported in this process."""
    import sys

    sys.path.insert(0, str(CHILD))
    try:
        import harness
    finally:
        sys.path.remove(str(CHILD))
    return harness


def defined_names(code: str) -> list[str]:
    return re.findall(r"^(?:def|class) (\w+)", code, re.M)


def student_namespace(assignment: str, code: str, complete: bool = False) -> dict:
    """The student's file run as the sandbox runs it (frames named <student:...>), here in this process."""
    text = code if complete else solution_text(assignment) + "\n\n" + code
    namespace = {"__name__": f"student_{assignment}"}
    exec(compile(text, f"<student:{assignment}.py#0>", "exec"), namespace)
    return namespace


# --- probes like the hidden graders' ------------------------------------------------------------------

def _randn(generator, *shape, scale=1.0):
    return torch.randn(*shape, generator=generator) * scale


def probes(target: str, seed: int = 0) -> list[Probe]:
    """Inputs like the graders': T_q != T_k != d, B > 1 and B = 1, a square case, masks of each kind, large
    scores, and forbidden keys with huge scores."""
    g = torch.Generator().manual_seed(seed)
    r = lambda *shape, scale=1.0: _randn(g, *shape, scale=scale)  # noqa: E731
    found: list[Probe] = []
    if target in ("dot_scores", "scaled_dot_scores"):
        for B, T_q, T_k, d in [(3, 5, 7, 6), (1, 1, 4, 8), (2, 6, 6, 6), (2, 3, 9, 16)]:
            found.append(Probe(target, (r(B, T_q, d), r(B, T_k, d))))
    elif target == "GeneralScore":
        for B, T_q, T_k, d_q, d_k in [(3, 5, 7, 6, 4), (2, 4, 4, 5, 5), (1, 1, 3, 2, 7)]:
            found.append(Probe(target, (r(B, T_q, d_q), r(B, T_k, d_k)), params={"W.weight": r(d_q, d_k)}))
    elif target == "AdditiveScore":
        for B, T_q, T_k, d_q, d_k, d_h in [(3, 5, 7, 6, 4, 8), (1, 1, 4, 3, 3, 5), (2, 4, 4, 5, 2, 3)]:
            params = {"W_q.weight": r(d_h, d_q, scale=0.7), "W_k.weight": r(d_h, d_k, scale=0.7),
                      "v.weight": r(1, d_h)}
            found.append(Probe(target, (r(B, T_q, d_q), r(B, T_k, d_k)), params=params))
    elif target in ("apply_mask", "attention_weights"):
        scores = r(3, 4, 6)
        allowed = torch.rand(3, 4, 6, generator=g) > 0.4
        allowed[..., 0] = True
        padding = torch.tensor([[[1, 1, 1, 1, 0, 0]], [[1, 1, 1, 1, 1, 1]], [[1, 1, 0, 0, 0, 0]]]).bool()
        for mask in (allowed, allowed.long(), allowed.float(), padding):
            found.append(Probe(target, (scores, mask)))
        found.append(Probe(target, (scores.masked_fill(~allowed, 1000.0), allowed)))
        if target == "attention_weights":
            found += [Probe(target, (scores,)), Probe(target, (r(1, 5, 7),)),
                      Probe(target, (torch.tensor([[[1000.0, 999.0, 0.0], [-1000.0, 0.0, 1000.0]]]),))]
    elif target == "causal_mask":
        found += [Probe(target, (T,)) for T in (1, 4, 7)]
    elif target == "padding_mask":
        found += [Probe(target, (torch.tensor(lengths), T_k))
                  for lengths, T_k in [([3, 7, 1], 7), ([2], 5), ([4, 4], 6)]]
    elif target == "softmax_entropy":
        for shape in [(3, 5, 7), (2, 4), (1, 1, 6)]:
            found.append(Probe(target, (torch.softmax(r(*shape) * 2, dim=-1),)))
        found.append(Probe(target, (torch.tensor([[[1.0, 0.0, 0.0], [0.5, 0.5, 0.0]]]),)))
    elif target == "attention":
        found += attention_probes(r)
    elif target == "SingleHeadAttention":
        found += layer_probes(r)
    return found


def attention_probes(r) -> list[Probe]:
    found = []
    for B, T_q, T_k, d_k, d_v in [(3, 5, 7, 6, 5), (1, 1, 4, 8, 3), (2, 6, 6, 6, 6), (2, 3, 9, 16, 4)]:
        found.append(Probe("attention", (r(B, T_q, d_k), r(B, T_k, d_k), r(B, T_k, d_v))))
    B, T, d_k, d_v = 3, 6, 5, 4
    Q, K, V = r(B, T, d_k), r(B, T, d_k), r(B, T, d_v)
    causal = torch.ones(T, T).tril().bool()
    padding = (torch.arange(T)[None, :] < torch.tensor([6, 3, 1])[:, None]).unsqueeze(1)
    for mask in (causal, causal.long(), causal.float(), padding):
        found.append(Probe("attention", (Q, K, V, mask)))
    rows_differ = torch.rand(3, 5, 7, generator=torch.Generator().manual_seed(5)) > 0.5
    rows_differ[..., 0] = True
    found.append(Probe("attention", (r(3, 5, d_k), r(3, 7, d_k), r(3, 7, d_v), rows_differ)))
    hot_K = torch.where(padding.transpose(-2, -1), K, 400 * torch.eye(d_k)[0])
    found.append(Probe("attention", (Q + 3 * torch.eye(d_k)[0], hot_K, V, padding)))
    found.append(Probe("attention", (r(2, 3, 5, scale=30), r(2, 5, 5, scale=30), r(2, 5, 3))))
    return found


def layer_probes(r) -> list[Probe]:
    found = []
    for B, T_q, T_k, d_model, d_k in [(3, 5, 7, 24, 6), (1, 1, 3, 8, 8), (2, 4, 4, 12, 3)]:
        params = {f"{n}.weight": r(d_k, d_model) for n in ("W_Q", "W_K", "W_V")}
        x_q, x_kv = r(B, T_q, d_model), r(B, T_k, d_model)
        found += [Probe("SingleHeadAttention", (x_q, x_kv), params=params),
                  Probe("SingleHeadAttention", (x_q, x_q), params=params)]
    params = {f"{n}.weight": r(4, 12) for n in ("W_Q", "W_K", "W_V")}
    x = r(2, 6, 12)
    causal = torch.ones(6, 6).tril().bool()
    padding = (torch.arange(6)[None, :] < torch.tensor([6, 2])[:, None]).unsqueeze(1)
    rows_differ = torch.rand(2, 6, 6, generator=torch.Generator().manual_seed(6)) > 0.5
    rows_differ[..., 0] = True
    found += [Probe("SingleHeadAttention", (x, x, causal), params=params),
              Probe("SingleHeadAttention", (x, x, rows_differ), params=params),
              Probe("SingleHeadAttention", (x, x, padding.long()), params=params),
              Probe("SingleHeadAttention", (x * 10, x * 10), params=params)]  # scores in the hundreds
    # padded keys far out: some forbidden scores dwarf every allowed one
    hot = torch.where(padding.transpose(-2, -1), x, 60 * x)
    found.append(Probe("SingleHeadAttention", (x, hot, padding), params=params))
    return found


# --- running a student's code on a probe, in this process ------------------------------------------------

def init_args(probe: Probe) -> tuple:
    p = probe.params
    if probe.target == "SingleHeadAttention":
        return p["W_Q.weight"].shape[1], p["W_Q.weight"].shape[0]
    if probe.target == "GeneralScore":
        return tuple(p["W.weight"].shape)
    return p["W_q.weight"].shape[1], p["W_k.weight"].shape[1], p["W_q.weight"].shape[0]


def call(namespace: dict, probe: Probe):
    target = namespace[probe.target]
    if probe.params is not None:
        target = target(*init_args(probe)).eval()  # modules are probed in eval() mode, as the graders do
        with torch.no_grad():
            target(*[a.clone() if isinstance(a, torch.Tensor) else a for a in probe.args], **probe.kwargs)
        with torch.no_grad():
            for name, value in probe.params.items():
                holder = target
                for part in name.split("."):
                    holder = getattr(holder, part)
                holder.copy_(value)
    args = [a.clone() if isinstance(a, torch.Tensor) else a for a in probe.args]
    with torch.no_grad():
        return target(*args, **probe.kwargs)


def observe(namespace: dict, probe: Probe) -> Observation:
    try:
        return Observation(probe, call(namespace, probe))
    except Exception:  # noqa: BLE001 - the student's code raised: the matcher is told so
        return Observation(probe, None, raised=True)


# --- wrong code for the models no catalogue entry covers -------------------------------------------------
# Written as a student writes it, independently of the models: (assignment, target, mistake id, code).

ATTENTION = '''
def attention(Q, K, V, mask=None):
    scores = {scores}
    if mask is not None:
        scores = {masking}
    weights = {softmax}
    return weights @ V, weights
'''
LAYER = '''
class SingleHeadAttention(nn.Module):
    def __init__(self, d_model, d_k):
        super().__init__()
        self.W_Q = nn.Linear(d_model, d_k, bias=False)
        self.W_K = nn.Linear(d_model, d_k, bias=False)
        self.W_V = nn.Linear(d_model, d_k, bias=False)

    def forward(self, x_q, x_kv, mask=None):
        Q, K, V = {projections}
        scores = {scores}
        if mask is not None:
            scores = {masking}
        weights = {softmax}
        return weights @ V, weights
'''
RIGHT = {"scores": "Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])",
         "masking": "scores.masked_fill(mask == 0, float('-inf'))", "softmax": "F.softmax(scores, dim=-1)",
         "projections": "self.W_Q(x_q), self.W_K(x_kv), self.W_V(x_kv)"}
VARIANTS = {
    "scale-sqrt-tk": {"scores": "Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-2])"},
    "scale-hardcoded": {"scores": "Q @ K.transpose(-2, -1) / 8"},
    "scale-multiplied": {"scores": "Q @ K.transpose(-2, -1) * math.sqrt(K.shape[-1])"},
    "scale-missing": {"scores": "Q @ K.transpose(-2, -1)"},
    "scale-by-dk": {"scores": "Q @ K.transpose(-2, -1) / K.shape[-1]"},
    "k-at-q": {"scores": "K @ Q.transpose(-2, -1) / math.sqrt(K.shape[-1])"},
    "batch-crosstalk": {"scores": "Q @ K[0].transpose(-2, -1) / math.sqrt(K.shape[-1])"},
    "transpose-all-dims": {"scores": "Q @ K.T / math.sqrt(K.shape[-1])"},
    "softmax-no-dim": {"softmax": "F.softmax(scores)"},
    "softmax-wrong-dim": {"softmax": "F.softmax(scores, dim=-2)"},
    "softmax-unstable": {"softmax": "scores.exp() / scores.exp().sum(-1, keepdim=True)"},
    "mask-inverted": {"masking": "scores.masked_fill(mask == 1, float('-inf'))"},
    "mask-zero-fill": {"masking": "scores * mask"},
    "mask-added": {"masking": "scores + mask"},
    "mask-not-applied": {"masking": "scores"},
    "mask-small-fill": {"masking": "scores.masked_fill(mask == 0, -10.0)"},
    "scale-power-precedence": {"scores": "Q @ K.transpose(-2, -1) / K.shape[-1] ** 1/2"},
    "scale-power-precedence-stored": {"scores": "(lambda scale: Q @ K.transpose(-2, -1) / scale)(K.shape[-1] ** 1/2)"},
    "mask-first-row": {"masking": "scores.masked_fill((mask[:, :1, :] if mask.dim() == 3 else mask) == 0, -math.inf)"},
    "mask-always-causal": {"masking": "scores.masked_fill(torch.ones(Q.shape[1], K.shape[1]).tril() == 0, -math.inf)"},
    "keys-from-xq": {"projections": "self.W_Q(x_q), self.W_K(x_q), self.W_V(x_kv)"},
}
LAYER_ONLY = {"scale-sqrt-dmodel": {"scores": "Q @ K.transpose(-2, -1) / math.sqrt(x_q.shape[-1])"}}


def written(template: str, changes: dict) -> str:
    return template.format(**{**RIGHT, **changes})


HANDWRITTEN = [("single_head_attention", "attention", mistake_of(name), written(ATTENTION, change))
               for name, change in VARIANTS.items() if "projections" not in change]
HANDWRITTEN += [("single_head_attention", "SingleHeadAttention", mistake_of(name), written(LAYER, change))
                for name, change in {**VARIANTS, **LAYER_ONLY}.items()]
HANDWRITTEN += [
    ("single_head_attention", "attention", "mask-after-softmax-renormalised", '''
def attention(Q, K, V, mask=None):
    weights = torch.softmax(Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1]), dim=-1)
    if mask is not None:
        weights = weights * (mask != 0)
        weights = weights / weights.sum(-1, keepdim=True)
    return weights @ V, weights
'''),
    ("single_head_attention", "SingleHeadAttention", "mask-after-softmax-renormalised",
     written(LAYER, {"softmax": "F.softmax(Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1]), dim=-1)",
                     "masking": "scores"}).replace(
         "return weights @ V, weights",
         "if mask is not None:\n            weights = weights * mask\n"
         "            weights = weights / weights.sum(-1, keepdim=True)\n        return weights @ V, weights")),
    ("single_head_attention", "SingleHeadAttention", "dropout-on-weights",
     written(LAYER, {"softmax": "torch.dropout(F.softmax(scores, dim=-1), 0.2, True)"})),
    ("single_head_attention", "SingleHeadAttention", "k-at-q",
     written(LAYER, {"scores": "K @ Q.transpose(-2, -1) / math.sqrt(K.shape[-1])"}).replace(
         "return weights @ V", "return weights.transpose(-2, -1) @ V")),
    ("single_head_attention", "attention", "dropout-on-weights", '''
def attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    weights = F.dropout(F.softmax(scores, dim=-1), p=0.25, training=True)
    return weights @ V, weights
'''),
]
MASKING_CODE = {"mask-inverted": "scores.masked_fill(mask == 1, float('-inf'))", "mask-zero-fill": "scores * mask",
                "mask-added": "scores + mask", "mask-small-fill": "scores.masked_fill(mask == 0, -5.0)"}
HANDWRITTEN += [("attention_scores", "apply_mask", "mask-added",
                 "def apply_mask(scores, mask):\n    return scores + mask\n")]
HANDWRITTEN += [("attention_scores", "attention_weights", name, f'''
def attention_weights(scores, mask=None):
    if mask is not None:
        scores = {code}
    return F.softmax(scores, dim=-1)
''') for name, code in MASKING_CODE.items()]
HANDWRITTEN += [
    ("attention_scores", "attention_weights", "dropout-on-weights", '''
def attention_weights(scores, mask=None):
    if mask is not None:
        scores = apply_mask(scores, mask)
    return nn.Dropout(0.1)(F.softmax(scores, dim=-1))
'''),
    ("attention_scores", "attention_weights", "softmax-wrong-dim", '''
def attention_weights(scores, mask=None):
    if mask is not None:
        scores = apply_mask(scores, mask)
    return scores.softmax(dim=1)
'''),
    ("attention_scores", "causal_mask", "causal-shifted",
     "def causal_mask(T):\n    return torch.ones(T, T, dtype=torch.bool).tril(diagonal=1)\n"),
    ("attention_scores", "softmax_entropy", "entropy-wrong-dim",
     "def softmax_entropy(weights):\n    return -torch.special.xlogy(weights, weights).sum(dim=-2)\n"),
]
HANDWRITTEN += [("attention_scores", "scaled_dot_scores", name, f"def scaled_dot_scores(Q, K):\n    return {code}\n")
                for name, code in [("scale-missing", "Q @ K.transpose(-2, -1)"),
                                   ("k-at-q", "K @ Q.transpose(-2, -1) / math.sqrt(K.shape[-1])"),
                                   ("batch-crosstalk", "Q @ K[0].transpose(-2, -1) / math.sqrt(K.shape[-1])"),
                                   ("transpose-all-dims", "Q @ K.T / math.sqrt(K.shape[-1])"),
                                   ("scale-power-precedence", "Q @ K.transpose(-2, -1) / K.shape[-1] ** 1/2")]]
HANDWRITTEN += [("attention_scores", "scaled_dot_scores", "scale-power-precedence", """
def scaled_dot_scores(Q, K):
    scale = K.shape[-1] ** 1/2
    return Q @ K.transpose(-2, -1) / scale
""")]
