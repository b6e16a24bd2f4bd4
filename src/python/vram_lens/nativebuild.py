"""Builds fakecuda.cpp into a shared library against the PyTorch of this interpreter, with PyTorch's own
``torch.utils.cpp_extension`` (its include and library folders, its C++ ABI flag, its compiler choice on
Windows). Run by nativecuda.py in a child process (it imports torch, which the program must import first in its
own process)::

    python nativebuild.py SOURCE OUTPUT

Exit 0: OUTPUT exists. Exit 2: no C++ compiler; 3: PyTorch's C++ headers are missing; 4: the compiler failed.
The last lines of the compiler's output go to stderr. The command is an argument list, never a shell string.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile

# Run as a file, Python put this folder first on the path: the torch this builds against is the program's.
if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)):
    del sys.path[0]

EXIT_NO_COMPILER = 2
EXIT_NO_HEADERS = 3
EXIT_COMPILE_FAILED = 4


def _posix_command(compiler: str, source: str, output: str) -> list[str]:
    import torch
    from torch.utils import cpp_extension

    abi = int(bool(getattr(torch._C, "_GLIBCXX_USE_CXX11_ABI", True)))
    command = [compiler, "-O1", "-shared", "-fPIC", "-w", "-D_GLIBCXX_USE_CXX11_ABI=%d" % abi]
    command += ["-I" + folder for folder in cpp_extension.include_paths()]
    command.append(source)
    for folder in cpp_extension.library_paths():
        command += ["-L" + folder, "-Wl,-rpath," + folder]
    command += ["-lc10", "-ltorch_cpu", "-o", output]
    if sys.platform == "darwin":
        command.insert(1, "-undefined")
        command.insert(2, "dynamic_lookup")
    return command


def _headers_present() -> bool:
    from torch.utils import cpp_extension

    return any(os.path.isfile(os.path.join(folder, "c10", "core", "impl", "FakeGuardImpl.h")) for folder in cpp_extension.include_paths())


def build(source: str, output: str) -> int:
    if not _headers_present():
        sys.stderr.write("PyTorch's C++ headers (c10/core/impl/FakeGuardImpl.h) are not installed with this PyTorch.\n")
        return EXIT_NO_HEADERS
    os.makedirs(os.path.dirname(output), exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".build-", dir=os.path.dirname(output))  # beside it: the rename stays on one file system
    partial = os.path.join(tmp, os.path.basename(output))
    try:
        if os.name == "nt":
            return _build_windows(source, output, tmp)
        compiler = os.environ.get("CXX") or shutil.which("c++") or shutil.which("g++") or shutil.which("clang++")
        if compiler is None or shutil.which(compiler) is None:
            sys.stderr.write("No C++ compiler was found (c++, g++ or clang++ on PATH, or $CXX).\n")
            return EXIT_NO_COMPILER
        last = ""
        for standard in ("-std=c++17", "-std=c++20"):  # PyTorch 2.0-2.9 build with C++17; newer headers may need C++20
            command = _posix_command(compiler, source, partial)
            command.insert(1, standard)
            done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            if done.returncode == 0:
                os.replace(partial, output)
                return 0
            last = done.stdout.decode("utf-8", "replace")
        sys.stderr.write("\n".join(last.strip().splitlines()[-20:]) + "\n")
        return EXIT_COMPILE_FAILED
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _build_windows(source: str, output: str, tmp: str) -> int:
    """On Windows, PyTorch's own extension builder (MSVC and ninja); the library is copied to OUTPUT."""
    from torch.utils import cpp_extension

    if not cpp_extension.is_ninja_available():
        sys.stderr.write("Building the prediction library on Windows needs ninja (pip install ninja) and MSVC.\n")
        return EXIT_NO_COMPILER
    try:
        built = cpp_extension.load(
            name="vram_lens_fakecuda",
            sources=[source],
            build_directory=tmp,
            is_python_module=False,
        )
    except Exception as e:
        sys.stderr.write("%s: %s\n" % (type(e).__name__, e))
        return EXIT_COMPILE_FAILED
    library = built if isinstance(built, str) else os.path.join(tmp, "vram_lens_fakecuda.dll")
    shutil.copyfile(library, output)
    return 0


if __name__ == "__main__":
    arguments = sys.argv[1:]
    sys.exit(build(arguments[0], arguments[1]))
