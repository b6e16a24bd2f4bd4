"""Activation checkpointing over a stack of MLP blocks, one training step."""
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

blocks = nn.ModuleList(nn.Sequential(nn.Linear(1024, 4096), nn.GELU(), nn.Linear(4096, 1024)) for _ in range(4)).cuda()
x = torch.randn(256, 1024, device="cuda", requires_grad=True)
h = x
for block in blocks:
    h = checkpoint(block, h, use_reentrant=False)
h.square().mean().backward()
