import * as zlib from 'node:zlib';

// zlib.crc32 is native (Node >= 20.15); the table below keeps older Node 20 releases working.
const TABLE = new Int32Array(256);
for (let n = 0; n < 256; n++) {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  TABLE[n] = c;
}

/** CRC-32 (IEEE 802.3, as zlib and gzip compute it) written out by hand. */
export function crc32Portable(bytes: Uint8Array): number {
  let c = -1;
  for (let i = 0; i < bytes.length; i++) c = TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ -1) >>> 0;
}

const native = (zlib as { crc32?: (data: Uint8Array) => number }).crc32;

/** CRC-32 of `bytes`: zlib's when this Node has it, the portable one otherwise. Same answers. */
export const crc32: (bytes: Uint8Array) => number = native ?? crc32Portable;
