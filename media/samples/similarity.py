"""Similarity of an object tracker's memory read-out, three ways (a VRAM Lens sample).

A tracker with a memory (XMem / McByte style) compares memory keys `mk` [B, C, M] with query keys `qk`
[B, C, Q] under a selection `qe` [B, C, Q], scaled by a shrinkage `ms` [B, M, 1]: the negative squared
distance -|a - b|^2 = -a^2 + 2ab - b^2, an [B, M, Q] matrix that is by far the largest tensor here.

    python similarity.py --variant eager     # every [B, M, Q] intermediate is its own tensor, alive until return
    python similarity.py --variant cleanup   # del intermediates early and torch.cuda.empty_cache() between steps
    python similarity.py --variant inplace   # small tensors first, the similarity updated in place (baddbmm_: no a^2)

Profile each with "VRAM Lens: Profile VRAM" and compare the peaks (media/samples/README.md says what
to expect). Every statement is on its own line so that each line's memory can be read separately.
"""
import argparse
import math
import time

import torch


def similarity_eager(mk, ms, qk, qe):
    c = mk.shape[1]
    a_sq = mk.pow(2).transpose(1, 2) @ qe
    two_ab = 2 * (mk.transpose(1, 2) @ (qk * qe))
    b_sq = (qe * qk.pow(2)).sum(1, keepdim=True)
    similarity = -a_sq + two_ab - b_sq
    similarity = similarity * ms / math.sqrt(c)
    return similarity


def similarity_cleanup(mk, ms, qk, qe):
    c = mk.shape[1]
    a_sq = mk.pow(2).transpose(1, 2) @ qe
    two_ab = 2 * (mk.transpose(1, 2) @ (qk * qe))
    b_sq = (qe * qk.pow(2)).sum(1, keepdim=True)
    similarity = -a_sq + two_ab
    del a_sq, two_ab
    torch.cuda.empty_cache()
    similarity = similarity - b_sq
    del b_sq
    similarity = similarity * ms / math.sqrt(c)
    torch.cuda.empty_cache()
    return similarity


def similarity_inplace(mk, ms, qk, qe):
    c = mk.shape[1]
    b_sq = (qe * qk.pow(2)).sum(1, keepdim=True)
    similarity = mk.transpose(1, 2) @ (qk * qe)
    similarity.mul_(2)
    similarity.sub_(b_sq)
    similarity.baddbmm_(mk.pow(2).transpose(1, 2), qe, alpha=-1)
    similarity.mul_(ms)
    similarity.div_(math.sqrt(c))
    return similarity


VARIANTS = {
    "eager": similarity_eager,
    "cleanup": similarity_cleanup,
    "empty-cache": similarity_cleanup,
    "inplace": similarity_inplace,
}


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", choices=sorted(VARIANTS), default="eager")
    parser.add_argument("--batch", type=int, default=4, help="B: objects tracked at once")
    parser.add_argument("--channels", type=int, default=64, help="C: key channels")
    parser.add_argument("--memory", type=int, default=16384, help="M: memory elements (frames x H x W)")
    parser.add_argument("--queries", type=int, default=2048, help="Q: query elements (H x W)")
    parser.add_argument("--steps", type=int, default=5, help="how many read-outs to run")
    parser.add_argument("--seed", type=int, default=0)
    return parser.parse_args()


def main():
    args = parse_args()
    if not torch.cuda.is_available():
        raise SystemExit("This sample needs a CUDA GPU.")
    torch.manual_seed(args.seed)
    device = torch.device("cuda")
    mk = torch.randn(args.batch, args.channels, args.memory, device=device)
    qk = torch.randn(args.batch, args.channels, args.queries, device=device)
    qe = torch.rand(args.batch, args.channels, args.queries, device=device)
    ms = torch.rand(args.batch, args.memory, 1, device=device) + 1
    fn = VARIANTS[args.variant]
    checksum = 0.0
    started = time.perf_counter()
    for _ in range(args.steps):
        similarity = fn(mk, ms, qk, qe)
        checksum += similarity[:, :4, :4].sum().item()
        del similarity
    torch.cuda.synchronize()
    elapsed = time.perf_counter() - started
    mib = 1 << 20
    print(f"variant={args.variant} B={args.batch} C={args.channels} M={args.memory} Q={args.queries} steps={args.steps}")
    print(f"one [B, M, Q] float32 tensor: {args.batch * args.memory * args.queries * 4 / mib:.1f} MiB")
    print(f"peak allocated {torch.cuda.max_memory_allocated() / mib:.1f} MiB, peak reserved {torch.cuda.max_memory_reserved() / mib:.1f} MiB")
    print(f"{elapsed / args.steps * 1000:.1f} ms per read-out, checksum {checksum:.4f}")


if __name__ == "__main__":
    main()
