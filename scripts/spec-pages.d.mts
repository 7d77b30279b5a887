// Types of spec-pages.mjs: every part of the pages made from openapi.yaml.

import type { Section } from './page-sections.mjs';

/** Every part made from the spec (openapi.yaml, or the parsed `spec` given), with its page and markers. */
export function specSections(spec?: unknown): Section[];
