// The add-plant form, one story per answer of the API: a create, an id taken, a 401, a 503 that the
// client retries and then shows.
import { createPlantStoreClient } from '@plant-store/client';
import type { Meta, StoryObj } from '@storybook/react-vite';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { AddPlantForm } from '../src/add-plant-form';
import { mocks } from './mocks';

const meta = {
  title: 'AddPlantForm',
  component: AddPlantForm,
  args: { client: createPlantStoreClient({ baseUrl: '/api' }), token: 'story-token' },
  decorators: [
    (Story) => (
      <QueryClientProvider client={new QueryClient()}>
        <Story />
      </QueryClientProvider>
    ),
  ],
} satisfies Meta<typeof AddPlantForm>;
export default meta;

type Story = StoryObj<typeof meta>;

/** The store answers: a create is shown, a seeded id gets 40003. */
export const Default: Story = {};

export const Unauthorized: Story = {
  beforeEach: ({ msw }) => {
    msw.use(mocks.scenarios.unauthorized());
  },
};

/** Every attempt answers 503 (Retry-After: 0): the client's two retries fail too. */
export const StoreUnavailable: Story = {
  beforeEach: ({ msw }) => {
    msw.use(mocks.scenarios.storeUnavailable({ retryAfter: 0 }));
  },
};
