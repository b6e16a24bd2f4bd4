"""The native piece of a prediction: fakecuda.cpp, built once per PyTorch and loaded into the program's process.

A CPU-only PyTorch refuses fake 'cuda' tensors (no CUDA device guard, no CUDA hooks); a CUDA build on a machine
without a GPU has both, but they ask the driver. The library gives a guard that does nothing and hooks that report
one device. PyTorch looks its hooks up once, while it is imported, so the library is loaded before the program
imports torch; in a CUDA build, after PyTorch's own CUDA libraries (its guard then replaces theirs, and its hooks,
of a higher priority, replace theirs in the registry).

- ``find_torch()``: where the interpreter's torch is, its version and whether it was built with CUDA, without
  importing it (None when there is none).
- ``prepare(cache, torch)``: the library for that PyTorch, from the cache or built now (in a child process,
  nativebuild.py, with PyTorch's ``torch.utils.cpp_extension``); raises ``PredictUnavailable`` saying what is
  missing (a compiler, PyTorch's C++ headers).
- ``load(library)``: before ``import torch``.
- ``default_cache()``: the user's cache folder for VRAM Lens (outside every project).
"""
from __future__ import annotations

import ctypes
import hashlib
import importlib.util
import os
import re
import subprocess
import sys
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "fakecuda.cpp")
BUILDER = os.path.join(HERE, "nativebuild.py")


class PredictUnavailable(Exception):
    """A prediction cannot run in this environment: what is missing and what to do (plain sentences)."""

    def __init__(self, message: str, advice: str) -> None:
        super().__init__(message)
        self.message = message
        self.advice = advice


class TorchInstall:
    """A torch package found on the path (not imported)."""

    def __init__(self, folder: str, version: str, cuda_libraries: list[str], core_library: str | None) -> None:
        self.folder = folder
        self.version = version
        self.cuda_libraries = cuda_libraries  # a CUDA build's: c10's, then torch's
        self.core_library = core_library

    @property
    def cuda_build(self) -> bool:
        return bool(self.cuda_libraries)


class NativeLibrary:
    """The built library, and PyTorch's own CUDA libraries to load before it (a CUDA build's)."""

    def __init__(self, path: str, cuda_libraries: list[str]) -> None:
        self.path = path
        self.cuda_libraries = cuda_libraries


_LIBRARY_NAMES = {
    "core": ("libtorch_cpu.so", "libtorch_cpu.dylib", "torch_cpu.dll"),
    "cuda": ("libc10_cuda.so", "c10_cuda.dll", "libtorch_cuda.so", "torch_cuda.dll"),
}


def find_torch() -> TorchInstall | None:
    """The interpreter's torch package, found as `import torch` would find it, without importing it."""
    try:
        spec = importlib.util.find_spec("torch")
    except (ImportError, ValueError):
        return None
    if spec is None or spec.origin is None:
        return None
    folder = os.path.dirname(os.path.abspath(spec.origin))
    version = "unknown"
    try:
        with open(os.path.join(folder, "version.py"), encoding="utf-8") as f:
            found = re.search(r"""__version__\s*=\s*['"]([^'"]+)['"]""", f.read())
        if found:
            version = found.group(1)
    except OSError:
        pass
    lib = os.path.join(folder, "lib")
    present = set(os.listdir(lib)) if os.path.isdir(lib) else set()
    core = next((os.path.join(lib, n) for n in _LIBRARY_NAMES["core"] if n in present), None)
    cuda = [os.path.join(lib, n) for n in _LIBRARY_NAMES["cuda"] if n in present]
    return TorchInstall(folder, version, cuda, core)


def default_cache() -> str:
    """Where VRAM Lens keeps what it builds: the platform's per-user cache folder."""
    if os.name == "nt":
        base = os.environ.get("LOCALAPPDATA") or os.path.expanduser("~")
        return os.path.join(base, "vram-lens", "cache")
    if sys.platform == "darwin":
        return os.path.join(os.path.expanduser("~"), "Library", "Caches", "vram-lens")
    return os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "vram-lens")


def library_path(cache: str, torch: TorchInstall) -> str:
    """The cached library for this PyTorch: keyed by our source, its version and its core library's file."""
    key = hashlib.sha256()
    with open(SOURCE, "rb") as f:
        key.update(f.read())
    key.update(("\0%s\0%s\0%s\0%s" % (torch.version, torch.cuda_build, sys.platform, torch.folder)).encode("utf-8"))
    if torch.core_library is not None:
        stat = os.stat(torch.core_library)
        key.update(("\0%d\0%d" % (stat.st_size, int(stat.st_mtime))).encode("utf-8"))
    safe_version = re.sub(r"[^A-Za-z0-9.+-]", "_", torch.version)[:40]
    name = "vram_lens_fakecuda.dll" if os.name == "nt" else "libvram_lens_fakecuda.so"
    return os.path.join(cache, "native", "torch-%s-%s" % (safe_version, key.hexdigest()[:16]), name)


def prepare(cache: str, torch: TorchInstall) -> NativeLibrary:
    """The library for `torch`, built now when the cache has none. Raises PredictUnavailable."""
    path = library_path(cache, torch)
    if os.path.isfile(path):
        return NativeLibrary(path, torch.cuda_libraries)
    sys.stderr.write("VRAM Lens: building the prediction library for PyTorch %s (once; cached in %s)...\n" % (torch.version, os.path.dirname(path)))
    sys.stderr.flush()
    command = [sys.executable, BUILDER, SOURCE, path]
    try:
        done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError as e:
        raise PredictUnavailable("Could not start %s to build the prediction library: %s." % (sys.executable, e), "")
    output = done.stderr.decode("utf-8", "replace").strip()
    if done.returncode == 0 and os.path.isfile(path):
        return NativeLibrary(path, torch.cuda_libraries)
    if done.returncode == 2:
        raise PredictUnavailable(
            "Predict VRAM builds a small C++ library once per PyTorch version, and no C++ compiler was found.",
            "Install one (Debian/Ubuntu: apt install g++; macOS: xcode-select --install; Windows: Visual Studio Build "
            "Tools and `pip install ninja`), or set CXX, then predict again.",
        )
    if done.returncode == 3:
        raise PredictUnavailable(
            "Predict VRAM builds a small C++ library once per PyTorch version, and PyTorch %s in %s has no C++ headers."
            % (torch.version, torch.folder),
            "Install PyTorch's headers (Debian/Ubuntu's python3-torch: apt install libtorch-dev; pip wheels include "
            "them), then predict again.",
        )
    raise PredictUnavailable(
        "Could not build the prediction library for PyTorch %s: %s" % (torch.version, output[-1500:] or "the builder failed"),
        "Check that the C++ compiler works with PyTorch's extensions (torch.utils.cpp_extension).",
    )


def load(library: NativeLibrary) -> Any:
    """Loads the library into this process before `import torch` (its symbols global, as PyTorch's own are); a
    CUDA build's libraries first. Raises PredictUnavailable when PyTorch's own cannot be loaded here."""
    mode = getattr(ctypes, "RTLD_GLOBAL", 0)
    for cuda in library.cuda_libraries:
        try:
            ctypes.CDLL(cuda, mode=mode)
        except OSError as e:
            raise PredictUnavailable("PyTorch's CUDA library %s could not be loaded: %s." % (cuda, e), "Check that `import torch` works in this environment.")
    return ctypes.CDLL(library.path, mode=mode)


def check_loaded(handle: Any, torch_version: str) -> None:
    """After `import torch`: its CUDA hooks must be ours, or PyTorch looked them up before we came."""
    if not handle.vram_lens_cuda_reported():
        raise PredictUnavailable(
            "PyTorch %s was imported before Predict VRAM could prepare it (by a sitecustomize or .pth file)." % torch_version,
            "Run the program without the module that imports torch at start-up.",
        )
