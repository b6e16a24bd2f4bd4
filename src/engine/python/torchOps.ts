/**
 * What PyTorch operations do with their tensors, as far as an in-place rewrite needs to know: which
 * make a new tensor, which may return (a view of) their input, which autograd saves for the backward
 * pass (their inputs, or their output). The tables name what VRAM Lens knows; anything not named is
 * treated as unknown, and unknown is never safe.
 *
 * Sources of truth: PyTorch's `tools/autograd/derivatives.yaml` (what each backward formula reads:
 * `self`/`other` = inputs saved, `result` = output saved) and the view operations listed in PyTorch's
 * "Tensor Views" documentation.
 */

/** How an operation treats a tensor passed to it (as the receiver of a method, or as an argument). */
export type OperandUse =
  /** It returns the operand or a view of it: the result shares its memory. */
  | 'alias'
  /** It reads the operand to make a new tensor and keeps no reference to it. */
  | 'reads'
  /** It makes a new tensor, and autograd keeps the operand for the backward pass (when grad mode is on). */
  | 'saves'
  /** Not known: it may keep the operand anywhere. */
  | 'unknown';

/** What an operation's result is. */
export type ResultKind =
  /** A new tensor that autograd does not keep. */
  | 'new'
  /** A new tensor that autograd keeps for the backward pass (when grad mode is on). */
  | 'newSaved'
  /** The receiver/first argument itself, or a view of it. */
  | 'alias'
  /** A Python number, a bool, a shape: not a tensor. */
  | 'notTensor'
  | 'unknown';

/** Views (share memory with their input), and conversions that return their input when nothing changes. */
const VIEW_OPS = new Set([
  'view', 'view_as', 'reshape', 'reshape_as', 'transpose', 'permute', 't', 'narrow', 'expand', 'expand_as', 'squeeze',
  'unsqueeze', 'flatten', 'unflatten', 'select', 'unfold', 'diagonal', 'as_strided', 'movedim', 'moveaxis', 'swapaxes',
  'swapdims', 'split', 'split_with_sizes', 'chunk', 'unbind', 'tensor_split', 'hsplit', 'vsplit', 'dsplit', 'detach',
  'to', 'type', 'type_as', 'float', 'double', 'half', 'bfloat16', 'int', 'long', 'short', 'bool', 'byte', 'char',
  'cuda', 'cpu', 'contiguous', 'view_as_real', 'view_as_complex', 'real', 'imag', 'align_to', 'refine_names', 'rename',
  'as_tensor', 'from_numpy', 'asarray', 'atleast_1d', 'atleast_2d', 'atleast_3d', 'broadcast_to', 'broadcast_tensors',
  'adjoint', 'mT', 'mH', 'T', 'H', 'data', 'dropout', 'alpha_dropout', 'feature_alpha_dropout', 'dropout1d',
  'dropout2d', 'dropout3d', 'identity', 'coalesce', 'pin_memory', 'share_memory_', 'requires_grad_', 'retain_grad',
  'numpy', 'nan_to_num_',
]);

/** Make a new tensor from their inputs; autograd keeps none of the inputs. */
const READS = new Set([
  'add', 'sub', 'subtract', 'neg', 'negative', 'sum', 'mean', 'nansum', 'cumsum', 'flip', 'fliplr', 'flipud', 'roll', 'rot90',
  'repeat', 'repeat_interleave', 'tile', 'clone', 'cat', 'concat', 'concatenate', 'stack', 'hstack', 'vstack', 'dstack',
  'zeros_like', 'ones_like', 'empty_like', 'full_like', 'rand_like', 'randn_like', 'randint_like', 'new_zeros', 'new_ones',
  'new_empty', 'new_full', 'new_tensor', 'pad', 'tril', 'triu', 'exp', 'exp2', 'expm1', 'sigmoid', 'tanh', 'relu',
  'softmax', 'log_softmax', 'sqrt', 'rsqrt', 'reciprocal', 'sign', 'round', 'floor', 'ceil', 'trunc', 'frac', 'argmax',
  'argmin', 'eq', 'ne', 'lt', 'le', 'gt', 'ge', 'isnan', 'isinf', 'isfinite', 'logical_and', 'logical_or', 'logical_not',
  'zeros', 'ones', 'empty', 'full', 'rand', 'randn', 'randint', 'randperm', 'arange', 'linspace', 'logspace', 'eye',
  'tensor', 'one_hot', 'bernoulli', 'multinomial', 'poisson',
]);

/** Make a new tensor; autograd keeps one of the inputs (`self`/`other` in their backward formulas). */
const SAVES_INPUT = new Set([
  'mul', 'multiply', 'div', 'divide', 'true_divide', 'matmul', 'mm', 'bmm', 'mv', 'dot', 'vdot', 'einsum', 'outer', 'inner',
  'tensordot', 'kron', 'pow', 'float_power', 'log', 'log2', 'log10', 'log1p', 'sin', 'cos', 'tan', 'asin', 'acos', 'atan',
  'atan2', 'sinh', 'cosh', 'asinh', 'acosh', 'atanh', 'abs', 'absolute', 'clamp', 'clip', 'clamp_min', 'clamp_max', 'norm',
  'std', 'var', 'prod', 'max', 'min', 'amax', 'amin', 'maximum', 'minimum', 'fmax', 'fmin', 'erf', 'erfc', 'erfinv', 'gelu',
  'silu', 'mish', 'leaky_relu', 'softplus', 'hardswish', 'hardsigmoid', 'logsigmoid', 'linear', 'bilinear', 'conv1d',
  'conv2d', 'conv3d', 'conv_transpose1d', 'conv_transpose2d', 'conv_transpose3d', 'layer_norm', 'group_norm',
  'batch_norm', 'instance_norm', 'rms_norm', 'local_response_norm', 'embedding', 'embedding_bag', 'interpolate',
  'upsample', 'grid_sample', 'avg_pool1d', 'avg_pool2d', 'avg_pool3d', 'max_pool1d', 'max_pool2d', 'max_pool3d',
  'adaptive_avg_pool1d', 'adaptive_avg_pool2d', 'adaptive_avg_pool3d', 'adaptive_max_pool1d', 'adaptive_max_pool2d',
  'adaptive_max_pool3d', 'scaled_dot_product_attention', 'cross_entropy', 'nll_loss', 'mse_loss', 'l1_loss',
  'smooth_l1_loss', 'huber_loss', 'binary_cross_entropy', 'binary_cross_entropy_with_logits', 'kl_div',
  'cosine_similarity', 'pairwise_distance', 'cdist', 'normalize', 'logsumexp', 'cumprod', 'baddbmm', 'addmm', 'addmv',
  'addbmm', 'addcmul', 'addcdiv', 'lerp', 'hypot', 'square', 'remainder', 'fmod', 'floor_divide', 'glu', 'prelu',
  'rrelu', 'threshold', 'softmin', 'gumbel_softmax', 'log_sigmoid', 'logit', 'xlogy', 'trace', 'det', 'inverse',
  'cholesky', 'sort', 'topk', 'kthvalue', 'median', 'mode', 'quantile', 'renorm', 'dist', 'index_add', 'scatter',
  'scatter_add', 'masked_select', 'take', 'take_along_dim', 'fold', 'unfold_copy', 'pixel_shuffle', 'pixel_unshuffle',
  'elu', 'celu', 'selu', 'hardtanh', 'relu6', 'nansum', 'where', 'masked_fill', 'index_select', 'gather', 'normal',
]);

/** Their backward formula reads their output (`result`): the new tensor is kept by autograd. */
const SAVES_OUTPUT = new Set([
  'exp', 'exp2', 'expm1', 'sigmoid', 'tanh', 'relu', 'softmax', 'log_softmax', 'sqrt', 'rsqrt', 'reciprocal', 'norm',
  'logsumexp', 'scaled_dot_product_attention', 'cumprod', 'pow', 'float_power', 'normalize', 'softmin', 'gumbel_softmax',
  'det', 'inverse', 'cholesky',
]);

/** Read a tensor's metadata, or turn it into a Python value: no tensor comes out that shares its memory. */
const METADATA = new Set([
  'shape', 'dtype', 'device', 'ndim', 'is_cuda', 'is_leaf', 'requires_grad', 'layout', 'names', 'grad_fn', 'grad', 'is_sparse',
  'size', 'dim', 'numel', 'nelement', 'item', 'tolist', 'element_size', 'stride', 'storage_offset', 'is_contiguous',
  'data_ptr', 'get_device', 'is_floating_point', 'is_complex', 'nbytes', 'itemsize', 'untyped_storage', 'any', 'all',
  'equal', 'allclose', 'isclose', 'count_nonzero', 'nonzero', 'unique',
]);

/** Python built-ins that read a tensor without keeping it (or turn it into a number or text). */
const READING_BUILTINS = new Set(['len', 'print', 'isinstance', 'type', 'id', 'float', 'int', 'bool', 'str', 'repr', 'hasattr', 'format', 'round', 'abs', 'hash', 'callable']);

/** How the operation `name` (a tensor method, or a function of `torch` / `torch.nn.functional`) uses an operand. */
export function operandUse(name: string): OperandUse {
  if (VIEW_OPS.has(name) || name.endsWith('_')) return 'alias';
  if (METADATA.has(name)) return 'reads';
  if (SAVES_INPUT.has(name)) return 'saves';
  if (READS.has(name)) return 'reads';
  return 'unknown';
}

/** What the operation `name` returns. */
export function resultKind(name: string): ResultKind {
  if (VIEW_OPS.has(name) || name.endsWith('_')) return 'alias';
  if (METADATA.has(name)) return 'notTensor';
  if (SAVES_OUTPUT.has(name)) return 'newSaved';
  if (SAVES_INPUT.has(name) || READS.has(name)) return 'new';
  return 'unknown';
}

/** A tensor attribute that is a view of the tensor (`x.T`, `x.data`), as opposed to metadata (`x.shape`). */
export function isViewAttribute(name: string): boolean {
  return VIEW_OPS.has(name);
}

/** A Python built-in that reads its argument without keeping it. */
export function isReadingBuiltin(name: string): boolean {
  return READING_BUILTINS.has(name);
}
