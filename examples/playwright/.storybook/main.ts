// Storybook for the React example's form, its API mocked by msw-storybook-addon with @plant-store/msw.
// msw's worker script is served from public/ (`npx msw init public`).
import type { StorybookConfig } from '@storybook/react-vite';

const config: StorybookConfig = {
  framework: '@storybook/react-vite',
  addons: ['msw-storybook-addon'],
  stories: ['../stories/*.stories.tsx'],
  staticDirs: ['../public'],
  core: { disableTelemetry: true },
};
export default config;
