/**
 * A test graph wrapped as a model: IR 8, default-domain opset 17 (the fields every hand-built test model
 * shares and none of them is about).
 */
import type { OnnxGraph, OnnxModel } from '../../src/engine/onnx/model';

export function modelOf(graph: OnnxGraph): OnnxModel {
  return { irVersion: 8, opsetImports: [{ domain: '', version: 17 }], producerName: 'test', producerVersion: '1', graph };
}
