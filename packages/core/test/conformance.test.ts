// The memory store passes the conformance suite every store runs (@plant-store/core/testing).
import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../src/index.js';
import { testPlantStore } from '../src/testing.js';

testPlantStore({ describe, it, expect }, { name: 'memory', create: createMemoryStore });
