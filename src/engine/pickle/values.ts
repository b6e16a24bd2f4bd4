/** Key under which a decoded dict keeps its entries whose Python keys are not `str`. */
export const PY_NON_STRING_KEYS: unique symbol = Symbol('vram-lens.pyNonStringKeys');

/**
 * A decoded Python `dict`: a plain `{}` object holding the `str`-keyed entries (integer-like
 * keys such as "10" enumerate first, as with any JavaScript object), plus, when the dict has
 * keys of other types (int, tuple, ...), a `Map` of those under {@link PY_NON_STRING_KEYS}.
 */
export interface PyDict {
  [key: string]: PyValue;
  [PY_NON_STRING_KEYS]?: Map<PyValue, PyValue>;
}

/**
 * A decoded Python value. `None` is null; `int` is a number when it is a safe integer and a
 * bigint otherwise; `float` is a number; `str` is a string; `bytes`/`bytearray` are copied
 * `Uint8Array`s; `list` and `tuple` are arrays; `set`/`frozenset` are `Set`s; `dict` is a {@link PyDict}.
 */
export type PyValue = null | boolean | number | bigint | string | Uint8Array | PyValue[] | Set<PyValue> | PyDict;

/** True when `value` is a decoded Python dict. */
export function isPyDict(value: PyValue | undefined): value is PyDict {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}
