import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.package.js';

export default defineConfig(packageBuild());
