"""Overhead of backward lines on a real (CPU) PyTorch: a residual MLP training step with Adam, timed inside the
program. Run it plainly, and through the bootstrap with VRAM_LENS_TEST_INSTRUMENT_CPU=1 (module ranges and
single-threaded backward forced on although this build has no CUDA), with --backward-lines on and off
(bench/backward-overhead.mjs, `npm run bench:profile`, does all three, interleaved):

    python3 test/torch/bench_backward.py OUT.json [STEPS [WARMUP_STEPS]]
    VRAM_LENS_TEST_INSTRUMENT_CPU=1 python3 src/python/vram_lens --snapshot /tmp/x.pickle \
        [--backward-lines off] --script test/torch/bench_backward.py -- OUT.json
"""
import json
import statistics
import sys
import time

import torch  # untyped here (setup.cfg): type-checked against no particular PyTorch
from torch import nn

torch.manual_seed(0)
torch.set_num_threads(1)


class Block(nn.Module):  # type: ignore[misc]  # nn.Module is Any to the type checker
    def __init__(self, width: int, hidden: int) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.up = nn.Linear(width, hidden)
        self.down = nn.Linear(hidden, width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.down(torch.relu(self.up(self.norm(x))))


model = nn.Sequential(*[Block(256, 1024) for _ in range(8)], nn.Linear(256, 1))
optimizer = torch.optim.Adam(model.parameters())
x = torch.randn(512, 256)
target = torch.randn(512, 1)


def step() -> None:
    optimizer.zero_grad(set_to_none=True)
    loss = nn.functional.mse_loss(model(x), target)
    loss.backward()
    optimizer.step()


for _ in range(int(sys.argv[3]) if len(sys.argv) > 3 else 5):
    step()
times: list[float] = []
cpu_times: list[float] = []  # CPU time of the process: what the work costs, whatever else the machine is running
for _ in range(int(sys.argv[2]) if len(sys.argv) > 2 else 40):
    began, cpu_began = time.perf_counter(), time.process_time()
    step()
    times.append(time.perf_counter() - began)
    cpu_times.append(time.process_time() - cpu_began)
with open(sys.argv[1], "w") as f:
    json.dump(
        {
            "torch": torch.__version__,
            "median_ms": statistics.median(times) * 1000,
            "min_ms": min(times) * 1000,
            "steps_ms": [t * 1000 for t in times],
            "cpu_steps_ms": [t * 1000 for t in cpu_times],
        },
        f,
    )
