// A real Prometheus scraping a real `--workers 2` server on PostgreSQL, with the files of
// examples/prometheus: the shipped alert rules load and evaluate; the static job scrapes the ops port;
// the Kubernetes job, given the discovery labels of the Kubernetes example's pods through a file (Debian
// builds Prometheus without Kubernetes discovery), keeps the server's ops port and drops the rest; the
// request counter and the latency histogram Prometheus holds equal what was sent, per status, summed
// over both workers; and PlantStoreDown goes pending once the server stops.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { listening, run } from '../../packages/server/test/cli-process.js';
import { repoRoot } from '../packaging/helpers.js';
import { freePort, openTestDatabase, type TestDatabase } from '../support/postgres.js';
import { alive, descendants } from '../support/processes.js';
import {
  discoveredPod,
  kubernetesExamplePod,
  type PrometheusConfig,
  type RunningPrometheus,
  type Sample,
  startPrometheus,
  withFileDiscovery,
} from '../support/prometheus.js';
import { describeWithTools } from '../support/system-tools.js';

const example = join(repoRoot, 'examples/prometheus');
const shipped = load(readFileSync(join(example, 'prometheus.yml'), 'utf8')) as PrometheusConfig;
const alerts = (
  load(readFileSync(join(example, 'alerts.yml'), 'utf8')) as {
    groups: { rules: { alert: string; expr: string; annotations: Record<string, string> }[] }[];
  }
).groups.flatMap((group) => group.rules);
const [STATIC_JOB, PODS_JOB] = ['plant-store', 'plant-store-pods'] as const;
const TOKEN = 'prometheus-t0ken';
const pod = kubernetesExamplePod();
// The pod of the Kubernetes example whose ops port the server answers on.
const POD = { name: 'plant-store-7d9f-x2k4q', namespace: 'default' };

/** Polls `probe` every 200 ms until it returns something other than undefined; at most `ms`. */
async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** `{ "<status> <code>": value }` of samples summed by status and code. */
const byStatusAndCode = (samples: Sample[]) =>
  Object.fromEntries(samples.map((s) => [`${s.metric.status} ${s.metric.code ?? ''}`.trimEnd(), s.value]));

/** POST /plants on a connection of its own (so that the primary hands the creates to both workers). */
function create(url: string, body: string, token?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/plants`,
      {
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          ...(token !== undefined && { authorization: `Bearer ${token}` }),
        },
        timeout: 10_000,
      },
      (res) => {
        res.resume();
        res.once('end', () => resolve(res.statusCode!));
      },
    );
    req.once('timeout', () => req.destroy(new Error('no answer within 10 s')));
    req.once('error', reject);
    req.end(body);
  });
}

describeWithTools(
  ['prometheus'],
  'a real Prometheus scraping a --workers 2 server with the example configuration',
  () => {
    const work = mkdtempSync(join(tmpdir(), 'plant-store-prometheus-'));
    let db: TestDatabase | undefined;
    let prometheus: RunningPrometheus | undefined;
    let opsPort = 0;

    beforeAll(async () => {
      db = await openTestDatabase();
      opsPort = await freePort();
      const podsFile = join(work, 'pods.json');
      // Besides the server's pod, two the Kubernetes job must leave out: another app's, and an evicted one
      // of ours. 192.0.2.0/24 is for documentation: nothing there is ever scraped.
      const nowhere = (host: string) => (port: number) => `${host}:${port}`;
      writeFileSync(
        podsFile,
        JSON.stringify([
          ...discoveredPod(pod, {
            ...POD,
            phase: 'Running',
            // Its ops port is the server's; its API port must be left out.
            address: (port) => (port === pod.opsPort ? `127.0.0.1:${opsPort}` : `192.0.2.1:${port}`),
          }),
          ...discoveredPod(
            { ...pod, labels: { 'app.kubernetes.io/name': 'another-app' } },
            { name: 'another-app-5c4b-q8w2e', namespace: 'default', phase: 'Running', address: nowhere('192.0.2.2') },
          ),
          ...discoveredPod(pod, {
            name: 'plant-store-7d9f-evicted',
            namespace: 'default',
            phase: 'Failed',
            address: nowhere('192.0.2.3'),
          }),
        ]),
      );
      const discovered = withFileDiscovery(shipped, podsFile);
      const config: PrometheusConfig = {
        ...discovered,
        global: { ...discovered.global, scrape_interval: '1s', evaluation_interval: '1s' },
        rule_files: [join(example, 'alerts.yml')],
        scrape_configs: discovered.scrape_configs.map((job) =>
          job.static_configs === undefined ? job : { ...job, static_configs: [{ targets: [`127.0.0.1:${opsPort}`] }] },
        ),
      };
      prometheus = await startPrometheus(config, join(work, 'prometheus'));
    }, 60_000);

    afterAll(async () => {
      try {
        if (prometheus !== undefined) {
          await prometheus.stop();
          if (alive(prometheus.pid)) throw new Error(`prometheus (pid ${prometheus.pid}) still runs`);
        }
      } finally {
        await db?.close();
        rmSync(work, { recursive: true, force: true });
      }
    });

    it('loads every rule of alerts.yml, and evaluates each without error', async () => {
      type Rule = { name: string; health: string; lastError?: string; lastEvaluation: string };
      const rules = await until('every rule evaluated', async () => {
        const data = await prometheus!.api<{ groups: { rules: Rule[] }[] }>('/api/v1/rules');
        const all = data.groups.flatMap((group) => group.rules);
        return all.length > 0 && all.every((rule) => !rule.lastEvaluation.startsWith('0001-')) ? all : undefined;
      });
      expect(rules.map((rule) => rule.name).sort()).toEqual(alerts.map((rule) => rule.alert).sort());
      expect(rules.filter((rule) => rule.health !== 'ok' || rule.lastError)).toEqual([]);
    }, 60_000);

    it("keeps, in the Kubernetes job, only the ops port of the example's running pods", async () => {
      type Target = { labels: Record<string, string>; discoveredLabels: Record<string, string> };
      const targets = await until('the discovery file read', async () => {
        const data = await prometheus!.api<{ activeTargets: Target[]; droppedTargets: Target[] }>('/api/v1/targets');
        const dropped = data.droppedTargets.filter((t) => t.discoveredLabels.job === PODS_JOB);
        return dropped.length > 0 ? { active: data.activeTargets, dropped } : undefined;
      });
      expect(targets.active.filter((t) => t.labels.job === PODS_JOB).map((t) => t.labels)).toEqual([
        { instance: `127.0.0.1:${opsPort}`, job: PODS_JOB, namespace: POD.namespace, pod: POD.name },
      ]);
      const name = (t: Target) =>
        `${t.discoveredLabels.__meta_kubernetes_pod_name} ${t.discoveredLabels.__meta_kubernetes_pod_container_port_name}`;
      expect(targets.dropped.map(name).sort()).toEqual([
        'another-app-5c4b-q8w2e api',
        'another-app-5c4b-q8w2e ops',
        'plant-store-7d9f-evicted api',
        'plant-store-7d9f-evicted ops',
        `${POD.name} api`,
      ]);
    }, 60_000);

    it('holds the requests a --workers 2 server answered, per status and code, summed over its workers', async () => {
      const started = Date.now();
      const server = run([
        '--database',
        db!.url,
        '--database-schema',
        db!.schema,
        '--database-table',
        db!.table(),
        '--workers',
        '2',
        '--port',
        '0',
        '--ops-port',
        String(opsPort),
        '--ops-host',
        '127.0.0.1',
        '--token',
        TOKEN,
        '--log',
      ]);
      const url = await listening(server);
      const workers = descendants(server.child.pid!);
      expect(workers).toHaveLength(2);
      const up = (job: string) => prometheus!.query(`up{job="${job}"}`).then((samples) => samples[0]?.value);
      await until('both jobs scraping the server', async () =>
        (await up(STATIC_JOB)) === 1 && (await up(PODS_JOB)) === 1 ? true : undefined,
      );
      const requests = (job: string) =>
        prometheus!
          .query(`sum by (status, code) (plant_store_http_requests_total{job="${job}"})`)
          .then(byStatusAndCode);
      // Nothing answered yet: the counter has no series.
      expect(await requests(STATIC_JOB)).toEqual({});

      const sent: Record<string, number> = {};
      const send = async (expected: string, body: string, token?: string) => {
        const status = await create(url, body, token);
        expect(status, `${body} ${token}`).toBe(Number(expected.split(' ')[0]));
        sent[expected] = (sent[expected] ?? 0) + 1;
      };
      for (let id = 1; id <= 30; id++) await send('200', `{"id":${id},"name":"plant ${id}"}`, TOKEN);
      for (let i = 0; i < 3; i++) await send('400 40001', '{"id":', TOKEN);
      for (let i = 0; i < 3; i++) await send('400 40003', '{"id":1,"name":"not plant 1"}', TOKEN);
      for (let i = 0; i < 2; i++) await send('401 40101', '{"id":31,"name":"plant 31"}');
      for (let i = 0; i < 2; i++) await send('401 40102', '{"id":31,"name":"plant 31"}', 'wrong');
      const lastAnswer = Date.now();

      // A scrape of each job that started after the last answer holds it (a worker counts an answer as it writes it).
      type Target = { labels: Record<string, string>; lastScrape: string };
      await until('a scrape of each job after the last answer', async () => {
        const data = await prometheus!.api<{ activeTargets: Target[] }>('/api/v1/targets', { state: 'active' });
        const scraped = (job: string) =>
          data.activeTargets.some((t) => t.labels.job === job && Date.parse(t.lastScrape) > lastAnswer);
        return scraped(STATIC_JOB) && scraped(PODS_JOB) ? true : undefined;
      });
      expect(sent).toEqual({ '200': 30, '400 40001': 3, '400 40003': 3, '401 40101': 2, '401 40102': 2 });
      expect(await requests(STATIC_JOB)).toEqual(sent);
      expect(await requests(PODS_JOB)).toEqual(sent);

      // The latency histogram: one observation per answer, by status.
      const byStatus: Record<string, number> = {};
      for (const [key, count] of Object.entries(sent)) {
        const status = key.split(' ')[0]!;
        byStatus[status] = (byStatus[status] ?? 0) + count;
      }
      const histogram = (expression: string) =>
        prometheus!
          .query(expression)
          .then((samples) => Object.fromEntries(samples.map((s) => [s.metric.status, s.value])));
      const duration = 'plant_store_http_request_duration_seconds';
      expect(await histogram(`sum by (status) (${duration}_count{job="${STATIC_JOB}"})`)).toEqual(byStatus);
      expect(await histogram(`sum by (status) (${duration}_bucket{job="${STATIC_JOB}", le="+Inf"})`)).toEqual(byStatus);
      const sums = await histogram(`sum by (status) (${duration}_sum{job="${STATIC_JOB}"})`);
      expect(Object.keys(sums).sort()).toEqual(Object.keys(byStatus).sort());
      const elapsed = (lastAnswer - started) / 1000;
      for (const [status, seconds] of Object.entries(sums)) {
        expect(seconds, status).toBeGreaterThan(0);
        expect(seconds, status).toBeLessThan(elapsed);
      }
      const buckets = await prometheus!.query(`sum by (le) (${duration}_bucket{job="${STATIC_JOB}"})`);
      const bound = (le: string) => (le === '+Inf' ? Number.POSITIVE_INFINITY : Number(le));
      const cumulative = buckets.map((b) => [bound(b.metric.le!), b.value] as const).sort(([a], [b]) => a - b);
      expect(cumulative.length).toBeGreaterThan(2);
      for (let i = 1; i < cumulative.length; i++)
        expect(cumulative[i]![1]).toBeGreaterThanOrEqual(cumulative[i - 1]![1]);
      expect(cumulative.at(-1)).toEqual([Number.POSITIVE_INFINITY, 40]);
      // Its p99 over every answer so far: a finite number of seconds.
      const [p99] = await prometheus!.query(
        `histogram_quantile(0.99, sum by (le) (${duration}_bucket{job="${STATIC_JOB}"}))`,
      );
      expect(p99!.value).toBeGreaterThan(0);
      expect(p99!.value).toBeLessThanOrEqual(5);

      // What Prometheus holds is the primary's sum: each worker answered some of the creates (its log lines).
      const answered = await until('a log line per request', async () => {
        // Whole lines only: the last may still be on its way.
        const lines = server.stderr
          .split('\n')
          .slice(0, -1)
          .filter((line) => line.startsWith('{'))
          .map((line) => JSON.parse(line) as { message: string; worker?: number; status: number; errorCode?: number })
          .filter((line) => line.message === 'request');
        return lines.length >= 40 ? lines : undefined;
      });
      const perWorker = new Map<number, Record<string, number>>();
      for (const line of answered) {
        const tally = perWorker.get(line.worker!) ?? {};
        const key = `${line.status} ${line.errorCode ?? ''}`.trimEnd();
        tally[key] = (tally[key] ?? 0) + 1;
        perWorker.set(line.worker!, tally);
      }
      expect(perWorker.size).toBe(2);
      const summed: Record<string, number> = {};
      for (const tally of perWorker.values()) {
        for (const [key, count] of Object.entries(tally)) summed[key] = (summed[key] ?? 0) + count;
      }
      expect(summed).toEqual(await requests(STATIC_JOB));

      // Every metric alerts.yml names (its expressions and its annotations) is one Prometheus holds.
      const names = new Set(await prometheus!.api<string[]>('/api/v1/label/__name__/values'));
      const named = new Set(alerts.flatMap((rule) => JSON.stringify(rule).match(/\bplant_store_\w+/g) ?? []));
      expect(named.size).toBeGreaterThanOrEqual(4);
      for (const name of named) {
        expect(
          ['', '_bucket', '_count', '_sum'].some((suffix) => names.has(name + suffix)),
          name,
        ).toBe(true);
      }

      // PlantStoreDown: not pending while the server is scraped, pending once it stops answering.
      type Alert = { labels: Record<string, string>; state: string };
      const down = async () =>
        (await prometheus!.api<{ alerts: Alert[] }>('/api/v1/alerts')).alerts.filter(
          (alert) => alert.labels.alertname === 'PlantStoreDown',
        );
      await until('PlantStoreDown to clear', async () => ((await down()).length === 0 ? true : undefined));
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
      expect(workers.filter(alive)).toEqual([]);
      const pending = await until('PlantStoreDown pending for both jobs', async () => {
        const found = await down();
        return found.length === 2 ? found : undefined;
      });
      expect(pending.map((alert) => `${alert.labels.job} ${alert.state}`).sort()).toEqual([
        `${STATIC_JOB} pending`,
        `${PODS_JOB} pending`,
      ]);
    }, 90_000);
  },
);
