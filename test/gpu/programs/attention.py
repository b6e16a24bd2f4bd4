"""scaled_dot_product_attention in fp16 and nn.MultiheadAttention, with backward."""
import torch
import torch.nn as nn
import torch.nn.functional as F

q = torch.randn(4, 8, 512, 64, device="cuda", dtype=torch.float16, requires_grad=True)
o = F.scaled_dot_product_attention(q, q, q, is_causal=True)
o.float().square().mean().backward()
mha = nn.MultiheadAttention(embed_dim=256, num_heads=8, batch_first=True).cuda()
x = torch.randn(8, 128, 256, device="cuda")
out, _ = mha(x, x, x, need_weights=False)
out.sum().backward()
