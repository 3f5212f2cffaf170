"""Wrong attention_scores submission: padding inverted."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_padding_mask',
]
MISTAKE = 'Marks the padded positions as True (key_padding_mask polarity of nn.MultiheadAttention).'
MISTAKE_ID = 'padding-inverted'
CODE = '''
def padding_mask(lengths, T_k):
    positions = torch.arange(T_k, device=lengths.device)
    return (positions[None, :] >= lengths[:, None]).unsqueeze(1)
'''
