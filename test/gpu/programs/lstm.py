"""A two-layer LSTM, forward and backward (cuDNN's own buffers are not predicted: the comparison shows how much)."""
import torch
import torch.nn as nn

lstm = nn.LSTM(input_size=128, hidden_size=256, num_layers=2, batch_first=True).cuda()
head = nn.Linear(256, 10).cuda()
x = torch.randn(16, 100, 128, device="cuda")
out, _ = lstm(x)
head(out[:, -1]).sum().backward()
