// A Vue component that creates a plant with @tanstack/vue-query: a render function, no SFC compiler needed.
import type { NewPlant, PlantStoreClient } from '@plant-store/client';
import { createPlantMutationOptions } from '@plant-store/query';
import { useMutation } from '@tanstack/vue-query';
import { defineComponent, h, type PropType } from 'vue';
import { describeError } from '../describe-error';

export const AddPlant = defineComponent({
  props: {
    client: { type: Object as PropType<PlantStoreClient>, required: true },
    token: { type: String, required: true },
    plant: { type: Object as PropType<NewPlant>, required: true },
  },
  setup(props) {
    // biome-ignore lint/correctness/useHookAtTopLevel: a Vue composable, called in setup() as Vue asks
    const create = useMutation(createPlantMutationOptions(props.client, props.token));
    return () =>
      h('div', [
        h('button', { onClick: () => create.mutate(props.plant) }, 'Add plant'),
        create.data.value ? h('p', { role: 'status' }, `Added ${create.data.value.name}`) : null,
        create.error.value ? h('p', { role: 'alert' }, describeError(create.error.value)) : null,
      ]);
  },
});
