// msw-storybook-addon (CSF 3): its loader starts the worker once; every story gets @plant-store/msw's
// handlers, reset between stories, and a story puts a scenario in front of them in its own beforeEach.
import type { Preview } from '@storybook/react-vite';
import type { SetupWorker } from 'msw/browser';
import { mswLoader } from 'msw-storybook-addon/csf3';
import { mocks } from '../stories/mocks';

const preview: Preview = {
  loaders: [mswLoader()],
  beforeEach: ({ msw }: { msw?: SetupWorker }) => {
    msw?.use(...mocks.handlers);
  },
};
export default preview;
