// Logs byte for byte as a store of some shape writes them, for tests to open, damage and compare.
import type { StoredPlant } from '@plant-store/core';
import { batchField, framed } from '../src/internal/file-store-format.js';
import { LogCodec, SPEC_SHAPE } from '../src/internal/file-store-shape.js';

/** The codec of the spec's shape, as every store uses it. */
export const SPEC = new LogCodec(SPEC_SHAPE);

/** The header line a new log of the spec's shape starts with. */
export const HEADER_LINE = SPEC.header;

/** The log line of `plant`, in the batch written at byte `batchStart`. */
export function encodePlant(plant: StoredPlant, batchStart: number, codec: LogCodec = SPEC): Buffer {
  return framed(codec.json(plant), batchField(batchStart));
}

/** A log of `header`, then `batches` as the engine writes them: each record names its batch's first byte. */
export function logWith(header: Buffer, codec: LogCodec, batches: ReadonlyArray<readonly StoredPlant[]>): Buffer {
  const parts = [header];
  let offset = header.length;
  for (const batch of batches) {
    const start = offset;
    for (const plant of batch) {
      const line = encodePlant(plant, start, codec);
      parts.push(line);
      offset += line.length;
    }
  }
  return Buffer.concat(parts);
}
