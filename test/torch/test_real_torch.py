"""The bootstrap against a real PyTorch (Debian's CPU-only builds: 1.13.1, 2.6.0, 2.14.1; see
scripts/setup-torch.sh and scripts/test-torch.mjs). Run with the interpreter that has that torch:

    python3 -m unittest discover -s test/torch -p 'test_*.py'

Expected values come from the real modules (inspect) and from PyTorch's own profiler, never from the bootstrap.
"""
import importlib
import importlib.util
import inspect
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import textwrap
import threading
import unittest
from types import ModuleType
from typing import Any, Sequence

HERE = os.path.dirname(os.path.abspath(__file__))
SRC_PYTHON = os.path.join(HERE, "..", "..", "src", "python")
BOOTSTRAP = os.path.join(SRC_PYTHON, "vram_lens", "__main__.py")

import torch  # noqa: E402  (this suite is about a real torch; untyped here: see setup.cfg)

VERSION = tuple(int(p) for p in torch.__version__.split("+")[0].split(".")[:2])


def load_recording() -> ModuleType:
    """The bootstrap's recording-form module (vram_lens.recording), imported without writing bytecode."""
    sys.path.insert(0, SRC_PYTHON)
    writes_bytecode, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        return importlib.import_module("vram_lens.recording")
    finally:
        sys.dont_write_bytecode = writes_bytecode
        sys.path.remove(SRC_PYTHON)


class Run(object):
    """The bootstrap run on a script, with its channel records collected."""

    def __init__(self, source: str, args: Sequence[str] = (), env: dict[str, str] | None = None, options: Sequence[str] = ()) -> None:
        self.dir = tempfile.mkdtemp(prefix="vl-real-torch-")
        self.script = os.path.join(self.dir, "program.py")
        with open(self.script, "w") as f:
            f.write(textwrap.dedent(source))
        self.snapshot = os.path.join(self.dir, "snapshot.pickle")
        address = os.path.join(self.dir, "channel.sock")
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(address)
        server.listen(4)
        chunks: list[bytes] = []

        def accept() -> None:
            try:
                connection, _ = server.accept()
            except OSError:
                return
            with connection:
                while True:
                    data = connection.recv(65536)
                    if not data:
                        break
                    chunks.append(data)

        reader = threading.Thread(target=accept, daemon=True)
        reader.start()
        environment = dict(os.environ)
        environment.update(env or {})
        command = [sys.executable, BOOTSTRAP, "--snapshot", self.snapshot, "--channel", address]
        command += list(options) + ["--script", self.script, "--"] + list(args)
        done = subprocess.run(command, cwd=self.dir, env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
        reader.join(10)
        server.close()
        self.code = done.returncode
        self.stdout = done.stdout.decode("utf-8", "replace")
        self.stderr = done.stderr.decode("utf-8", "replace")
        self.records: list[dict[str, Any]] = [json.loads(line) for line in b"".join(chunks).decode("utf-8").splitlines() if line]

    def output(self, name: str) -> Any:
        with open(os.path.join(self.dir, name)) as f:
            return json.load(f)

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        return [r for r in self.records if r.get("type") == kind]

    def close(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)


class RecordingApi(unittest.TestCase):
    """What the bootstrap calls, checked against the signatures the real modules define."""

    def setUp(self) -> None:
        self.recording = load_recording()

    def test_recording_form_matches_the_real_signature(self) -> None:
        parameters = inspect.signature(torch.cuda.memory._record_memory_history).parameters
        form = self.recording.recording_form(torch)
        if VERSION < (2, 0):
            self.assertEqual(list(parameters), ["enabled", "device"])
            self.assertIsNone(form)
            return
        self.assertEqual(form, "2.1" if VERSION >= (2, 1) else "2.0")
        args, kwargs = self.recording.recording_arguments(torch, form, 1000000, "python")
        inspect.signature(torch.cuda.memory._record_memory_history).bind(*args, **kwargs)  # raises if it does not fit
        self.assertEqual(kwargs["enabled"], "all")
        self.assertEqual(kwargs.get("global_record_annotations"), True if "global_record_annotations" in parameters else None)
        self.assertEqual(kwargs.get("compile_context"), True if "compile_context" in parameters else None)

    def test_lazy_call_and_snapshot_exist_as_used(self) -> None:
        self.assertIn("callable", inspect.signature(torch.cuda._lazy_call).parameters)
        self.assertFalse(torch.cuda.is_initialized())
        snapshot = inspect.signature(torch.cuda.memory._snapshot).parameters
        self.assertIn("device", snapshot)
        if VERSION >= (2, 0):
            self.assertTrue(hasattr(torch._C, "_set_multithreading_enabled"))
            self.assertTrue(hasattr(torch.autograd.graph.Node, "register_prehook"))
            self.assertTrue(hasattr(torch.nn.modules.module, "register_module_forward_pre_hook"))


PROGRAM_SETTINGS = """
    import json, os, sys
    first = {"torch_imported_before_us": "torch" in sys.modules}
    os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True"
    os.environ["CUDA_VISIBLE_DEVICES"] = "1"
    import torch
    first["cuda_initialized_after_import"] = torch.cuda.is_initialized()
    first["alloc_conf"] = os.environ.get("PYTORCH_CUDA_ALLOC_CONF")
    first["visible"] = os.environ.get("CUDA_VISIBLE_DEVICES")
    first["multithreading"] = torch._C._is_multithreading_enabled() if hasattr(torch._C, "_is_multithreading_enabled") else None
    json.dump(first, open("seen.json", "w"))
    print("program ran")
"""


class ImportOrder(unittest.TestCase):
    def test_the_program_imports_torch_itself_and_nothing_touched_cuda_first(self) -> None:
        run = Run(PROGRAM_SETTINGS)
        self.addCleanup(run.close)
        self.assertEqual(run.code, 0, run.stderr)
        seen = run.output("seen.json")
        self.assertEqual(seen["torch_imported_before_us"], False)
        self.assertEqual(seen["cuda_initialized_after_import"], False)
        self.assertEqual([seen["alloc_conf"], seen["visible"]], ["expandable_segments:True", "1"])
        self.assertIn("program ran", run.stdout)


class Unrecordable(unittest.TestCase):
    """Too old (1.13) or CPU-only (every Debian build): a clear message, and the program still runs."""

    def test_runs_unrecorded_with_one_clear_message(self) -> None:
        run = Run(PROGRAM_SETTINGS)
        self.addCleanup(run.close)
        self.assertEqual(run.code, 0, run.stderr)
        errors = run.of_type("error")
        self.assertEqual(len(errors), 1, run.records)
        if VERSION < (2, 0):
            self.assertEqual(errors[0]["code"], "no-recording-api")
            self.assertIn("cannot record memory history", run.stderr)
        else:
            self.assertEqual(errors[0]["code"], "no-cuda-build")
            self.assertIn("built without CUDA", run.stderr)
        self.assertNotIn("Traceback", run.stderr)
        end = run.of_type("end")
        self.assertEqual([(e["outcome"], e["code"], e["recorded"]) for e in end], [("completed", 0, False)])
        self.assertFalse(os.path.exists(run.snapshot))
        seen = run.output("seen.json")
        self.assertTrue(seen["multithreading"] in (None, True), "no instrumentation without recording")

    def test_the_program_exception_and_exit_code_are_its_own(self) -> None:
        run = Run("import torch\nraise KeyError('x')\n")
        self.addCleanup(run.close)
        self.assertEqual(run.code, 1)
        self.assertIn("KeyError: 'x'", run.stderr)
        self.assertNotRegex(run.stderr, r"vram_lens[\\/]|vram_lens_bootstrap", "no frame of the bootstrap's package")


PROGRAM_TRAIN = """
    import json, sys
    import torch
    from torch import nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.attn = nn.Linear(8, 8)
            self.act = nn.ReLU()
            self.mlp = nn.Linear(8, 8)

        def forward(self, x):
            x = self.attn(x)
            x = self.act(x)
            y = self.mlp(x)
            y.relu_()  # in place on a module output: full backward hooks would forbid this
            return y

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.Sequential(Block(), Block())
            self.head = nn.Linear(8, 1)

        def forward(self, x):
            return self.head(self.layers(x))

    def step(model, x):
        model.zero_grad()
        loss = model(x).sum()
        loss.backward()
        return [p.grad.clone() for p in model.parameters()]

    torch.manual_seed(0)
    model = Net()
    x = torch.randn(4, 8)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
        grads = step(model, x)
    events = [e for e in prof.events() if e.name.startswith("backward: ")]
    ranges = sorted(((e.time_range.start, -e.time_range.end, e.name) for e in events))
    out = {
        "ranges": [[name, start, -negative_end] for start, negative_end, name in ranges],
        "multithreading": torch._C._is_multithreading_enabled() if hasattr(torch._C, "_is_multithreading_enabled") else None,
        "grads": [g.sum().item() for g in grads],
    }
    json.dump(out, open(sys.argv[1], "w"))
"""


@unittest.skipIf(VERSION < (2, 0), "module ranges need PyTorch 2.0+ (recording does too)")
class BackwardRanges(unittest.TestCase):
    """Module backward ranges on CPU tensors, seen by PyTorch's own profiler (instrumentation forced on CPU)."""

    def test_ranges_nest_per_module_and_change_no_gradient(self) -> None:
        run = Run(PROGRAM_TRAIN, args=["out.json"], env={"VRAM_LENS_TEST_INSTRUMENT_CPU": "1"})
        self.addCleanup(run.close)
        self.assertEqual(run.code, 0, run.stderr)
        out = run.output("out.json")
        self.assertEqual(out["multithreading"], False, "backward runs on the calling thread")
        names = [r[0] for r in out["ranges"]]
        expected = [
            "backward: model",
            "backward: model.head",
            "backward: model.layers",
            "backward: model.layers.1",
            "backward: model.layers.1.mlp",
            "backward: model.layers.1.attn",
            "backward: model.layers.0",
            "backward: model.layers.0.mlp",
            "backward: model.layers.0.attn",
        ]
        self.assertEqual(names, expected, out["ranges"])
        spans = {r[0]: (r[1], r[2]) for r in out["ranges"]}
        for name, (start, end) in spans.items():
            parent = name.rsplit(".", 1)[0]
            if parent in spans and parent != name:
                self.assertTrue(spans[parent][0] <= start and end <= spans[parent][1], (name, parent, spans))
        self.assertLessEqual(spans["backward: model.head"][1], spans["backward: model.layers.1"][0], "head before layers")
        reference = Run(PROGRAM_TRAIN, args=["ref.json"], options=("--backward-lines", "off"),
                        env={"VRAM_LENS_TEST_INSTRUMENT_CPU": "1"})
        self.addCleanup(reference.close)
        ref = reference.output("ref.json")
        self.assertEqual(ref["ranges"], [])
        self.assertEqual(ref["grads"], out["grads"], "the same gradients, bit for bit")


class SimilaritySample(unittest.TestCase):
    """media/samples/similarity.py's three functions return the formula's value (media/samples/README.md says
    they agree to 1e-14 in float64 at B = 1 and 3). The expected value is the formula written out here,
    -|mk_m - qk_q|^2 weighted by qe, times ms / sqrt(C), by broadcasting: no function of the sample."""

    def test_the_three_variants_compute_the_formula(self) -> None:
        spec = importlib.util.spec_from_file_location("vl_similarity_sample", os.path.join(HERE, "..", "..", "media", "samples", "similarity.py"))
        assert spec is not None and spec.loader is not None
        sample = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sample)
        generator = torch.Generator().manual_seed(0)
        for batch in (1, 3):
            c, m, q = 8, 24, 16
            mk = torch.randn(batch, c, m, dtype=torch.float64, generator=generator)
            qk = torch.randn(batch, c, q, dtype=torch.float64, generator=generator)
            qe = torch.rand(batch, c, q, dtype=torch.float64, generator=generator)
            ms = torch.rand(batch, m, 1, dtype=torch.float64, generator=generator) + 1
            diff = mk.unsqueeze(3) - qk.unsqueeze(2)  # [B, C, M, Q]
            expected = -(qe.unsqueeze(2) * diff * diff).sum(1) * ms / (c ** 0.5)
            for name in ("similarity_eager", "similarity_cleanup", "similarity_inplace"):
                got = getattr(sample, name)(mk, ms, qk, qe)
                self.assertEqual(tuple(got.shape), (batch, m, q), name)
                self.assertLess((got - expected).abs().max().item(), 1e-12 * expected.abs().max().item(), "%s at B = %d" % (name, batch))


if __name__ == "__main__":
    unittest.main()
