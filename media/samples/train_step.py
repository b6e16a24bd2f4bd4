"""Training steps of a residual MLP with Adam, and the switches that change its memory (a VRAM Lens sample).

Each block is Linear-ReLU-Linear-ReLU added to the residual stream. Every step trains on one batch and
then tracks the loss on a held-out batch, as training scripts do.

    python train_step.py                      # baseline: fp32, activations kept for backward
    python train_step.py --checkpoint         # activation checkpointing (use_reentrant=False) per block
    python train_step.py --amp                # autocast mixed precision (float16; --amp-dtype bfloat16)
    python train_step.py --keep-grads         # zero_grad(set_to_none=False): gradients live through forward
    python train_step.py --inference          # forward only, under torch.inference_mode()
    python train_step.py --leak               # the classic leak: total_loss += loss without .item()

Profile each with "VRAM Lens: Profile VRAM" and compare (media/samples/README.md says what to expect).
"""
import argparse
import time

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


class Block(nn.Module):
    def __init__(self, width, hidden):
        super().__init__()
        self.fc1 = nn.Linear(width, hidden)
        self.fc2 = nn.Linear(hidden, width)

    def forward(self, x):
        h = torch.relu(self.fc1(x))
        y = torch.relu(self.fc2(h))
        return y


class ResidualMLP(nn.Module):
    def __init__(self, width, hidden, depth, use_checkpoint):
        super().__init__()
        self.blocks = nn.ModuleList(Block(width, hidden) for _ in range(depth))
        self.use_checkpoint = use_checkpoint

    def forward(self, x):
        for block in self.blocks:
            if self.use_checkpoint:
                x = x + checkpoint(block, x, use_reentrant=False)
            else:
                x = x + block(x)
        return x


def evaluate(model, x, y):
    out = model(x)
    loss = nn.functional.mse_loss(out, y)
    return loss


def make_scaler(enabled):
    """Loss scaling for float16 (PyTorch 2.3+ spells it torch.amp.GradScaler)."""
    if hasattr(torch.amp, "GradScaler"):
        return torch.amp.GradScaler("cuda", enabled=enabled)
    return torch.cuda.amp.GradScaler(enabled=enabled)


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--width", type=int, default=512)
    parser.add_argument("--hidden", type=int, default=2048)
    parser.add_argument("--depth", type=int, default=8)
    parser.add_argument("--batch", type=int, default=16384)
    parser.add_argument("--eval-batch", type=int, default=2048)
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--checkpoint", action="store_true", help="recompute each block's activations in backward")
    parser.add_argument("--amp", action="store_true", help="run forward and loss under torch.autocast")
    parser.add_argument("--amp-dtype", choices=["float16", "bfloat16"], default="float16")
    parser.add_argument("--keep-grads", action="store_true", help="zero_grad(set_to_none=False)")
    parser.add_argument("--inference", action="store_true", help="no training: forward under torch.inference_mode()")
    parser.add_argument("--leak", action="store_true", help="total_loss += loss without .item()")
    parser.add_argument("--seed", type=int, default=0)
    return parser.parse_args()


def main():
    args = parse_args()
    if not torch.cuda.is_available():
        raise SystemExit("This sample needs a CUDA GPU.")
    torch.manual_seed(args.seed)
    device = torch.device("cuda")
    amp_dtype = getattr(torch, args.amp_dtype)
    model = ResidualMLP(args.width, args.hidden, args.depth, args.checkpoint).to(device)
    x = torch.randn(args.batch, args.width, device=device)
    y = torch.randn(args.batch, args.width, device=device)
    x_eval = torch.randn(args.eval_batch, args.width, device=device)
    y_eval = torch.randn(args.eval_batch, args.width, device=device)
    started = time.perf_counter()
    if args.inference:
        with torch.inference_mode():
            for _ in range(args.steps):
                out = model(x)
                del out
    else:
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
        scaler = make_scaler(args.amp and args.amp_dtype == "float16")
        total_loss = 0.0
        for step in range(args.steps):
            optimizer.zero_grad(set_to_none=not args.keep_grads)
            with torch.autocast("cuda", dtype=amp_dtype, enabled=args.amp):
                out = model(x)
                loss = nn.functional.mse_loss(out, y)
            del out
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
            with torch.autocast("cuda", dtype=amp_dtype, enabled=args.amp):
                if args.leak:
                    total_loss += evaluate(model, x_eval, y_eval)
                else:
                    total_loss += evaluate(model, x_eval, y_eval).item()
            print(f"step {step}: train loss {loss.item():.4f}, allocated {torch.cuda.memory_allocated() / 2**20:.0f} MiB")
        print(f"held-out loss, summed over steps: {float(total_loss):.4f}")
    torch.cuda.synchronize()
    elapsed = time.perf_counter() - started
    mib = 1 << 20
    print(f"{elapsed / args.steps * 1000:.1f} ms per step")
    print(f"peak allocated {torch.cuda.max_memory_allocated() / mib:.1f} MiB, peak reserved {torch.cuda.max_memory_reserved() / mib:.1f} MiB")


if __name__ == "__main__":
    main()
