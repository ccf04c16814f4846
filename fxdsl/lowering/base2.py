"""The attention kernels keep softmax scores in base 2: `exp2` is one GPU
instruction and `exp(x) = exp2(x * log2(e))`, so the factor is folded into
the score scale once (and into an additive mask as it is read)."""

LOG2_E = 1.4426950408889634
"""log2(e): a natural-log score times this is the same score in base 2."""
FLT_MAX = 3.4028234663852886e38
"""The largest finite f32: the floor of a finite additive mask element in
base 2 (torch's `finfo.min` times log2(e) would overflow to -inf and turn a
row of equal very negative scores, which softmax averages, into a row of
no keys)."""
