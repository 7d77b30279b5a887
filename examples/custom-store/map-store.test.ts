import { readFileSync } from 'node:fs';
import { testPlantStore } from '@plant-store/core/testing';
import { describe, expect, it } from 'vitest';
import { createMapStore } from './map-store.js';

testPlantStore({ describe, it, expect }, { name: 'a Map', create: createMapStore });

it('is the store docs/stores.md shows, to the letter', () => {
  const page = readFileSync(new URL('../../docs/stores.md', import.meta.url), 'utf8');
  const shown = /<!-- example:custom-store -->\n```ts\n([\s\S]*?)```\n<!-- \/example:custom-store -->/.exec(page)?.[1];
  expect(shown).toBe(readFileSync(new URL('./map-store.ts', import.meta.url), 'utf8'));
});
