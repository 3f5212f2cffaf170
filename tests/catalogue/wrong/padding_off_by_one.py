"""Wrong attention_scores submission: padding off by one."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_padding_mask',
]
MISTAKE = 'Uses j <= lengths[b], letting one padded key through.'
MISTAKE_ID = 'padding-off-by-one'
CODE = '''
def padding_mask(lengths, T_k):
    positions = torch.arange(T_k, device=lengths.device)
    return (positions[None, :] <= lengths[:, None]).unsqueeze(1)
'''
