// The file store passes the conformance suite every store runs (@plant-store/core/testing), with a
// close and reopen of its log.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { testPlantStore } from '@plant-store/core/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { openFileStore, type FileStore } from '../src/index.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plant-store-conformance-'));
let files = 0;
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

testPlantStore(
  { describe, it, expect },
  {
    name: 'file',
    create: () => openFileStore({ path: path.join(dir, `plants-${files++}.log`) }),
    reopen: async (store) => {
      const { path: file } = store as FileStore;
      await store.close?.();
      return openFileStore({ path: file });
    },
    // Every run opens, fsyncs and closes a log of its own.
    numRuns: 40,
  },
);
