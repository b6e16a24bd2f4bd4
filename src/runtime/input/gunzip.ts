/** The runtime's gzip inflater for the engine's decoder (`LoadOptions.gunzip`): node:zlib, bounded. */
import { gunzipSync } from 'node:zlib';
import type { Gunzip } from '../../engine/decode/unpack';

export const gunzipBounded: Gunzip = (bytes, maxOutputLength) => gunzipSync(bytes, { maxOutputLength });
