import { QueryClient, QueryClientProvider } from '@tanstack/solid-query';
import { render } from '@solidjs/testing-library';
import { adapterCases } from '../adapter-cases';
import { AddPlant } from './add-plant';

adapterCases((props) => {
  render(() => (
    <QueryClientProvider client={new QueryClient()}>
      <AddPlant {...props} />
    </QueryClientProvider>
  ));
});
