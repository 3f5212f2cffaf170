"""Wrong attention_scores submission: dot numpy roundtrip."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_dot_scores_gradients',
]
MISTAKE = 'Computes the scores in NumPy and wraps the result in a new tensor, which cuts the autograd graph.'
MISTAKE_ID = 'graph-cut'
CODE = '''
import numpy as np


def dot_scores(Q, K):
    return torch.from_numpy(np.matmul(Q.numpy(), np.swapaxes(K.numpy(), -1, -2)))
'''
