"""A family of "probe-detecting" cheats: masking code that fills masked keys with a small number (-120, -1000)
and switches to -inf only when a statistic of the call says "this is a grader's probe" (scores far below zero,
a bool mask, a contiguous mask, no gradient wanted...).

Each cheat is wrong by the handouts' rule (a masked key weighs exactly 0 for any allowed scores with
|s| <= 1e4): for every switch below there are allowed inputs that the switch calls ordinary and on which the
small fill leaks weight. The graders' probes (grading/space.py: rows of several depths in one tensor, every
mask dtype and layout meeting deep rows, a call with gradients) must find such an input for every one of them.
"""
from __future__ import annotations

from dataclasses import dataclass

# (name, condition under which the cheat uses -inf, fills for which the cheat is wrong). `scores` is the tensor
# being masked, `mask` the mask as given. A fill f leaks where a row's allowed scores all sit below f + 103
# (float32's exp underflows below about -103); each threshold leaves such rows on the "ordinary" side.
SWITCHES = [
    ("min_below_200", "scores.min() < -200", (-120.0,)),
    ("min_below_1000", "scores.min() < -1000", (-120.0,)),
    ("min_below_5000", "scores.min() < -5000", (-120.0, -1000.0)),
    ("max_below_100", "scores.max() < -100", (-120.0,)),
    ("max_below_1000", "scores.max() < -1000", (-120.0, -1000.0)),
    ("mean_below_20", "scores.mean() < -20", (-120.0,)),
    ("mean_below_500", "scores.mean() < -500", (-120.0,)),
    ("mean_below_3000", "scores.mean() < -3000", (-1000.0,)),
    ("spread_over_50", "scores.float().std() > 50", (-120.0,)),
    ("spread_over_1000", "scores.float().std() > 1000", (-120.0, -1000.0)),
    ("absmax_over_200", "scores.abs().max() > 200", (-120.0,)),
    ("absmax_over_5000", "scores.abs().max() > 5000", (-120.0, -1000.0)),
    ("bool_mask", "mask.dtype == torch.bool", (-120.0,)),
    ("non_bool_mask", "mask.dtype != torch.bool", (-120.0,)),
    ("float_mask", "mask.is_floating_point()", (-120.0,)),
    ("contiguous_mask", "mask.is_contiguous()", (-120.0,)),
    ("non_contiguous_mask", "not mask.is_contiguous()", (-120.0,)),
    ("full_shape_mask", "mask.dim() == 3", (-120.0,)),
    ("square_scores", "scores.shape[-1] == scores.shape[-2]", (-120.0,)),
    ("batch_over_one", "scores.shape[0] > 1", (-120.0,)),
    ("no_gradient", "not scores.requires_grad", (-120.0, -1000.0)),
    ("any_of_min_mean_dtype", "scores.min() < -1000 or scores.mean() < -100 or mask.dtype != torch.bool",
     (-120.0,)),
]

# where the switch sits: (assignment, definitions appended to the reference, the hidden test that must fail)
TARGETS = {
    "apply_mask": ("attention_scores", "test_apply_mask_values", '''def apply_mask(scores, mask):
    fill = float("-inf") if {switch} else {fill}
    return scores.masked_fill(mask == 0, fill)
'''),
    "attention_weights": ("attention_scores", "test_attention_weights_mask", '''def attention_weights(scores, mask=None):
    if mask is not None:
        fill = float("-inf") if {switch} else {fill}
        scores = scores.masked_fill(mask == 0, fill)
    return F.softmax(scores, dim=-1)
'''),
    "attention": ("single_head_attention", "test_attention_masks", '''def attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])
    if mask is not None:
        fill = float("-inf") if {switch} else {fill}
        scores = scores.masked_fill(mask == 0, fill)
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
'''),
}

# The layer's own forward fills masked scores (its graders build scores through W_Q, W_K and the inputs): every
# switch above, and switches on what only a layer sees (its mode, the size of its inputs or of its weights).
LAYER_SWITCHES = SWITCHES + [
    ("eval_mode", "self.training", (-120.0, -1000.0)),
    ("autograd_on", "scores.requires_grad", (-120.0, -1000.0)),
    ("grad_enabled", "torch.is_grad_enabled()", (-1000.0,)),
    ("training_or_min", "self.training or scores.min() < -1000", (-120.0,)),
    ("large_inputs", "x_q.abs().max() > 10 or x_kv.abs().max() > 10", (-120.0, -1000.0)),
    ("large_weights", "self.W_Q.weight.abs().max() > 10", (-120.0, -1000.0)),
    # a row at depth D needs |q| |k| >= |D| sqrt(d_k): about 19 each at -120, 55 at -1000
    ("large_projections", "Q.abs().max() > 30 or K.abs().max() > 30", (-120.0,)),
    ("very_large_projections", "Q.abs().max() > 100 or K.abs().max() > 100", (-1000.0,)),
]
# caught only in train() mode: the layer fills with a small number while training
LAYER_TRAINING_SWITCHES = [
    ("train_mode", "not self.training", (-120.0, -1000.0)),
    ("train_mode_or_min", "not self.training or scores.min() < -1000", (-120.0,)),
]
LAYER = '''class SingleHeadAttention(nn.Module):
    def __init__(self, d_model, d_k):
        super().__init__()
        self.W_Q = nn.Linear(d_model, d_k, bias=False)
        self.W_K = nn.Linear(d_model, d_k, bias=False)
        self.W_V = nn.Linear(d_model, d_k, bias=False)

    def forward(self, x_q, x_kv, mask=None):
        Q, K, V = self.W_Q(x_q), self.W_K(x_kv), self.W_V(x_kv)
        scores = Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])
        if mask is not None:
            fill = float("-inf") if {switch} else {fill}
            scores = scores.masked_fill(mask == 0, fill)
        weights = F.softmax(scores, dim=-1)
        return weights @ V, weights
'''
LAYER_TARGETS = {"layer": ("test_layer_masks", LAYER_SWITCHES),
                 "layer_training": ("test_layer_training_mode", LAYER_TRAINING_SWITCHES)}


@dataclass(frozen=True)
class Cheat:
    name: str
    assignment: str
    caught_by: str
    code: str


def cheats() -> list[Cheat]:
    found = []
    for target, (assignment, test, template) in TARGETS.items():
        for switch, condition, fills in SWITCHES:
            for fill in fills:
                found.append(Cheat(f"{target}-{switch}-fill{int(fill)}", assignment, test,
                                   template.format(switch=condition, fill=fill)))
    for target, (test, switches) in LAYER_TARGETS.items():
        for switch, condition, fills in switches:
            for fill in fills:
                found.append(Cheat(f"{target}-{switch}-fill{int(fill)}", "single_head_attention", test,
                                   LAYER.format(switch=condition, fill=fill)))
    return found
