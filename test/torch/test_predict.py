"""Predict VRAM against a real PyTorch (Debian's 2.6 and 2.14 in chroots, the wheel index's 2.13 in a virtual
environment; see scripts/test-torch.mjs). Each test runs a small program of ours under the bootstrap with
``--predict-memory`` and reads the provisional snapshot it writes (pickle). The expected sizes are worked out
here from the programs' shapes and dtypes (bytes = elements x element size), never from the bootstrap.

The prediction builds its native library once per PyTorch, into ``$VRAM_LENS_TEST_NATIVE_CACHE`` (a folder kept
between runs; the user's cache folder when unset).
"""
import os
import pickle
import subprocess
import sys
import textwrap
import unittest
from typing import Any, Sequence

from test_real_torch import VERSION, Run

GIB = 1 << 30
CACHE = os.environ.get("VRAM_LENS_TEST_NATIVE_CACHE")


def predict_options(capability: str = "8.0", memory: int = 80 * GIB, extra: Sequence[str] = ()) -> list[str]:
    options = ["--predict-memory", str(memory), "--predict-gpu", "Test GPU", "--predict-capability", capability]
    if CACHE:
        options += ["--native-cache", CACHE]
    return options + list(extra)


class Predicted(object):
    """A predicted run of `source`: its records, output and provisional snapshot."""

    def __init__(self, source: str, capability: str = "8.0", extra: Sequence[str] = ()) -> None:
        self.source = textwrap.dedent(source)
        self.run = Run(self.source, options=predict_options(capability, extra=extra))
        self.snapshot: dict[str, Any] = {}
        if os.path.exists(self.run.snapshot):
            with open(self.run.snapshot, "rb") as f:
                self.snapshot = pickle.load(f)
        self.trace: list[dict[str, Any]] = (self.snapshot.get("device_traces") or [[]])[0]

    def line(self, marker: str) -> int:
        """The line of the program that carries `# marker`."""
        for number, text in enumerate(self.source.splitlines(), start=1):
            if text.rstrip().endswith("# " + marker):
                return number
        raise AssertionError("no line marked %s" % marker)

    def on_line(self, frames: list[dict[str, Any]], line: int) -> bool:
        """Whether the innermost frame of the program in `frames` is at `line`."""
        mine = [f for f in frames if f["filename"] == self.run.script]
        return bool(mine) and mine[0]["line"] == line

    def allocs(self, marker: str) -> list[int]:
        line = self.line(marker)
        return sorted(e["size"] for e in self.trace if e["action"] == "alloc" and self.on_line(e["frames"], line))

    def frees(self, marker: str) -> list[int]:
        line = self.line(marker)
        return sorted(e["size"] for e in self.trace if e["action"] == "free_completed" and self.on_line(e["frames"], line))

    def assumptions(self, kind: str) -> list[dict[str, Any]]:
        return [a for a in self.snapshot["vram_lens"]["predicted"]["assumptions"] if a["kind"] == kind]

    def assumed_on(self, kind: str, marker: str) -> list[dict[str, Any]]:
        line = self.line(marker)
        return [a for a in self.assumptions(kind) if a["filename"] == self.run.script and a["line"] == line]

    def close(self) -> None:
        self.run.close()


@unittest.skipUnless(VERSION < (2, 0), "PyTorch older than 2.0 only")
class TooOld(unittest.TestCase):
    def test_says_so_and_runs_nothing(self) -> None:
        p = Predicted(
            """
            import torch
            open("ran", "w").close()
            """
        )
        try:
            self.assertEqual(p.run.code, 92, p.run.stderr)
            errors = p.run.of_type("error")
            self.assertEqual([e["code"] for e in errors], ["predict-unavailable"], p.run.stderr)
            self.assertIn("2.0", errors[0]["message"] + errors[0]["advice"])
            self.assertFalse(os.path.exists(os.path.join(p.run.dir, "ran")), "the program did not go on")
        finally:
            p.close()


@unittest.skipIf(VERSION < (2, 0), "Predict VRAM needs PyTorch 2.0 or newer")
class PredictPrograms(unittest.TestCase):
    """Programs of our own, each with the sizes its shapes give."""

    def predicted(self, source: str, capability: str = "8.0", extra: Sequence[str] = (), whole_run: bool = True) -> Predicted:
        p = Predicted(source, capability, extra)
        self.addCleanup(p.close)
        self.assertEqual(p.run.code, 0, p.run.stderr[-3000:])
        if whole_run:
            self.assertTrue(p.trace, "a trace was written")
        predicting = p.run.of_type("predicting")
        self.assertEqual(len(predicting), 1, p.run.records)
        self.assertEqual(predicting[0]["gpu"], "Test GPU")
        return p

    def test_cnn_with_batchnorm(self) -> None:
        p = self.predicted(
            """
            import torch, torch.nn as nn
            model = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.Flatten(), nn.Linear(16 * 8 * 8, 10))
            model = model.cuda()  # move
            x = torch.randn(4, 3, 8, 8, device="cuda")  # input
            out = model(x)  # forward
            out.sum().backward()  # backward
            assert next(model.parameters()).device.type == "cuda"
            """
        )
        f32 = 4
        params = [16 * 3 * 3 * 3 * f32, 16 * f32, 16 * f32, 16 * f32, 10 * 16 * 8 * 8 * f32, 10 * f32]
        buffers = [16 * f32, 16 * f32, 8]  # running_mean, running_var, num_batches_tracked (int64)
        self.assertEqual(p.allocs("move"), sorted(params + buffers))
        self.assertEqual(p.allocs("input"), [4 * 3 * 8 * 8 * f32])
        forward = p.allocs("forward")
        conv = 4 * 16 * 8 * 8 * f32
        self.assertGreaterEqual(forward.count(conv), 3, "conv, batch norm and ReLU outputs: %s" % forward)
        self.assertIn(4 * 10 * f32, forward, "the linear layer's output")
        grads = p.allocs("backward")
        for size in params:
            self.assertIn(size, grads, "a gradient of every parameter's size: %s" % grads)

    def test_lstm(self) -> None:
        p = self.predicted(
            """
            import torch, torch.nn as nn
            lstm = nn.LSTM(input_size=32, hidden_size=64, num_layers=2, batch_first=True).cuda()  # move
            x = torch.randn(8, 20, 32, device="cuda")
            out, (h, c) = lstm(x)  # forward
            out.sum().backward()
            """
        )
        f32 = 4
        weights = [4 * 64 * 32 * f32, 4 * 64 * 64 * f32, 4 * 64 * f32, 4 * 64 * f32, 4 * 64 * 64 * f32, 4 * 64 * 64 * f32, 4 * 64 * f32, 4 * 64 * f32]
        self.assertEqual(p.allocs("move"), sorted(weights))
        forward = p.allocs("forward")
        self.assertIn(8 * 20 * 64 * f32, forward, "the output sequence")
        self.assertIn(2 * 8 * 64 * f32, forward, "the final hidden (and cell) state of both layers")
        self.assertTrue(p.assumed_on("cudnn", "forward"), "cuDNN's own buffers are named as not predicted")

    def test_attention_kernels_as_on_the_gpu(self) -> None:
        source = """
            import torch, torch.nn.functional as F
            q = torch.randn(2, 4, 128, {head}, device="cuda", dtype=torch.float16)
            mask = {mask}
            o = F.scaled_dot_product_attention(q, q, q, attn_mask=mask)  # sdpa
            """
        fp16, f32 = 2, 4
        flash = self.predicted(source.format(head=64, mask="None"), capability="8.0")
        self.assertIn(2 * 4 * 128 * 64 * fp16, flash.allocs("sdpa"), "the output")
        self.assertIn(2 * 4 * 128 * f32, flash.allocs("sdpa"), "flash attention's logsumexp")
        self.assertNotIn(2 * 4 * 128 * 128 * fp16, flash.allocs("sdpa"), "no attention matrix")
        self.assertIn("flash", flash.assumed_on("sdpa", "sdpa")[0]["message"])
        older = self.predicted(source.format(head=64, mask="None"), capability="7.5")  # a T4: no flash attention
        self.assertIn("memory-efficient", older.assumed_on("sdpa", "sdpa")[0]["message"])
        self.assertNotIn(2 * 4 * 128 * 128 * fp16, older.allocs("sdpa"))
        odd = self.predicted(source.format(head=36, mask="None"), capability="8.0")  # a head size no fused kernel takes
        self.assertIn("math", odd.assumed_on("sdpa", "sdpa")[0]["message"])
        self.assertTrue(any(s >= 2 * 4 * 128 * 128 * fp16 for s in odd.allocs("sdpa")), "the math kernel's attention matrix: %s" % odd.allocs("sdpa"))

    def test_multihead_attention(self) -> None:
        p = self.predicted(
            """
            import torch, torch.nn as nn
            mha = nn.MultiheadAttention(embed_dim=64, num_heads=4, batch_first=True).cuda()  # move
            x = torch.randn(2, 10, 64, device="cuda")
            out, weights = mha(x, x, x)  # attend
            out.sum().backward()
            """
        )
        f32 = 4
        self.assertEqual(p.allocs("move"), sorted([3 * 64 * 64 * f32, 3 * 64 * f32, 64 * 64 * f32, 64 * f32]))
        attend = p.allocs("attend")
        self.assertIn(2 * 10 * 64 * f32, attend, "the output")
        self.assertIn(2 * 10 * 10 * f32, attend, "the averaged attention weights")

    def test_gradient_sums_happen_in_place_even_when_transposed(self) -> None:
        p = self.predicted(
            """
            import torch
            q = torch.randn(4, 8, 64, 32, device="cuda", requires_grad=True)
            k = torch.randn(4, 8, 64, 32, device="cuda").transpose(-1, -2)  # dense, not contiguous
            t = q.transpose(-1, -2)
            y = (t * k).sum() + (t * k).sum()  # t's two gradients have k's layout
            y.backward()  # backward
            """,
            extra=["--stacks", "all"],
        )
        sums = [e for e in p.trace if e["action"] == "alloc" and any(f["name"].startswith("aten::add") for f in e["frames"])
                and any("autograd" in f["name"] for f in e["frames"])]
        # PyTorch sums two gradients into one when the first is dense and nobody else holds it (a transposed
        # gradient is dense): no buffer is allocated for the sum.
        self.assertEqual(sums, [], "no gradient sum allocates")

    def test_activation_checkpointing_recomputes_in_backward(self) -> None:
        source = """
            import torch
            from torch.utils.checkpoint import checkpoint
            w1 = torch.randn(256, 1024, device="cuda", requires_grad=True)
            w2 = torch.randn(1024, 256, device="cuda", requires_grad=True)
            x = torch.randn(64, 256, device="cuda", requires_grad=True)
            def block(x):
                return torch.relu(x @ w1) @ w2  # inner
            y = {call}
            y.sum().backward()
            """
        hidden = 64 * 1024 * 4
        plain = self.predicted(source.format(call="block(x)"))
        checkpointed = self.predicted(source.format(call="checkpoint(block, x, use_reentrant=False)"))
        self.assertEqual(plain.allocs("inner").count(hidden), 2, "x @ w1 and its ReLU, once: %s" % plain.allocs("inner"))
        self.assertEqual(checkpointed.allocs("inner").count(hidden), 4, "again in backward: %s" % checkpointed.allocs("inner"))

    def test_autocast_and_grad_scaler(self) -> None:
        p = self.predicted(
            """
            import torch, torch.nn as nn
            model = nn.Linear(512, 256).cuda()
            opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
            scaler = torch.cuda.amp.GradScaler()
            x = torch.randn(32, 512, device="cuda")
            for step in range(2):
                with torch.autocast("cuda", dtype=torch.float16):
                    loss = model(x).float().square().mean()  # forward
                scaler.scale(loss).backward()
                scaler.step(opt)  # step
                scaler.update()
                opt.zero_grad()
            """
        )
        fp16 = 2
        forward = p.allocs("forward")
        self.assertIn(256 * 512 * fp16, forward, "the weight cast to float16 for the matmul")
        self.assertIn(32 * 512 * fp16, forward, "the input cast to float16")
        self.assertIn(32 * 256 * fp16, forward, "the float16 output")
        self.assertIn(256 * 512 * 4, p.allocs("step"), "the momentum buffer: the step ran")
        self.assertTrue(p.assumed_on("value", "step"), "the scaler's finite-gradient check is named: %s" % p.assumptions("value"))

    def test_zero_grad_with_and_without_set_to_none(self) -> None:
        source = """
            import torch, torch.nn as nn
            model = nn.Linear(1024, 1024, bias=False).cuda()
            opt = torch.optim.SGD(model.parameters(), lr=0.1)
            x = torch.randn(8, 1024, device="cuda")
            model(x).sum().backward()
            opt.step()
            opt.zero_grad(set_to_none={value})  # zero
            """
        grad = 1024 * 1024 * 4
        to_none = self.predicted(source.format(value="True"))
        kept = self.predicted(source.format(value="False"))
        self.assertEqual(to_none.frees("zero"), [grad], "the gradient is freed where it is set to None")
        self.assertEqual(kept.frees("zero"), [], "zeroed in place: nothing freed")
        self.assertEqual(kept.allocs("zero"), [], "nor allocated")

    def test_no_grad_and_inference_mode_keep_no_activations(self) -> None:
        source = """
            import torch
            w = [torch.randn(512, 512, device="cuda", requires_grad=True) for _ in range(3)]
            x = torch.randn(64, 512, device="cuda")
            {context}
                y = torch.einsum("ij,jk->ik", torch.relu(torch.einsum("ij,jk->ik", x, w[0])), w[1])  # forward
            """
        activation = 64 * 512 * 4
        for context in ("with torch.no_grad():", "with torch.inference_mode():", "if True:"):
            p = self.predicted(source.format(context=context))
            allocated = p.allocs("forward").count(activation)
            freed = p.frees("forward").count(activation)
            self.assertEqual(allocated, 3, "%s: two products and a ReLU: %s" % (context, p.allocs("forward")))
            if context == "if True:":
                self.assertLessEqual(freed, 1, "with grad, the ReLU's input and output are kept for backward")
            else:
                self.assertEqual(freed, 2, "%s: only the result stays" % context)

    def test_foreach_and_fused_optimizers(self) -> None:
        source = """
            import torch, torch.nn as nn
            model = nn.Sequential(nn.Linear(256, 512), nn.Linear(512, 128)).cuda()
            opt = torch.optim.AdamW(model.parameters(), {kind}=True)
            model(torch.randn(4, 256, device="cuda")).sum().backward()
            opt.step()  # step
            """
        f32 = 4
        params = [512 * 256 * f32, 512 * f32, 128 * 512 * f32, 128 * f32]
        fused = self.predicted(source.format(kind="fused"))
        self.assertEqual(sorted(s for s in fused.allocs("step") if s > 4), sorted(params * 2), "exp_avg and exp_avg_sq, nothing more")
        self.assertEqual([s for s in fused.allocs("step") if s <= 4], [4] * 4, "fused keeps each step count on the GPU")
        foreach = self.predicted(source.format(kind="foreach"))
        states = sorted(params * 2)
        step = foreach.allocs("step")
        for size in states:
            self.assertIn(size, step)
        self.assertGreater(sum(step), sum(states), "foreach makes temporaries of the parameters' sizes")

    def test_values_and_sizes_from_data_are_assumed_on_their_lines(self) -> None:
        p = self.predicted(
            """
            import torch
            x = torch.randn(100, device="cuda")
            n = int((x > 0).sum().item())  # count
            y = torch.empty(n, 10, device="cuda")  # use
            z = x[x > 0]  # mask
            while x.max().item() > 5:  # loop
                x = x * 0.5
            """
        )
        self.assertTrue(p.assumed_on("value", "count"))
        self.assertEqual(p.allocs("use"), [1 * 10 * 4], "the count read as 1")
        self.assertTrue(p.assumed_on("size", "mask"))
        mask = p.allocs("mask")
        self.assertIn(100 * 1 * 8, mask, "every element assumed selected: the indices")
        self.assertIn(100 * 4, mask, "and the values")
        self.assertTrue(p.assumed_on("value", "loop"), "the loop's condition is named")

    def test_with_real_data_the_program_reads_its_own_values(self) -> None:
        """--predict-data cpu: each fake storage has a CPU twin, so the program's reads give its own values; the
        reference is the same program run by this interpreter on plain CPU tensors, outside the bootstrap."""
        source = """
            import torch
            DEVICE = "cuda"
            torch.manual_seed(0)
            x = torch.arange(10, device=DEVICE, dtype=torch.float32)
            n = int((x > 4.5).sum().item())  # count
            blocks = [torch.empty(256 * (i + 1), device=DEVICE) for i in range(n)]  # blocks
            picked = x[x > 6.5]  # mask
            u = torch.unique(torch.tensor([1, 1, 2, 3, 3, 3], device=DEVICE))  # unique
            same = torch.equal(u, torch.tensor([1, 2, 3], device=DEVICE))
            repeated = torch.repeat_interleave(torch.tensor([1, 2, 3], device=DEVICE))  # repeated
            halvings = 0
            while x.max().item() > 1:  # loop
                x = x * 0.5
                halvings += 1
            model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1)).to(DEVICE)
            opt = torch.optim.AdamW(model.parameters(), lr=0.05)
            data = torch.randn(32, 8).to(DEVICE)
            losses = []
            for step in range(3):
                loss = ((model(data) - 1) ** 2).mean()
                loss.backward()
                opt.step()
                opt.zero_grad()
                losses.append(round(loss.item(), 4))
            print("values", n, picked.tolist(), u.tolist(), same, repeated.tolist(), halvings, losses)
            """
        p = self.predicted(source, extra=["--predict-data", "cpu"])
        reference = subprocess.run([sys.executable, "-c", textwrap.dedent(source).replace('DEVICE = "cuda"', 'DEVICE = "cpu"')],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
        expected = [line for line in reference.stdout.decode().splitlines() if line.startswith("values")]
        self.assertEqual(len(expected), 1, reference.stderr.decode()[-2000:])
        self.assertTrue(expected[0].startswith("values 5 [7.0, 8.0, 9.0] [1, 2, 3] True [0, 1, 1, 2, 2, 2] 4 ["), expected)
        self.assertEqual([line for line in p.run.stdout.splitlines() if line.startswith("values")], expected, p.run.stderr[-3000:])
        self.assertEqual(p.allocs("blocks"), [1024 * (i + 1) for i in range(5)], "five blocks, as the data says")
        self.assertEqual(p.allocs("repeated")[-1:], [6 * 8], "six indices")
        self.assertEqual(sorted(p.allocs("mask"))[-2:], [3 * 4, 3 * 8], "three indices and three values selected")
        self.assertEqual(p.assumptions("value") + p.assumptions("size"), [], "nothing assumed")
        self.assertEqual(p.snapshot["vram_lens"]["predicted"]["data"], "cpu")
        predicting = p.run.of_type("predicting")
        self.assertEqual(predicting[0]["data"], "cpu")

    def test_an_answer_from_data_is_assumed_or_stops_the_fake_run_saying_how_to_follow_it(self) -> None:
        p = self.predicted(
            """
            import torch
            a = torch.arange(4, device="cuda")
            print("equal", torch.equal(a, a + 1))  # equal
            """
        )
        self.assertIn("equal True", p.run.stdout)
        self.assertEqual(len(p.assumed_on("value", "equal")), 1, p.snapshot.get("vram_lens"))
        q = Predicted(
            """
            import torch
            r = torch.repeat_interleave(torch.tensor([1, 2, 3], device="cuda"))  # repeat
            """
        )
        self.addCleanup(q.close)
        self.assertEqual(q.run.code, 1, q.run.stderr[-2000:])
        self.assertIn("depends on the tensors' data", q.run.stderr)
        named = q.assumed_on("unsupported", "repeat")
        self.assertEqual(len(named), 1, q.snapshot.get("vram_lens"))
        self.assertIn("--data cpu", named[0]["message"])

    def test_pinned_host_memory_is_a_copy_on_the_host(self) -> None:
        """pin_memory() (a DataLoader's pin_memory=True) has no fake kernel; it is a host copy, nothing on the GPU."""
        source = """
            import torch
            from torch.utils.data import DataLoader, TensorDataset
            ds = TensorDataset(torch.arange(32, dtype=torch.float32).reshape(16, 2))
            total = 0.0
            for (batch,) in DataLoader(ds, batch_size=4, pin_memory=True):
                total += batch.cuda(non_blocking=True).sum().item()  # batch
            print("total", total)
            """
        fake = self.predicted(source)
        self.assertEqual(fake.allocs("batch"), [4] * 4 + [4 * 2 * 4] * 4, "each batch (4 x 2 floats) and its sum on the GPU, nothing pinned")
        real = self.predicted(source, extra=["--predict-data", "cpu"])
        self.assertIn("total 496.0", real.run.stdout, real.run.stderr[-2000:])  # 0 + 1 + ... + 31

    def test_with_real_data_attention_kernels_compute_their_values(self) -> None:
        """Flash and memory-efficient attention have no CPU kernel: their forward and backward are computed as the
        math kernel computes them, compared here with PyTorch's own math attention on CPU tensors."""
        source = """
            import torch
            DEVICE = "cuda"
            torch.manual_seed(0)
            for dtype in (torch.bfloat16, torch.float32):
                q, k, v = (torch.randn(2, 3, 16, 32).to(DEVICE, dtype).requires_grad_() for _ in range(3))
                out = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
                (out.float() ** 2).sum().backward()
                print("values", [round(t.float().abs().sum().item(), 1) for t in (out, q.grad, k.grad, v.grad)])
            """
        reference = subprocess.run([sys.executable, "-c", textwrap.dedent(source).replace('DEVICE = "cuda"', 'DEVICE = "cpu"')],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
        expected = [[float(v) for v in line[8:-1].split(", ")] for line in reference.stdout.decode().splitlines() if line.startswith("values")]
        self.assertEqual(len(expected), 2, reference.stderr.decode()[-2000:])
        for capability, kernel in (("8.0", "flash attention"), ("7.5", "memory-efficient attention")):
            p = self.predicted(source, capability=capability, extra=["--predict-data", "cpu"])
            self.assertIn(kernel, " ".join(a["message"] for a in p.assumptions("sdpa")))
            got = [[float(v) for v in line[8:-1].split(", ")] for line in p.run.stdout.splitlines() if line.startswith("values")]
            self.assertEqual(len(got), 2, p.run.stderr[-3000:])
            for mine, theirs in zip(got, expected):
                for a, b in zip(mine, theirs):
                    self.assertAlmostEqual(a, b, delta=0.01 * abs(b) + 0.2, msg="%s: %s against %s" % (capability, got, expected))
            self.assertEqual(p.assumptions("value"), [], "every value computed")

    def test_a_custom_operator_without_a_fake_implementation_is_named(self) -> None:
        p = Predicted(
            """
            import torch
            lib = torch.library.Library("vltest", "DEF")
            lib.define("scale(Tensor x) -> Tensor")
            lib.impl("scale", lambda x: x * 2, "CUDA")
            x = torch.randn(10, device="cuda")
            y = torch.ops.vltest.scale(x)  # custom
            """
        )
        self.addCleanup(p.close)
        self.assertEqual(p.run.code, 1, p.run.stderr[-2000:])
        self.assertIn("vltest", p.run.stderr)
        self.assertIn("register_fake", p.run.stderr)
        named = p.assumed_on("unsupported", "custom")
        self.assertEqual(len(named), 1, p.snapshot.get("vram_lens"))
        self.assertIn("vltest", named[0]["message"])

    def test_compile_runs_eagerly_and_says_so(self) -> None:
        p = self.predicted(
            """
            import torch
            f = torch.compile(lambda x: torch.relu(x) * 2)  # compile
            y = f(torch.randn(16, device="cuda"))
            """
        )
        self.assertTrue(p.assumed_on("compile", "compile"))

    def test_the_programs_own_window_and_dumps(self) -> None:
        p = self.predicted(
            """
            import torch
            keep = torch.empty(1000, device="cuda")  # before
            torch.cuda.memory._record_memory_history(max_entries=100000)
            a = torch.empty(2000, device="cuda")  # inside
            torch.cuda.memory._dump_snapshot("first.pickle")
            b = torch.empty(3000, device="cuda")
            torch.cuda.memory._dump_snapshot("second.pickle")
            print(torch.cuda.max_memory_allocated())
            """,
            whole_run=False,
        )
        dumped = [r for r in p.run.of_type("dumped")]
        self.assertEqual([os.path.basename(r["path"]) for r in dumped], ["first.pickle", "second.pickle"], p.run.records)
        self.assertFalse(os.path.exists(p.run.snapshot), "the whole-run file is not written when the program dumps its own")
        with open(os.path.join(p.run.dir, "first.pickle"), "rb") as f:
            first = pickle.load(f)
        trace = first["device_traces"][0]
        self.assertEqual([e["size"] for e in trace if e["action"] == "alloc"], [8000], "only what the window saw")
        history = first["vram_lens"]["predicted"]["history"]
        self.assertEqual(history[1::2], [4000], "the block before the window, in the history")
        before = [b for s in first["segments"] for b in s["blocks"] if b["requested_size"] == 4000]
        self.assertEqual(len(before), 1)
        self.assertEqual(before[0]["frames"], [], "a block allocated before recording has no stack, as PyTorch writes it")
        self.assertEqual(p.run.stdout.strip(), str(4096 + 8192 + 12288), "max_memory_allocated counts rounded blocks")


if __name__ == "__main__":
    unittest.main()
