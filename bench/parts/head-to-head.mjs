// Head-to-head runs of the servers part: two servers on the same core at the same time, each driven
// by as many connections as it gets alone, from one load generator, so that whatever the machine's
// other tenants take falls on both alike. Run one after the other, two servers' req/s ratio moves
// with the VM's steal; side by side it holds still (the control, raw against a second raw, shows
// by how little). Both servers are busy the whole window, so the scheduler gives each half the core
// and each one's req/s is what its own work per request allows. Fresh pairs rather than more rounds
// per pair: a pair's processes share a JIT history, which can favour one side for a whole block.
import { statSync } from 'node:fs';
import { WORKLOADS, headKey, headToHeadPairs, serverOptions } from '../lib/contenders.mjs';
import { procCpuSeconds, startLoader } from '../lib/proc.mjs';
import { errorDetail, errorText, fmt, met, target } from '../lib/report.mjs';
import { startServer } from '../lib/serve.mjs';
import { headRatio, median, range } from '../lib/stats.mjs';

/**
 * @returns {Promise<Map<string, ({ a: object, b: object } | undefined)[]>>} `headKey` → every round's
 *   two results (undefined for the rounds of a block that failed)
 */
export async function runHeadToHead(available, pending, ctx) {
  const { options } = ctx;
  const byId = new Map(available.map((server) => [server.id, server]));
  const head = new Map();
  const loader = startLoader({ core: options.loadCore });
  try {
    for (const pair of headToHeadPairs(options.candidate)) {
      const a = byId.get(pair.a);
      const b = byId.get(pair.b);
      if (!a || !b) continue;
      for (const workload of WORKLOADS) {
        const key = headKey(pair, workload);
        head.set(
          key,
          await runPairBlocks(loader, ctx, {
            key,
            workload,
            start: (server) => startServer(server.kind, serverOptions(server, ctx), { core: options.serverCore }),
            pair: [a, b],
            onFail: (error) => pending.set(key, errorText(error)),
          }),
        );
      }
    }
  } finally {
    await loader.stop();
  }
  return head;
}

/**
 * Blocks of a fresh pair on the servers' core at the same time, under `loader`: each block starts
 * both with `start(contender)` (resolving `{ url, pid, stop(), logPath? }`), warms up, then runs
 * the plan's head-to-head rounds, the start order swapped every round. Each side's result gains its
 * CPU µs per request and, with a `logPath`, the bytes its log grew by per request; with `counts()`
 * (synchronous, returning running totals such as `{ spans, bytes }` counted elsewhere), `<name>PerRequest`
 * of each total over the measured window. `token(contender)`
 * is the bearer token of each side (the run's token by default). `during(running)`, when given, runs
 * beside a block (a scraper) and returns what stops it.
 * @returns {Promise<({ a: object, b: object } | undefined)[]>} undefined for a failed block's rounds
 */
export async function runPairBlocks(loader, ctx, { key, workload, pair, start, token, during, onFail }) {
  const { options, plan, log } = ctx;
  const rounds = [];
  for (let block = 0; block < plan.headBlocks; block++) {
    log(`bench: head to head ${key}, block ${block + 1}/${plan.headBlocks}`);
    const running = [];
    let stopBeside;
    try {
      for (const server of pair) running.push(await start(server));
      stopBeside = during?.(running);
      const tokens = pair.map((server) => token?.(server) ?? options.token);
      const load = { token: options.token, workload: workload.id, connections: plan.connections, warmup: 0 };
      await loader.burst({ ...load, urls: running.map((r) => r.url), tokens, duration: plan.warmup });
      for (let round = 0; round < plan.headRounds; round++) {
        // autocannon starts the first url's connections a moment before the second's.
        const swap = round % 2 === 1;
        const ordered = (list) => (swap ? [...list].reverse() : list);
        let atStart;
        let atEnd;
        const { results } = await loader.burst(
          { ...load, urls: ordered(running.map((r) => r.url)), tokens: ordered(tokens), duration: plan.headDuration },
          {
            timeoutMs: plan.headDuration * 1000 + 60_000,
            onLine(line) {
              if (line.startsWith('PHASE measure')) atStart = running.map(sample);
              else if (line.startsWith('RESULT')) atEnd = running.map(sample);
            },
          },
        );
        const [ra, rb] = ordered(results);
        const withCpu = (result, i) => ({
          ...result,
          ...perRequest(atStart[i].counts, atEnd[i].counts, result.total),
          cpuUsPerRequest: ((atEnd[i].cpu - atStart[i].cpu) * 1e6) / result.total,
          logBytesPerRequest: (atEnd[i].logBytes - atStart[i].logBytes) / result.total,
          valid: workload.expect(result.statusCodes),
        });
        rounds.push({ a: withCpu(ra, 0), b: withCpu(rb, 1) });
      }
    } catch (error) {
      onFail?.(error);
      log(`bench: ${key} failed: ${errorDetail(error)}`);
      // The block's missing rounds stay as gaps, so that the next blocks' rounds still pair
      // with their own block's (see headRatio).
      while (rounds.length < (block + 1) * plan.headRounds) rounds.push(undefined);
    } finally {
      await stopBeside?.();
      await Promise.all(running.map((r) => r.stop()));
    }
  }
  return rounds;
}

/**
 * A running server's CPU seconds so far, the size of its log file (NaN without one) and its
 * `counts()`, where it has them.
 */
function sample(running) {
  let logBytes = Number.NaN;
  if (running.logPath !== undefined) {
    try {
      logBytes = statSync(running.logPath).size;
    } catch {}
  }
  return { cpu: procCpuSeconds(running.pid), logBytes, counts: running.counts?.() ?? {} };
}

/** `{ <name>PerRequest }` for every total counted at both ends of a window of `total` requests. */
function perRequest(atStart, atEnd, total) {
  return Object.fromEntries(
    Object.keys(atEnd)
      .filter((name) => Number.isFinite(atStart[name]))
      .map((name) => [`${name}PerRequest`, (atEnd[name] - atStart[name]) / total]),
  );
}

/** The head-to-head table and its per-round ratios. */
export function headToHeadRows({ servers, head, pending }, options) {
  const label = (id) => servers.find((server) => server.id === id)?.label ?? id;
  const rows = [];
  const notes = [];
  for (const pair of headToHeadPairs(options.candidate)) {
    for (const workload of WORKLOADS) {
      const key = headKey(pair, workload);
      const all = head?.get(key) ?? [];
      const rounds = all.filter(Boolean);
      const name = pair.control
        ? `${label(pair.a)} vs a second copy (control)`
        : `${label(pair.a)} vs ${label(pair.b)}`;
      if (rounds.length === 0) {
        rows.push(`| ${name} | ${workload.label} | pending: ${pending.get(key) ?? 'not run'} | | | | | | |`);
        continue;
      }
      const rps = headRatio(all);
      const p99 = headRatio(all, 'p99Ms');
      const cpu = headRatio(all, 'cpuUsPerRequest');
      const of = (side, field) => median(rounds.map((r) => r[side][field]));
      const valid = rounds.every((r) => r.a.valid && r.b.valid);
      rows.push(
        `| ${name} | ${workload.label} | ${fmt.int(of('a', 'rps'))} / ${fmt.int(of('b', 'rps'))} | **${fmt.ratio(rps.ratio)}** | ${range(rps.rounds)} | ${fmt.ms(of('a', 'p99Ms'))} / ${fmt.ms(of('b', 'p99Ms'))} (${fmt.ratio(p99.ratio)}) | ${fmt.us(of('a', 'cpuUsPerRequest'))} / ${fmt.us(of('b', 'cpuUsPerRequest'))} (${fmt.ratio(cpu.ratio)}) | ${rounds.length} | ${valid ? '' : '**unexpected** '}${statuses(rounds, 'a')} / ${statuses(rounds, 'b')} |`,
      );
      notes.push(`- ${name}, ${workload.label}, req/s a / b per round: ${fmt.rounds(rps.rounds)}.`);
    }
  }
  return {
    table: [
      '| a vs b | workload | req/s a / b (median round) | a / b req/s | per-round range | p99 ms a / b (ratio) | server CPU µs/req a / b (ratio) | rounds | statuses a / b |',
      '|---|---|--:|--:|--:|--:|--:|--:|---|',
      ...rows,
    ],
    notes,
  };
}

/** One side's statuses summed over its rounds, with connection errors (which have no status) beside them. */
function statuses(rounds, side) {
  const sum = {};
  let errors = 0;
  for (const round of rounds) {
    for (const [code, count] of Object.entries(round[side].statusCodes)) sum[code] = (sum[code] ?? 0) + count;
    errors += round[side].errors ?? 0;
  }
  const text = Object.entries(sum)
    .map(([code, count]) => `${code}: ${fmt.int(count)}`)
    .join(', ');
  return errors ? `${text}, errors: ${fmt.int(errors)}` : text;
}

/** The targets of `pairs` (`{ a, b, limit? }` of `byId`'s contenders) that have a limit, as a part names them. */
export function pairTargets(part, pairs, byId) {
  const what = (pair) => `${part}: ${byId.get(pair.a).label} / ${byId.get(pair.b).label} req/s`;
  return pairs.filter((pair) => pair.limit !== undefined).map((pair) => [what(pair), `≥ ${pair.limit.toFixed(2)}x`]);
}

/**
 * The table rows, per-round notes and targets of `pairs` run by {@link runPairBlocks}: req/s a / b,
 * their ratio and its range, p99 and CPU per request, then the part's own `columns` (`{ field,
 * format }`: the median of that field on each side, "a / b"), the target and whether it is met.
 * `rounds` holds each pair's rounds by `a~b`, `pending` why a pair has none.
 */
export function pairReport(part, pairs, byId, { rounds, pending }, columns) {
  const rows = [];
  const notes = [];
  const targets = [];
  for (const pair of pairs) {
    const key = `${pair.a}~${pair.b}`;
    const all = rounds.get(key) ?? [];
    const done = all.filter(Boolean);
    const what = `${part}: ${byId.get(pair.a).label} / ${byId.get(pair.b).label} req/s`;
    const name = `${byId.get(pair.a).label} vs ${byId.get(pair.b).label}`;
    const limit = pair.limit === undefined ? 'reported' : `≥ ${pair.limit.toFixed(2)}x`;
    if (done.length === 0) {
      const why = pending.get(key) ?? 'not run';
      rows.push(`| ${name} | ${why} |${' |'.repeat(4 + columns.length)} ${limit} | — |`);
      if (pair.limit !== undefined) targets.push(target(what, why, limit, undefined));
      continue;
    }
    const rps = headRatio(all);
    const of = (side, field) => median(done.map((r) => r[side][field]));
    const both = (field, format) => `${format(of('a', field))} / ${format(of('b', field))}`;
    const cpu = headRatio(all, 'cpuUsPerRequest');
    const p99 = headRatio(all, 'p99Ms');
    const valid = done.every((r) => r.a.valid && r.b.valid);
    const ok = pair.limit === undefined ? undefined : valid && rps.ratio >= pair.limit;
    const own = columns.map(({ field, format }) => ` ${both(field, format)} |`).join('');
    rows.push(
      `| ${name} | ${both('rps', fmt.int)} | **${fmt.ratio(rps.ratio)}** | ${range(rps.rounds)} | ${both('p99Ms', fmt.ms)} (${fmt.ratio(p99.ratio)}) | ${both('cpuUsPerRequest', fmt.us)} (${fmt.ratio(cpu.ratio)}) |${own} ${limit} | ${valid ? met(ok) : '**unexpected statuses**'} |`,
    );
    notes.push(`- ${name}, req/s a / b per round: ${fmt.rounds(rps.rounds)}.`);
    if (pair.limit !== undefined) targets.push(target(what, fmt.ratio(rps.ratio), limit, ok));
  }
  return { rows, notes, targets };
}
