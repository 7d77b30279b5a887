import { QueryClient } from '@tanstack/svelte-query';
import { render } from '@testing-library/svelte';
import { adapterCases } from '../adapter-cases';
import AddPlant from './AddPlant.svelte';

adapterCases((props) => {
  render(AddPlant, { props: { ...props, queryClient: new QueryClient() } });
});
