import { QueryClient, VueQueryPlugin } from '@tanstack/vue-query';
import { render } from '@testing-library/vue';
import { adapterCases } from '../adapter-cases';
import { AddPlant } from './add-plant';

adapterCases((props) => {
  render(AddPlant, { props, global: { plugins: [[VueQueryPlugin, { queryClient: new QueryClient() }]] } });
});
