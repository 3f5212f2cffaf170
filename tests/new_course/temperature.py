# %% [markdown]
# # Temperature: how sharp attention is
#
# *A third assignment, written from docs/authoring.md alone.* Dividing the scores by a temperature $\tau$ before
# the softmax sharpens the weights ($\tau < 1$) or flattens them ($\tau > 1$). Each exercise says what the grader
# expects where the lesson is silent (sizes, dtypes, ranges): its declared spec.

# %% role="setup"
import torch
from torch import nn

# %% [markdown] exercise="sharpen"
# ## 1. Softmax with a temperature
#
# $$\alpha_{ij} = \frac{\exp(e_{ij} / \tau)}{\sum_{j'} \exp(e_{ij'} / \tau)}$$

# %% exercise="sharpen" role="solution"
def sharpen(scores, tau):
    """softmax(scores / tau) over the last dim."""
    # BEGIN SOLUTION
    return torch.softmax(scores / tau, dim=-1)
    # END SOLUTION

# %% exercise="sharpen" role="spec"
{
    "sizes": {"T_k": [1, 16]},
    "args": {
        "scores": {"shape": "... T_k", "leading": [1, 3], "values": [-8, 8]},
        "tau": {"float": [0.25, 4.0]},
    },
    "result": "values",
    "points": 2,
    "hint": "alpha = softmax(scores / tau) over the last dim: divide by the temperature, do not multiply.",
    "mistakes": {
        "temperature-multiplied": {
            "edit": "operator-div-mul", "at": "scores / tau",
            "says": "the scores are multiplied by the temperature instead of divided by it",
        },
    },
}

# %% [markdown] exercise="TemperatureAttention"
# ## 2. Self-attention with a temperature
#
# $Q = x W_q^T$, $K = x W_k^T$, $V = x W_v^T$ (the layer's three `nn.Linear` maps, given), then
# $\text{softmax}(Q K^T / \tau)$ over the keys, where `mask` allows a key (True), times $V$.

# %% exercise="TemperatureAttention" role="solution"
class TemperatureAttention(nn.Module):
    def __init__(self, d, tau):
        super().__init__()
        self.W_q = nn.Linear(d, d, bias=False)
        self.W_k = nn.Linear(d, d, bias=False)
        self.W_v = nn.Linear(d, d, bias=False)
        self.tau = tau

    def forward(self, x, mask):
        # BEGIN SOLUTION
        Q, K, V = self.W_q(x), self.W_k(x), self.W_v(x)
        scores = (Q @ K.transpose(-2, -1)) / self.tau
        scores = scores.masked_fill(~mask, float("-inf"))
        return torch.softmax(scores, dim=-1) @ V
        # END SOLUTION

# %% exercise="TemperatureAttention" role="spec"
{
    "sizes": {"B": [1, 3], "T": [1, 6], "d": [1, 8]},
    "init": {"d": {"size": "d"}, "tau": {"float": [0.5, 2.0]}},
    "args": {
        "x": {"shape": "B T d", "values": [-2, 2]},
        "mask": {"mask": "B T T"},
    },
    "result": "values",
    "points": 2,
    "hint": "softmax(Q K^T / tau) over the keys (the last dim), masked keys at -inf, then times V.",
    "mistakes": {
        "softmax-over-queries": {
            "edit": "axis-of-softmax", "at": "torch.softmax(scores, dim=-1)", "to": "torch.softmax(scores, dim=-2)",
            "says": "the softmax runs over the queries (dim=-2), not over the keys (dim=-1)",
        },
    },
}

# %% exercise="sharpen" role="explore"
import matplotlib.pyplot as plt

try:
    scores = torch.tensor([2.0, 1.0, 0.0, -1.0])
    fig, ax = plt.subplots(figsize=(5, 3))
    for tau in (0.25, 1.0, 4.0):
        ax.plot(sharpen(scores, tau).tolist(), marker="o", label=f"tau = {tau:g}")
    ax.set_xlabel("key j")
    ax.set_ylabel("weight")
    ax.legend()
    plt.show()
except NotImplementedError as missing:
    print("Finish sharpen first:", missing)
