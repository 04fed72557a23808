import { endianness } from 'node:os';

const LITTLE = endianness() === 'LE';

/** A vector as stored: Float32, little-endian. */
export function toBytes(v: Float32Array): Buffer {
  if (LITTLE) return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  const out = Buffer.alloc(v.length * 4);
  for (let i = 0; i < v.length; i++) out.writeFloatLE(v[i], i * 4);
  return out;
}

/** A copy, so the vector owns an aligned buffer of its own rather than a view into a reply. */
export function fromBytes(b: Buffer): Float32Array {
  if (LITTLE) return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
  const out = new Float32Array(b.length / 4);
  for (let i = 0; i < out.length; i++) out[i] = b.readFloatLE(i * 4);
  return out;
}
