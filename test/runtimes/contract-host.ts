// The contract table served from one process: each case gets a fresh core application (so an empty
// store) configured as the case says, chosen by the case index the runner sends in CASE_HEADER, as
// runOnCore builds one per case in memory. Worker-shaped (`export default { fetch }`), so workerd
// runs it as it is and contract-server.ts serves it with Bun.serve or Deno.serve.
import type { PlantStoreApp } from '@plant-store/core';
import { cases } from '../contract/cases.js';
import { appFor } from '../contract/reference.js';
import { CASE_HEADER } from './case-header.js';

const apps = new Map<number, PlantStoreApp>();

export default {
  fetch(request: Request): Promise<Response> {
    const named = request.headers.get(CASE_HEADER);
    const index = Number(named);
    const testCase = named === null ? undefined : cases[index];
    if (testCase === undefined) return Promise.resolve(new Response(`no contract case ${named}`, { status: 400 }));
    let app = apps.get(index);
    if (app === undefined) {
      app = appFor(testCase.config);
      apps.set(index, app);
    }
    return app.fetch(request);
  },
};
