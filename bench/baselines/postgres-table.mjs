// The PostgreSQL baselines: the raw node:http server (raw-node.mjs) and the fastify server
// (fastify.mjs) with their Map replaced by the plant table, the way a developer would write it with
// `pg`: one `INSERT … ON CONFLICT (id) DO NOTHING RETURNING id` per request, in autocommit (so the
// 200 follows the commit), and for an id that was taken one `SELECT` of the stored row, which makes
// the replay 200 or the 40003. Named statements (parsed once per connection) and a pool of 10,
// `pg`'s default and the service's own. Ids go to PostgreSQL as decimal text, so the raw server
// keeps them exact; names and tags go as they are (PostgreSQL `text` refuses U+0000 and a lone
// surrogate, which the service keeps: the loads send neither).
import pg from 'pg';

/**
 * Opens a pool on `table` and returns the servers' `insert(id, name, tag)`: resolves to undefined
 * when it created the plant, else to the stored `{ name, tag? }`. A database failure rejects.
 * @param {{ database: string, table: string, poolSize?: number }} options
 */
export function openPlantTable({ database, table, poolSize = 10 }) {
  const pool = new pg.Pool({ connectionString: database, max: poolSize });
  // An idle connection that dies emits this; the next query opens another.
  pool.on('error', () => undefined);
  const insertSql = `INSERT INTO ${table} (id, name, tag) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING RETURNING id`;
  const selectSql = `SELECT name, tag FROM ${table} WHERE id = $1`;
  return {
    async insert(id, name, tag) {
      const values = [String(id), name, tag ?? null];
      const inserted = await pool.query({ name: 'plant_insert', text: insertSql, values });
      if (inserted.rowCount === 1) return undefined;
      const found = await pool.query({ name: 'plant_select', text: selectSql, values: [String(id)] });
      const row = found.rows[0];
      if (row === undefined) throw new Error(`plant ${id} was taken but is gone`);
      return row.tag === null ? { name: row.name } : { name: row.name, tag: row.tag };
    },
    close: () => pool.end(),
  };
}

/**
 * Starts a baseline (`startRawNodeServer` or `startFastifyServer`) on the plant table: `database`
 * and `table` name it, the rest are the server's options.
 */
export async function startOnPlantTable(startServer, { database, table, poolSize, ...options }) {
  const plants = openPlantTable({ database, table, poolSize });
  let server;
  try {
    server = await startServer({ ...options, insert: plants.insert });
  } catch (error) {
    await plants.close();
    throw error;
  }
  return {
    url: server.url,
    async close() {
      await server.close();
      await plants.close();
    },
  };
}
