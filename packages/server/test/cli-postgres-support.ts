// What the CLI tests on PostgreSQL share: the flags that put the server on a table, and one create.

/** `--database <url> --database-schema <schema> --database-table <table>`. */
export const databaseFlags = (url: string, schema: string, table: string): string[] => [
  '--database',
  url,
  '--database-schema',
  schema,
  '--database-table',
  table,
];

/** POST {url}/plants with `token`, the body read to the end; resolves to the status. */
export async function createPlant(url: string, token: string, id: number, name = 'Fern'): Promise<number> {
  const res = await fetch(`${url}/plants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id, name }),
  });
  await res.arrayBuffer();
  return res.status;
}
