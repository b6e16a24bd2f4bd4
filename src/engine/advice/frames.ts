/**
 * What the frames of a stack say about the program: forward or backward pass, optimizer step,
 * model construction, autocast. PyTorch's own files are recognised by their path inside the
 * `torch` package, wherever it is installed.
 */
import { normalisePath } from '../analysis/frameFilter';
import type { Frame } from '../snapshot/model';

function torchPath(frame: Frame): string | undefined {
  const path = normalisePath(frame.filename);
  const at = path.lastIndexOf('/torch/');
  return at < 0 ? undefined : path.slice(at + 1);
}

/** A frame of the autograd engine running a backward pass (Python or C++). */
export function isBackwardFrame(frame: Frame): boolean {
  const p = torchPath(frame);
  if (p !== undefined) {
    if (p === 'torch/autograd/__init__.py' && (frame.name === 'backward' || frame.name === 'grad' || frame.name === '_make_grads')) return true;
    if (p === 'torch/autograd/graph.py' && frame.name === '_engine_run_backward') return true;
    if (p === 'torch/_tensor.py' && frame.name === 'backward') return true;
  }
  const n = frame.name;
  return n.includes('Engine::evaluate_function') || /Backward\d*::apply\b/.test(n) || /Backward\d*_apply_functional/.test(n);
}

/** A module's forward: `forward` itself or `nn.Module.__call__`'s `_call_impl`. */
export function isForwardFrame(frame: Frame): boolean {
  if (frame.name === 'forward') return true;
  return frame.name === '_call_impl' && torchPath(frame) === 'torch/nn/modules/module.py';
}

/** Inside a `torch.optim` optimizer (their `step`, or the step wrapper around a custom optimizer). */
export function isOptimizerFrame(frame: Frame): boolean {
  return torchPath(frame)?.startsWith('torch/optim/') ?? false;
}

/** torch.autocast / AMP machinery. */
export function isAutocastFrame(frame: Frame): boolean {
  const p = torchPath(frame);
  return p !== undefined && (p.startsWith('torch/amp/') || p.startsWith('torch/cuda/amp/') || p.startsWith('torch/cpu/amp/'));
}

/** Functions decorated with torch.no_grad()/inference_mode()/enable_grad() run through this frame. */
export function isGradModeDecoratorFrame(frame: Frame): boolean {
  const p = torchPath(frame);
  return p === 'torch/utils/_contextlib.py' || p === 'torch/autograd/grad_mode.py';
}

const SETUP_NAMES = new Set(['__init__', '_apply', 'to', 'cuda', 'load_state_dict', '_load_from_state_dict', 'from_pretrained', 'reset_parameters', 'to_empty']);

/** Model construction, loading or moving to the device: allocations that are meant to stay. */
export function isSetupFrame(frame: Frame): boolean {
  return SETUP_NAMES.has(frame.name);
}

/** `torch.cuda.empty_cache()`. */
export function isEmptyCacheFrame(frame: Frame): boolean {
  return frame.name === 'empty_cache' && torchPath(frame) === 'torch/cuda/memory.py';
}

const TRAINING_NAME = /(^|_)(train|training)(_|$)|^fit$|^training_step$/i;

/** A function whose name says it trains (`train`, `train_step`, `forward_train`, `fit`, ...). */
export function isTrainingFunctionFrame(frame: Frame): boolean {
  return TRAINING_NAME.test(frame.name);
}
