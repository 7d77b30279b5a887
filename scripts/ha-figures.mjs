// The figures of the high-availability suite on docs/production.md (`npm run docs:ha`): a table of every
// fault the suite injects, a row per event and path (creates sent, acknowledged, lost, answered 503, and
// when the path served again), and each event's own figures in a list below it, all made from the report
// of one run that is committed beside the suite (test/ha/report.json). A run of the suite writes it:
// `PLANT_STORE_HA_REPORT=test/ha/report.json npm run test:ha`, then this script. `--check` only compares
// and exits 1 naming this command; test/docs/ha-figures.test.ts makes the same comparison.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tableBody, writeSections } from './page-sections.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

export const HA_REPORT = 'test/ha/report.json';
export const HA_FIGURES_PAGE = 'docs/production.md';
export const HA_FIGURES_COMMAND = 'npm run docs:ha';
export const HA_FIGURES_START = '<!-- ha-figures:start -->';
export const HA_FIGURES_END = '<!-- ha-figures:end -->';

/** @returns {import('./ha-figures.d.mts').HaReport} */
export function readHaReport() {
  return JSON.parse(readFileSync(join(root, HA_REPORT), 'utf8'));
}

const count = (n) => n.toLocaleString('en-US');
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const wholeSeconds = (ms) => `${ms / 1000} s`;

/** The programs' versions as the suite read them (`patroni 3.0.2, etcd Version: 3.4.23, …`), named plainly. */
function versionsOf(text) {
  const found = [
    ['Patroni', /patroni ([^\s,]+)/],
    ['etcd', /etcd Version: ([^\s,]+)/],
    ['HAProxy', /HAProxy version ([^\s,]+)/],
    ['PostgreSQL', /\(PostgreSQL\) ([^\s,]+)/],
  ].map(([name, pattern]) => [name, pattern.exec(text)?.[1]]);
  return found.every(([, version]) => version) ? found.map((pair) => pair.join(' ')).join(', ') : text;
}
const minutes = (ms) => `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;

/** `a` for one path's figure, `a and b (host list, HAProxy)` for both paths' (host list first). */
function perPath(paths, figure) {
  const ordered = [...paths].sort((a, b) => (a.path === 'host list' ? -1 : b.path === 'host list' ? 1 : 0));
  return `${ordered.map((each) => count(figure(each))).join(' and ')} (${ordered.map((each) => each.path).join(', ')})`;
}

/**
 * What one event showed beyond the table, in a sentence, or undefined: a rejoin, the leader cut from etcd
 * (its demotion, the new leader, what it acknowledged after the cut), the standby cut off (when Patroni
 * dropped it, what was acknowledged meanwhile and afterwards, when it was synchronous again).
 * @param {import('./ha-figures.d.mts').HaReport} report
 */
function eventNote(report, entry, paths) {
  if (entry.kind === 'rejoin') {
    const since = entry.since === 'heal' ? 'the heal' : 'its Patroni started';
    return `${entry.event}: ${entry.rewound ? 'rewound by pg_rewind' : 'no rewind needed'}, no new copy; the synchronous standby ${seconds(entry.syncStandbyAfterMs)} after ${since}.`;
  }
  if (entry.demotedAfterMs !== undefined) {
    return (
      `${entry.event}: the old leader was no longer primary ${seconds(entry.demotedAfterMs)} after the cut, and ` +
      `the new one primary after ${seconds(entry.newLeaderAfterMs)} (ttl ${report.timings.ttl} s), never both; ` +
      `the old leader acknowledged ${perPath(paths, (each) => each.acknowledgedByOldLeader)} creates after the cut, each of them found on the new one.`
    );
  }
  if (entry.cutMs !== undefined) {
    const alone = paths.some((each) => each.acknowledgedAlone !== undefined);
    const dropped =
      entry.standbyDroppedAfterMs === undefined
        ? ''
        : `Patroni removed the standby from the sync key ${seconds(entry.standbyDroppedAfterMs)} after the cut ` +
          `(wal_sender_timeout ${report.walSenderTimeoutS} s)${alone ? '' : ' and kept the leader waiting'}; `;
    const then = alone
      ? `; then the leader acknowledged ${perPath(paths, (each) => each.acknowledgedAlone)} creates alone until the heal`
      : '';
    return (
      `${entry.event}: cut for ${seconds(entry.cutMs)}, the ${count(entry.cancelledCommits)} commits waiting for ` +
      `the standby a second into it cancelled (pg_cancel_backend, as an operator does); ${dropped}` +
      `${perPath(paths, (each) => each.acknowledgedWhileWaiting)} creates acknowledged while the leader had to wait, ` +
      `the slowest answer in ${seconds(Math.max(...paths.map((each) => each.slowestAnswerMs)))}${then}; ` +
      `the standby synchronous again ${seconds(entry.syncAgainAfterHealMs)} after the heal, which reset ` +
      `the stream the leader had ended during the cut.`
    );
  }
  return undefined;
}

/**
 * The page's part made of `report`: where it comes from, a row per event and path, and the events' own
 * figures.
 * @param {import('./ha-figures.d.mts').HaReport} report
 */
export function haFigures(report) {
  const paths = report.events.filter((entry) => entry.kind === 'path');
  const rows = paths.map((each) => [
    each.event,
    `${each.path}${each.workers === 2 ? ', `--workers 2`' : ''}`,
    count(each.sent),
    count(each.acknowledged),
    count(each.lost),
    count(each.unavailable),
    count(each.other),
    seconds(each.longestWithout200Ms),
    seconds(each.servingAgainMs),
  ]);
  const table = tableBody(
    `Made by ${HA_FIGURES_COMMAND} from ${HA_REPORT}; do not edit`,
    [
      'Fault',
      'Path',
      'Creates sent',
      'Acknowledged',
      'Lost',
      'Answered 503',
      'Other',
      'Longest without a 200',
      '200 again after',
    ],
    rows,
  );
  const notes = report.events
    .filter((entry) => entry.kind !== 'path')
    .map((entry) =>
      eventNote(
        report,
        entry,
        paths.filter((each) => each.event === entry.event),
      ),
    )
    .filter((note) => note !== undefined);
  const { ttl, loop_wait, retry_timeout } = report.timings;
  return [
    '',
    `From one run of \`${report.command}\`, finished ${report.finishedAt.slice(0, 10)} in ${minutes(report.durationMs)} ` +
      `on ${report.cpus} cores (${versionsOf(report.versions)}; Patroni's ttl ${ttl} s, loop_wait ${loop_wait} s, ` +
      `retry_timeout ${retry_timeout} s; wal_sender_timeout ${report.walSenderTimeoutS} s; the servers' statement ` +
      `timeout ${wholeSeconds(report.statementTimeoutMs)}). ` +
      `"Creates sent" counts every request, a create sent again after a 503 too; "200 again after" runs ` +
      `from the fault to the 200 that ended the path's longest stretch without one (where nothing stopped, ` +
      `that stretch is a slow moment of the machine's).`,
    table.trimEnd(),
    '',
    ...notes.map((note) => `- ${note}`),
    '',
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await writeSections(
    root,
    [{ page: HA_FIGURES_PAGE, start: HA_FIGURES_START, end: HA_FIGURES_END, body: haFigures(readHaReport()) }],
    { what: 'figures of the high-availability suite', command: HA_FIGURES_COMMAND },
  );
}
