"""Wrong attention_scores submission: dot numpy roundtrip."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_dot_scores_values',
]
MISTAKE = 'Computes the scores in NumPy and wraps the result in a new tensor, which cuts the autograd graph.'
KNOWN_GAP = (
    'No hidden test backpropagates through dot_scores or scaled_dot_scores (the saturation gradient test '
    'differentiates attention_weights with respect to scores that come back detached from the sandbox), so '
    'a graph cut in the score functions costs nothing; a backward probe like test_general_score_gradients '
    'is missing.'
)
CODE = '''
import numpy as np


def dot_scores(Q, K):
    return torch.from_numpy(np.matmul(Q.numpy(), np.swapaxes(K.numpy(), -1, -2)))
'''
