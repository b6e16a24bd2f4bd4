"""zero_grad with set_to_none=False then True, no_grad and inference_mode evaluation, foreach and fused AdamW."""
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(2048, 2048), nn.ReLU(), nn.Linear(2048, 2048)).cuda()
foreach = torch.optim.AdamW(model.parameters(), foreach=True)
x = torch.randn(64, 2048, device="cuda")
for set_to_none in (False, True):
    model(x).sum().backward()
    foreach.step()
    foreach.zero_grad(set_to_none=set_to_none)
with torch.no_grad():
    model(x)
with torch.inference_mode():
    torch.einsum("ij,jk->ik", x, model[0].weight.t())
fused = torch.optim.AdamW(model.parameters(), fused=True)
model(x).sum().backward()
fused.step()
