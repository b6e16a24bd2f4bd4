/** Why bytes could not be read as an ONNX model. */
export type OnnxFormatErrorCode =
  /** The data ends inside a field. */
  | 'truncated'
  /** Structurally invalid protobuf (bad wire type, field number 0, invalid UTF-8, wrong field kind). */
  | 'corrupt'
  /** Valid protobuf, but not a model: no graph, or nested deeper than any ONNX file is. */
  | 'not-onnx';

/** Bytes that are not a readable ONNX model; `offset` is the byte offset in the file where reading failed. */
export class OnnxFormatError extends Error {
  override readonly name = 'OnnxFormatError';

  constructor(
    readonly code: OnnxFormatErrorCode,
    readonly offset: number,
    detail: string,
  ) {
    super(`not a readable ONNX model: ${detail} (at byte ${offset})`);
  }
}
