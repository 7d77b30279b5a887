// Starts the app: in development (`npx vite examples/react`) with the Plant Store mocked in the browser, unless
// VITE_PLANT_STORE_URL names a real server for the dev server to proxy /api to.
import { createPlantStoreClient, type TokenProvider } from '@plant-store/client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { AddPlantForm } from './add-plant-form.js';
// Types only: the mocks module itself is imported below, in development alone.
import type { Mocks, Scenario } from './mocks.js';

// Same origin: the mocks answer /api in development, the dev server's proxy or the app's host otherwise.
const client = createPlantStoreClient({ baseUrl: '/api' });
// The form's token provider. An app answers it from its sign-in: the token it holds, and on `refresh`
// (the service refused that token) a renewed one, from its OpenID Connect client or a refresh-token
// grant. This example has no sign-in: it gives the development token, and the same again on refresh,
// so a refused token ends in the sign-in sentence after the one refreshed attempt.
const token: TokenProvider = () => import.meta.env.VITE_PLANT_STORE_TOKEN ?? 'dev-token';

// Loaded only in development, so a production build holds neither MSW nor the mocks.
const mocks =
  import.meta.env.DEV && !import.meta.env.VITE_PLANT_STORE_URL
    ? await import('./mocks.js').then((module) => module.startMocks())
    : undefined;

function MockPanel({ mocks }: { mocks: Mocks }) {
  return (
    <aside>
      <p>
        Mocked in the browser. Ids already taken: <span id="taken-ids">{mocks.takenIds.join(', ')}</span>
      </p>
      <label>
        Mock scenario
        <select name="scenario" onChange={(event) => mocks.use(event.target.value as Scenario)}>
          {mocks.scenarios.map((scenario) => (
            <option key={scenario}>{scenario}</option>
          ))}
        </select>
      </label>
    </aside>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={new QueryClient()}>
      <h1>Add a plant</h1>
      <AddPlantForm client={client} token={token} />
      {mocks && <MockPanel mocks={mocks} />}
    </QueryClientProvider>
  </StrictMode>,
);
