// The servers part's section of the results: one row per server and load (one at a time), the
// head-to-head table, the per-round ratios, the instruction counts and the disk's fsync latency.
// The targets: ours ≥ 0.92x raw req/s and ahead of fastify (head to head), p99 ≤ 1.2x raw (one at a
// time, where a server's latency is its own), durable ≥ 0.5x ours in memory.
import { DURABLE_PAIR, WORKLOADS } from '../lib/contenders.mjs';
import { fmt, met, notMeasured, target } from '../lib/report.mjs';
import { headRatio, pairedRatio } from '../lib/stats.mjs';
import { headToHeadRows } from './head-to-head.mjs';

const TITLE = '### Servers';
const OURS_TARGET = '≥ 0.92x raw req/s and > fastify (head to head), p99 ≤ 1.2x raw';

export function reportServers(outcome, { options, plan }) {
  if (!outcome.value) {
    return notMeasured(
      TITLE,
      outcome,
      WORKLOADS.flatMap((w) => [
        [`server req/s vs raw, head to head (${w.id})`, '≥ 0.92x'],
        [`server req/s vs fastify, head to head (${w.id})`, '> 1.00x'],
        [`server p99 vs raw, one at a time (${w.id})`, '≤ 1.2x'],
        [`durable req/s vs memory (${w.id})`, '≥ 0.5x'],
      ]),
    );
  }
  const servers = outcome.value;
  const targets = [];
  const rows = [];
  const notes = [];
  for (const workload of WORKLOADS) {
    const runsOf = (id) => servers.runs.get(`${id}/${workload.id}`);
    const vsRaw = (id, field) => pairedRatio(runsOf(id), runsOf('raw'), field);
    for (const server of servers.servers) {
      let verdict = '—';
      let limit = server.id === 'raw' ? 'baseline' : 'reference';
      if (server.id === 'ours') {
        limit = OURS_TARGET;
        verdict = met(judgeOurs(servers, workload, targets, notes));
      } else if (server.durable) {
        limit = '≥ 0.5x memory req/s';
        const durable = pairedRatio(runsOf(server.id), runsOf(DURABLE_PAIR));
        const ok = Number.isFinite(durable.ratio) ? durable.ratio >= 0.5 : undefined;
        targets.push(
          target(
            `durable req/s vs memory (${workload.id})`,
            ok === undefined ? 'pending' : fmt.ratio(durable.ratio),
            '≥ 0.5x',
            ok,
          ),
        );
        if (ok !== undefined)
          notes.push(`- ${workload.label}, per round: durable / memory req/s ${fmt.rounds(durable.rounds)}.`);
        verdict = met(ok);
      }
      rows.push(serverRow(servers, server, workload, runsOf, vsRaw, limit, verdict));
    }
  }
  for (const [id, check] of servers.checks) {
    if (check.failed.length) notes.push(`- ${id} fails contract checks: ${check.failed.join('; ')}.`);
  }
  const head = headToHeadRows(servers, options);
  return {
    targets: [...targets, ...instructionTargets(servers.instructions)],
    lines: [
      TITLE,
      '',
      `One at a time: autocannon, ${plan.connections} connections, pipelining 1, ${plan.warmup} s warm-up then ${plan.duration} s measured, ${plan.rounds} round(s); the durable rows in as many rounds of their own, each beside a run of ours.`,
      '',
      '| server | workload | req/s | vs raw, one at a time | p50 ms | p99 ms | p99 vs raw | server CPU µs/req (vs raw) | peak RSS MiB | CPU use server / loader | statuses | contract checks | target | met |',
      '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|---|--:|---|---|',
      ...rows,
      '',
      '#### Head to head',
      '',
      `${plan.headBlocks} block(s) of a fresh pair on one core: ${plan.warmup} s warm-up, then ${plan.headRounds} rounds of ${plan.headDuration} s, the start order swapped every round.`,
      '',
      ...head.table,
      '',
      '#### Details',
      '',
      ...notes,
      ...head.notes,
      ...instructionLines(servers.instructions),
      ...(servers.fsync
        ? [
            `- One append + \`fdatasync\` in the temp directory: p50 ${fmt.ms(servers.fsync.p50Ms)} ms, p99 ${fmt.ms(servers.fsync.p99Ms)} ms (${servers.fsync.count} sequential, after the loads).`,
          ]
        : []),
      '',
    ],
  };
}

/** Judges ours on one load (targets and notes pushed); undefined when a figure is missing. */
function judgeOurs(servers, workload, targets, notes) {
  const runsOf = (id) => servers.runs.get(`${id}/${workload.id}`);
  const rps = headRatio(servers.head.get(`ours~raw/${workload.id}`));
  const fastify = headRatio(servers.head.get(`ours~fastify/${workload.id}`));
  const p99 = pairedRatio(runsOf('ours'), runsOf('raw'), 'p99Ms');
  const judged = [
    [rps.ratio, `server req/s vs raw, head to head (${workload.id})`, '≥ 0.92x', rps.ratio >= 0.92],
    [fastify.ratio, `server req/s vs fastify, head to head (${workload.id})`, '> 1.00x', fastify.ratio > 1],
    [p99.ratio, `server p99 vs raw, one at a time (${workload.id})`, '≤ 1.2x', p99.ratio <= 1.2],
  ];
  for (const [ratio, what, limit, ok] of judged) {
    targets.push(
      target(
        what,
        Number.isFinite(ratio) ? fmt.ratio(ratio) : 'pending',
        limit,
        Number.isFinite(ratio) ? ok : undefined,
      ),
    );
  }
  const alone = pairedRatio(runsOf('ours'), runsOf('raw'));
  const aloneFastify = pairedRatio(runsOf('ours'), runsOf('fastify'));
  const cpu = pairedRatio(runsOf('ours'), runsOf('fastify'), 'cpuUsPerRequest');
  notes.push(
    `- ${workload.label}, one at a time: ours / raw req/s ${fmt.rounds(alone.rounds)} (paired ${fmt.ratio(alone.ratio)}); ours / fastify ${fmt.rounds(aloneFastify.rounds)} (paired ${fmt.ratio(aloneFastify.ratio)}); p99 ours / raw ${fmt.rounds(p99.rounds)}; server CPU per request ours / fastify ${fmt.rounds(cpu.rounds)} (paired ${fmt.ratio(cpu.ratio)}).`,
  );
  if (!judged.every(([ratio]) => Number.isFinite(ratio))) return undefined;
  return judged.every(([, , , ok]) => ok);
}

function serverRow(servers, server, workload, runsOf, vsRaw, limit, verdict) {
  const done = (runsOf(server.id) ?? []).filter(Boolean);
  if (done.length === 0) {
    return `| ${server.label} | ${workload.label} | pending: ${servers.pending.get(server.id) ?? 'not run'} | | | | | | | | | | ${limit} | pending |`;
  }
  // The median round by req/s; peak RSS is the highest of any round.
  const r = [...done].sort((a, b) => a.rps - b.rps)[(done.length - 1) >> 1];
  const peakRss = Math.max(...done.map((x) => x.peakRssMiB));
  const statuses = Object.entries(r.statusCodes)
    .map(([code, count]) => `${code}: ${fmt.int(count)}`)
    .join(', ');
  const check = servers.checks.get(server.id);
  const contract = check ? `${check.total - check.failed.length}/${check.total}` : '—';
  const raw = server.id !== 'raw' && runsOf('raw') !== undefined;
  const ratio = (field) => (raw ? fmt.ratio(vsRaw(server.id, field).ratio) : '1.00x');
  return `| ${server.label} | ${workload.label} | ${fmt.int(r.rps)} | ${ratio('rps')} | ${fmt.ms(r.p50Ms)} | ${fmt.ms(r.p99Ms)} | ${ratio('p99Ms')} | ${fmt.us(r.cpuUsPerRequest)}${raw ? ` (${ratio('cpuUsPerRequest')})` : ''} | ${fmt.mib(peakRss)} | ${fmt.pct(r.serverCpu)} / ${fmt.pct(r.loaderCpu)} | ${r.valid ? '' : '**unexpected** '}${statuses}${r.errors ? `, errors: ${r.errors}` : ''} | ${contract} | ${limit} | ${verdict} |`;
}

const perRequest = (list) => Object.fromEntries(list.map((r) => [r.id, r.perRequest]));

function instructionTargets(instructions) {
  if (instructions?.value === undefined) return [];
  const unique = perRequest(instructions.value);
  const fixed = perRequest(instructions.fixed);
  const both = (base) => `${fmt.ratio(unique.ours / unique[base])} / ${fmt.ratio(fixed.ours / fixed[base])}`;
  return [
    target(
      'server instructions per request vs raw (unique / fixed; valgrind, user space)',
      both('raw'),
      'reported (steady figure)',
      undefined,
    ),
    target(
      'server instructions per request vs fastify (unique / fixed; valgrind, user space)',
      both('fastify'),
      'reported (steady figure)',
      undefined,
    ),
  ];
}

function instructionLines(instructions) {
  if (instructions?.value === undefined)
    return [`- Instructions per request: not counted (${instructions?.pending ?? 'not run'}).`];
  const line = (label, by) =>
    `${label} raw ${fmt.int(by.raw)}, fastify ${fmt.int(by.fastify)}, ours ${fmt.int(by.ours)}: ours **${fmt.ratio(by.ours / by.raw)}** of raw and **${fmt.ratio(by.ours / by.fastify)}** of fastify`;
  return [
    `- Instructions per request (valgrind, user space; 500 requests subtracted from 2,500): ${line('unique creates', perRequest(instructions.value))}; ${line('fixed id', perRequest(instructions.fixed))}.`,
  ];
}
