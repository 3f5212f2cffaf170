"""Wrong attention_scores submission: causal pytorch polarity."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_causal_mask',
]
MISTAKE = (
    "Returns the 'future' mask of nn.Transformer.generate_square_subsequent_mask style (True above the "
    'diagonal = blocked).'
)
CODE = '''
def causal_mask(T):
    return torch.ones(T, T).triu(diagonal=1).bool()
'''
