/// <reference types="vite/client" />

interface ImportMetaEnv {
  /** Where the reference server listens; set, the dev server proxies /api to it and the mocks stay off. */
  readonly VITE_PLANT_STORE_URL?: string;
  /** The bearer token to send (default `dev-token`; the mocks take any). */
  readonly VITE_PLANT_STORE_TOKEN?: string;
}

interface ImportMeta {
  readonly env: ImportMetaEnv;
}
