// One winner per id across servers: two plant-store-server processes on one PostgreSQL table, and rounds
// of 20 concurrent creates of one new id split across both, with four different bodies. A create and its
// replay both answer 200 with the stored plant, so one winner shows as: every racer whose body is the
// stored plant's answered 200 with it, and every other racer answered 40003; the table holds that plant.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../support/postgres.js';
import { type Answer, errorCode, keepAliveAgent, sendCreate, startServers } from './traffic.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await openTestDatabase();
}, 180_000);
afterAll(() => db?.close());

const ROUNDS = 50;
const RACERS = 20;

/** The bodies racers send for one id (tag absent, empty and set), and the 200 each one answers. */
const variants = (id: bigint) => [
  { body: `{"id":${id},"name":"racer A"}`, answer: '{"name":"racer A"}', row: { name: 'racer A', tag: null } },
  { body: `{"id":${id},"name":"racer B"}`, answer: '{"name":"racer B"}', row: { name: 'racer B', tag: null } },
  {
    body: `{"id":${id},"name":"racer A","tag":""}`,
    answer: '{"name":"racer A","tag":""}',
    row: { name: 'racer A', tag: '' },
  },
  {
    body: `{"id":${id},"name":"racer A","tag":"t"}`,
    answer: '{"name":"racer A","tag":"t"}',
    row: { name: 'racer A', tag: 't' },
  },
];

it('gives exactly one winner per id when 20 racers create it at once on two servers sharing one table', async () => {
  const table = db.table();
  // Both servers start at the same moment on a table that does not exist yet: one creates it.
  const servers = await startServers(['--database', db.url, '--database-schema', db.schema, '--database-table', table]);
  const agent = keepAliveAgent();
  const problems: string[] = [];
  const counts = { answered200: 0, answered40003: 0, roundsWonOnBothServers: 0, wonBy: [0, 0, 0, 0] };
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const id = 2n ** 62n + BigInt(round);
      const bodies = variants(id);
      // Racer i goes to server i mod 2 with body (i div 2) mod 4: every body is sent to both servers.
      const racers = Array.from({ length: RACERS }, (_, i) => ({ server: i % 2, variant: Math.floor(i / 2) % 4 }));
      // Each round the sending starts at another racer, so the first request out is not always one body's.
      const answers: Answer[] = new Array(RACERS);
      await Promise.all(
        racers.map((_, k) => {
          const i = (k + round * 7) % RACERS;
          const racer = racers[i]!;
          return sendCreate(agent, servers[racer.server]!.origin, bodies[racer.variant]!.body).then((answer) => {
            answers[i] = answer;
          });
        }),
      );

      const winners = new Set(racers.filter((_, i) => answers[i]!.status === 200).map((racer) => racer.variant));
      if (winners.size !== 1) {
        problems.push(`id ${id}: bodies answered 200: ${[...winners].join(', ') || 'none'}`);
        continue;
      }
      const winner = [...winners][0]!;
      counts.wonBy[winner]!++;
      racers.forEach((racer, i) => {
        const answer = answers[i]!;
        if (racer.variant === winner) {
          if (answer.status !== 200 || answer.body !== bodies[winner]!.answer) {
            problems.push(`id ${id}, racer ${i} (the winner's body): ${answer.status} ${answer.body}`);
          }
        } else if (answer.status !== 400 || errorCode(answer.body) !== 40003) {
          problems.push(`id ${id}, racer ${i} (another body): ${answer.status} ${answer.body}`);
        }
        if (answer.status === 200) counts.answered200++;
        if (errorCode(answer.body) === 40003) counts.answered40003++;
      });
      const servedBy = new Set(racers.filter((_, i) => answers[i]!.status === 200).map((racer) => racer.server));
      if (servedBy.size === 2) counts.roundsWonOnBothServers++;

      const rows = await db.query(`SELECT name, tag FROM "${db.schema}"."${table}" WHERE id = $1`, [String(id)]);
      if (JSON.stringify(rows) !== JSON.stringify([bodies[winner]!.row])) {
        problems.push(`id ${id}: the table holds ${JSON.stringify(rows)}, the winner sent ${bodies[winner]!.body}`);
      }
    }
  } finally {
    agent.destroy();
  }
  const [{ n }] = (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${db.schema}"."${table}"`)) as [
    { n: number },
  ];
  console.log(
    `one winner per id: ${ROUNDS} rounds of ${RACERS} racers on 2 servers, ${counts.answered200} answered 200 ` +
      `(the winner's body), ${counts.answered40003} answered 40003, the winning body answered 200 by both ` +
      `servers in ${counts.roundsWonOnBothServers} rounds, rounds won by each body ${counts.wonBy.join('/')}, ` +
      `${n} rows, ${problems.length} problems`,
  );
  expect(problems).toEqual([]);
  expect(n).toBe(ROUNDS);
  expect(counts.answered200 + counts.answered40003).toBe(ROUNDS * RACERS);
}, 30_000);
