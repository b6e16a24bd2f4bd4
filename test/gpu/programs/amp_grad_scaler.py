"""AMP (float16 autocast) with a GradScaler and AdamW, three steps."""
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(1024, 4096), nn.ReLU(), nn.Linear(4096, 1024)).cuda()
opt = torch.optim.AdamW(model.parameters())
scaler = torch.amp.GradScaler("cuda") if hasattr(torch, "amp") and hasattr(torch.amp, "GradScaler") else torch.cuda.amp.GradScaler()
x = torch.randn(128, 1024, device="cuda")
for _ in range(3):
    with torch.autocast("cuda", dtype=torch.float16):
        loss = model(x).float().square().mean()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    opt.zero_grad(set_to_none=True)
