"""A small transformer trained for two warm-up steps, then one recorded step that the program dumps itself."""
import torch
import torch.nn as nn

layer = nn.TransformerEncoderLayer(d_model=512, nhead=8, dim_feedforward=2048, batch_first=True)
model = nn.TransformerEncoder(layer, num_layers=4).cuda()
head = nn.Linear(512, 1000).cuda()
params = list(model.parameters()) + list(head.parameters())
opt = torch.optim.AdamW(params)
tokens = torch.randn(16, 256, 512, device="cuda")
target = torch.randint(0, 1000, (16, 256), device="cuda")


def step():
    with torch.autocast("cuda", dtype=torch.bfloat16):
        logits = head(model(tokens))
        loss = nn.functional.cross_entropy(logits.float().flatten(0, 1), target.flatten())
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)


for _ in range(2):
    step()
torch.cuda.memory._record_memory_history(max_entries=1000000)
step()
torch.cuda.memory._dump_snapshot("transformer_window.pickle")
torch.cuda.memory._record_memory_history(enabled=None)
