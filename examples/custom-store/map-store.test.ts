import { testPlantStore } from '@plant-store/core/testing';
import { describe, expect, it } from 'vitest';
import { createMapStore } from './map-store.js';

testPlantStore({ describe, it, expect }, { name: 'a Map', create: createMapStore });
