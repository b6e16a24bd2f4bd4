"""Runs cells in a real Jupyter kernel (ipykernel, started by jupyter_client) and reports what the kernel
did with them, for the notebook tests (test/notebook/kernel.test.ts)::

    python3 test/notebook/kernel_driver.py JOB.json RESULT.json

JOB.json: ``{"cells": [source, ...], "cwd": DIR, "env": {NAME: VALUE}, "timeout": SECONDS}``. Each source is
sent to the kernel exactly as given (an execute_request, as a frontend sends a cell). RESULT.json: per cell its
reply status, execution count, stdout/stderr text, displayed result (text/plain) and error; ``names``: every file name the kernel's compiler
gave code it ran (``get_ipython().compile._filename_map``: name -> execution count), asked after the cells;
and the versions of ipykernel, IPython and Python the kernel ran.
"""
from __future__ import annotations

import importlib
import json
import os
import queue
import sys
from typing import Any

PROBE = (
    "import json as _j, sys as _s, IPython as _I, ipykernel as _k\n"
    "print('VRAM-LENS-PROBE' + _j.dumps({'names': dict(get_ipython().compile._filename_map), "
    "'ipykernel': _k.__version__, 'ipython': _I.__version__, 'python': _s.version.split()[0]}))\n"
)


def run_cell(client: Any, source: str, timeout: float) -> dict[str, Any]:
    """Executes one cell; collects its stream output and error until the kernel is idle again."""
    msg_id = client.execute(source, store_history=True, allow_stdin=False)
    out: dict[str, Any] = {"stdout": "", "stderr": "", "error": None, "result": None}
    while True:
        try:
            msg = client.get_iopub_msg(timeout=timeout)
        except queue.Empty:
            raise RuntimeError("the kernel did not answer within %s s" % timeout)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        kind = msg["msg_type"]
        content = msg["content"]
        if kind == "stream":
            out[content["name"]] += content["text"]
        elif kind == "execute_result":
            out["result"] = content["data"].get("text/plain")
        elif kind == "error":
            out["error"] = {"ename": content["ename"], "evalue": content["evalue"], "traceback": content["traceback"]}
        elif kind == "status" and content["execution_state"] == "idle":
            break
    while True:
        reply = client.get_shell_msg(timeout=timeout)
        if reply["parent_header"].get("msg_id") == msg_id:
            break
    out["status"] = reply["content"]["status"]
    out["executionCount"] = reply["content"].get("execution_count")
    return out


def main(argv: list[str]) -> int:
    with open(argv[1], encoding="utf-8") as f:
        job = json.load(f)
    timeout = float(job.get("timeout", 60))
    env = dict(os.environ)
    env["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"  # the kernel's debugger would warn about frozen modules on stderr
    env.update(job.get("env", {}))
    # jupyter_client's own annotations differ between the versions this runs on (7.4 to 8.8): used untyped.
    manager: Any = importlib.import_module("jupyter_client.manager").KernelManager(kernel_name="python3")
    manager.start_kernel(env=env, cwd=job.get("cwd") or os.getcwd())
    client: Any = manager.client()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=timeout)
        cells = [run_cell(client, source, timeout) for source in job["cells"]]
        probe = run_cell(client, PROBE, timeout)
        marker = "VRAM-LENS-PROBE"
        line = next((ln for ln in probe["stdout"].splitlines() if ln.startswith(marker)), None)
        if line is None:
            raise RuntimeError("the probe printed nothing: %r" % probe)
        result = {"cells": cells, **json.loads(line[len(marker):])}
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    with open(argv[2], "w", encoding="utf-8") as f:
        json.dump(result, f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
