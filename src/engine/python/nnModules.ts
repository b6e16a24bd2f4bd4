/**
 * Calls of a module a class holds as an attribute (`self.fc1(dx)`), read as the torch operation its
 * forward runs: `self.fc1 = nn.Linear(...)` makes `self.fc1(dx)` the `linear` of `dx`, a new
 * floating-point tensor that autograd does not keep (the backward of a linear layer reads its input and
 * weight, not its output). Only where every assignment of that attribute in the file is a call of one of
 * the layers below, at least one of them in the class itself, and nothing in the file can change what the
 * call returns or keep it (a forward hook, `setattr`, an assignment of another form): anything else is a
 * call VRAM Lens cannot see into.
 *
 * What it cannot see: a subclass or another file replacing the attribute, or a forward hook registered in
 * another file. Sources of truth: each layer's `forward` in `torch/nn/modules/` (one functional call on
 * its input) and `tools/autograd/derivatives.yaml` for that call's backward.
 */
import type { SyntaxNode } from '@lezer/common';
import type { PythonSource } from './pythonSource';

/**
 * Layers whose forward returns a new floating-point tensor made by one functional call (named as in
 * torchOps' tables), never its input or a view of it, whatever they were constructed with. Not here:
 * `Identity`, `Dropout` (in eval mode it returns its input), activations (`inplace=True`), containers.
 */
const LAYER_OPS: Readonly<Record<string, string>> = {
  Linear: 'linear',
  LazyLinear: 'linear',
  Bilinear: 'bilinear',
  Conv1d: 'conv1d',
  Conv2d: 'conv2d',
  Conv3d: 'conv3d',
  LazyConv1d: 'conv1d',
  LazyConv2d: 'conv2d',
  LazyConv3d: 'conv3d',
  ConvTranspose1d: 'conv_transpose1d',
  ConvTranspose2d: 'conv_transpose2d',
  ConvTranspose3d: 'conv_transpose3d',
  BatchNorm1d: 'batch_norm',
  BatchNorm2d: 'batch_norm',
  BatchNorm3d: 'batch_norm',
  SyncBatchNorm: 'batch_norm',
  InstanceNorm1d: 'instance_norm',
  InstanceNorm2d: 'instance_norm',
  InstanceNorm3d: 'instance_norm',
  LayerNorm: 'layer_norm',
  GroupNorm: 'group_norm',
  RMSNorm: 'rms_norm',
  Embedding: 'embedding',
};

/** Text that lets code elsewhere in the file replace the attribute or see (and keep) a layer's output. */
const OPAQUE = /\bsetattr\b|\bregister_(?:module_)?forward_hook\b|__setattr__|__call__/;

function memberProperty(src: PythonSource, node: SyntaxNode): string | undefined {
  if (node.name !== 'MemberExpression') return undefined;
  const dot = node.getChild('.');
  const prop = node.lastChild;
  return dot && prop && prop.name === 'PropertyName' ? src.textOf(prop) : undefined;
}

/** The layer class a constructor call names (`nn.Linear(...)`, `torch.nn.Linear(...)`, `Linear(...)` imported from torch.nn). */
function layerOf(src: PythonSource, value: SyntaxNode, modules: ReadonlyMap<string, string>): string | undefined {
  if (value.name !== 'CallExpression' || !value.firstChild) return undefined;
  const text = src.textOf(value.firstChild).replace(/\s+/g, '');
  if (!/^[\w.]+$/.test(text)) return undefined;
  const parts = text.split('.');
  const head = modules.get(parts[0]);
  if (head === undefined) return undefined;
  const full = [head, ...parts.slice(1)].join('.').split('.');
  const cls = full[full.length - 1];
  const namespace = full.slice(0, -1).join('.');
  const fromNn = namespace === 'torch.nn' || /^torch\.nn\.modules(\.\w+)?$/.test(namespace);
  return fromNn && Object.hasOwn(LAYER_OPS, cls) ? LAYER_OPS[cls] : undefined;
}

/**
 * The torch operation that calling the attribute `attr` of an instance of the class `cls` runs, or
 * undefined where the file does not prove which layer it holds. `modules` maps the file's imported
 * names to the modules they bind (`nn` -> `torch.nn`).
 */
export function layerOpOfAttribute(src: PythonSource, cls: SyntaxNode, attr: string, modules: ReadonlyMap<string, string>): string | undefined {
  if (OPAQUE.test(src.text)) return undefined;
  let op: string | undefined;
  let inClass = false;
  let ok = true;
  src.tree.iterate({
    enter: (ref) => {
      if (!ok) return false;
      if (ref.name !== 'MemberExpression' || memberProperty(src, ref.node) !== attr) return undefined;
      const node = ref.node;
      const written = writeOf(node);
      if (written === undefined) return undefined; // read or called
      const layer = written === 'assigned' ? layerOf(src, node.parent!.lastChild!, modules) : undefined;
      if (layer === undefined) {
        ok = false;
        return false;
      }
      op ??= layer; // every layer of the table makes a new tensor and keeps only its input for backward
      if (node.from >= cls.from && node.to <= cls.to) inClass = true;
      return false;
    },
  });
  return ok && inClass ? op : undefined;
}

/**
 * How an attribute reference is written to: `assigned` as the one target of `a.attr = value` (or
 * `a.attr: T = value`), `other` as any other target (unpacked, chained, augmented, a loop variable,
 * `as`, `del`), undefined where it is only read or called.
 */
function writeOf(node: SyntaxNode): 'assigned' | 'other' | undefined {
  let target = node;
  while (target.parent && (target.parent.name === 'TupleExpression' || target.parent.name === 'ArrayExpression' || target.parent.name === 'ParenthesizedExpression')) target = target.parent;
  const p = target.parent;
  if (!p) return undefined;
  if (target.prevSibling?.name === 'as' || p.name === 'DeleteStatement') return 'other';
  const after = (names: string[]) => {
    for (let c = target.nextSibling; c; c = c.nextSibling) if (names.includes(c.name)) return true;
    return false;
  };
  if (p.name === 'ForStatement') return after(['in']) ? 'other' : undefined;
  if (p.name === 'UpdateStatement') return p.firstChild?.from === target.from ? 'other' : undefined;
  if (p.name !== 'AssignStatement' || !after(['AssignOp'])) return undefined;
  let assignOps = 0;
  for (let c = p.firstChild; c; c = c.nextSibling) if (c.name === 'AssignOp') assignOps++;
  return target === node && p.firstChild?.from === node.from && assignOps === 1 ? 'assigned' : 'other';
}
