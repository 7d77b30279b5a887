// A same-origin browser app whose API lives under /api, mocked in development by MSW's service worker
// running the Plant Store's own code. Bundle it (esbuild, Vite, …) to main.js beside index.html.
import { createPlant, PlantStoreApiError, PlantStoreNetworkError } from '@plant-store/client';
import { createPlantStoreHandlers } from '@plant-store/msw';
import { setupWorker } from 'msw/browser';

// A relative base URL: MSW resolves it against the page's origin, the core serves it as base path /api.
const mocks = createPlantStoreHandlers({ baseUrl: '/api' });
const worker = setupWorker(...mocks.handlers);

// An absolute URL from the page's origin (a relative '/api' would do in a page as well).
const apiUrl = `${location.origin}/api`;
const token = 'dev-token'; // the mocks accept any well-formed bearer token by default

async function start(): Promise<void> {
  // 'bypass': the page's own files are not the API's; let them load from the dev server.
  await worker.start({ onUnhandledRequest: 'bypass', quiet: true });
  const form = document.querySelector<HTMLFormElement>('#add-plant')!;
  const output = document.querySelector<HTMLOutputElement>('#result')!;
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const tag = String(data.get('tag') ?? '');
    const plant = { id: BigInt(String(data.get('id'))), name: String(data.get('name')), ...(tag !== '' && { tag }) };
    createPlant(token, plant, { baseUrl: apiUrl, retries: 0 }).then(
      (created) => (output.value = `Added ${created.name}`),
      (error: unknown) => {
        if (PlantStoreApiError.is(error))
          output.value = `Refused (${error.code}): ${error.body?.message ?? error.status}`;
        else if (PlantStoreNetworkError.is(error)) output.value = 'Offline';
        else output.value = 'Unexpected error';
      },
    );
  });
  form.querySelector('button')!.disabled = false;
}

void start();
