"""Wrong attention_scores submission: padding over queries."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_padding_mask',
]
MISTAKE = "Builds the padding mask as (B, T_k, 1), which broadcasts over the queries' axis instead of the keys'."
MISTAKE_ID = 'padding-over-queries'
CODE = '''
def padding_mask(lengths, T_k):
    positions = torch.arange(T_k, device=lengths.device)
    return (positions[None, :] < lengths[:, None]).unsqueeze(-1)
'''
