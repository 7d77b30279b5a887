// examples/prometheus checked offline: promtool accepts prometheus.yml and alerts.yml and passes the rules'
// unit tests (alerts.test.yml), and fails each on a broken copy; the rules use only metric names a running
// server exposes and Error codes the spec has, with their statuses; the jobs they name are the
// configuration's; the Kubernetes job selects the pods and the ops port of examples/kubernetes. A real
// Prometheus scraping a real server with these files: test/postgres/prometheus.test.ts.
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ErrorCode, errorStatus } from '@plant-store/core';
import { load } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listening, run as runCli } from '../../packages/server/test/cli-process.js';
import { repoRoot, run } from '../../test/packaging/helpers.js';
import {
  discoveryLabelName,
  kubernetesExamplePod,
  type PrometheusConfig,
  withFileDiscovery,
} from '../../test/support/prometheus.js';
import { describeWithTools, findTool } from '../../test/support/system-tools.js';

const here = join(repoRoot, 'examples/prometheus');
const read = (name: string) => readFileSync(join(here, name), 'utf8');
const config = load(read('prometheus.yml')) as PrometheusConfig;

interface AlertRule {
  alert: string;
  expr: string;
  for: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}
const rules = (load(read('alerts.yml')) as { groups: { rules: AlertRule[] }[] }).groups.flatMap((g) => g.rules);

interface AlertTest {
  alertname: string;
  exp_alerts?: unknown[];
}
const unitTests = load(read('alerts.test.yml')) as { rule_files: string[]; tests: { alert_rule_test: AlertTest[] }[] };

const work = mkdtempSync(join(tmpdir(), 'plant-store-prometheus-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A /metrics scrape of a server in memory that answered a 200, a 400 and a 401. */
let scrape = '';
beforeAll(async () => {
  const token = 'prometheus-example';
  const server = runCli(['--port', '0', '--ops-port', '0', '--token', token]);
  const url = await listening(server);
  const ops = /Operations: (\S+)\/livez/.exec(server.stdout)?.[1];
  if (ops === undefined) throw new Error(`no operations URL in the banner: ${server.stdout}`);
  const create = (body: string, headers: Record<string, string>) =>
    fetch(`${url}/plants`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const statuses = [
    (await create('{"id":1,"name":"Fern"}', { authorization: `Bearer ${token}` })).status,
    (await create('not json', { authorization: `Bearer ${token}` })).status,
    (await create('{"id":2,"name":"Moss"}', {})).status,
  ];
  expect(statuses).toEqual([200, 400, 401]);
  scrape = await (await fetch(`${ops}/metrics`)).text();
  server.child.kill('SIGTERM');
  expect(await server.exited).toBe(0);
});

describeWithTools(['promtool'], 'the Prometheus example, checked by promtool', () => {
  const promtool = (...args: string[]) => run(findTool('promtool')!, args, { cwd: work, timeoutMs: 60_000 });
  /** A directory with alerts.test.yml and a copy of alerts.yml whose `from` (which must occur) is `to`. */
  const brokenRules = (from: string, to: string) => {
    const dir = mkdtempSync(join(work, 'broken-'));
    copyFileSync(join(here, 'alerts.test.yml'), join(dir, 'alerts.test.yml'));
    const text = read('alerts.yml');
    expect(text).toContain(from);
    writeFileSync(join(dir, 'alerts.yml'), text.replace(from, to));
    return dir;
  };
  /**
   * prometheus.yml as promtool can check it everywhere: its Kubernetes discovery replaced by a file
   * discovery, the rest as it is (with `from` replaced by `to`, which must occur, to break it).
   */
  const withoutKubernetes = (from = '', to = '') => {
    const dir = mkdtempSync(join(work, 'file-discovery-'));
    const text = JSON.stringify({
      ...withFileDiscovery(config, join(dir, 'pods.json')),
      rule_files: [join(here, 'alerts.yml')],
    });
    expect(text).toContain(from);
    writeFileSync(join(dir, 'prometheus.yml'), text.replace(from, to));
    return join(dir, 'prometheus.yml');
  };

  it('check rules accepts alerts.yml, every rule with a for:, a severity, a summary and a description', async () => {
    const result = await promtool('check', 'rules', join(here, 'alerts.yml'));
    expect(result.status, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain(`SUCCESS: ${rules.length} rules found`);
    for (const rule of rules) {
      expect(rule.for, rule.alert).toMatch(/^\d+[smh]$/);
      expect(['critical', 'warning'], rule.alert).toContain(rule.labels.severity);
      expect(Object.keys(rule.annotations).sort(), rule.alert).toEqual(['description', 'summary']);
    }
  });

  it('test rules passes alerts.test.yml, which fires every alert and keeps each silent somewhere', async () => {
    const result = await promtool('test', 'rules', join(here, 'alerts.test.yml'));
    expect(result.status, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain('SUCCESS');
    expect(unitTests.rule_files).toEqual(['alerts.yml']);
    const cases = unitTests.tests.flatMap((test) => test.alert_rule_test);
    for (const { alert } of rules) {
      const mine = cases.filter((c) => c.alertname === alert);
      expect(
        mine.some((c) => (c.exp_alerts ?? []).length > 0),
        `${alert} fires in a test`,
      ).toBe(true);
      expect(
        mine.some((c) => (c.exp_alerts ?? []).length === 0),
        `${alert} stays silent in a test`,
      ).toBe(true);
    }
  });

  it('check config accepts prometheus.yml; where promtool lacks Kubernetes discovery, with a file discovery for it', async () => {
    const original = await promtool('check', 'config', join(here, 'prometheus.yml'));
    // Debian's build has no Kubernetes discovery, and says so; any other complaint is the file's.
    if (original.status !== 0)
      expect(original.stdout + original.stderr).toMatch(/field kubernetes_sd_configs not found/);
    const result = await promtool('check', 'config', withoutKubernetes());
    expect(result.status, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain('SUCCESS: 1 rule files found');
  });

  it("passes check metrics with the server's own metrics, and fails a gauge named like a counter", async () => {
    // prom-client's process metrics are not ours to name (nodejs_active_handles_total is a gauge).
    const own = scrape
      .split('\n')
      .filter((line) => /^(# (HELP|TYPE) )?plant_store_/.test(line))
      .join('\n');
    expect(own).toContain('# TYPE plant_store_http_requests_total counter');
    const result = await run(findTool('promtool')!, ['check', 'metrics'], { input: `${own}\n` });
    expect(result.status, result.stdout + result.stderr).toBe(0);
    const misnamed = own.replaceAll('plant_store_token_entries', 'plant_store_token_entries_total');
    const failing = await run(findTool('promtool')!, ['check', 'metrics'], { input: `${misnamed}\n` });
    expect(failing.status).not.toBe(0);
    expect(failing.stdout + failing.stderr).toMatch(
      /plant_store_token_entries_total non-counter metrics should not have "_total" suffix/,
    );
  });

  it('fails each check on a broken copy: a bad expression, a bad relabelling, a changed threshold', async () => {
    const badRules = await promtool('check', 'rules', join(brokenRules('> 0.01', '> > 0.01'), 'alerts.yml'));
    expect(badRules.status).not.toBe(0);
    expect(badRules.stdout + badRules.stderr).toMatch(/parse error/);
    const badConfig = await promtool('check', 'config', withoutKubernetes('"action":"keep"', '"action":"kept"'));
    expect(badConfig.status).not.toBe(0);
    expect(badConfig.stdout + badConfig.stderr).toMatch(/unknown relabel action "kept"/);
    const failing = await promtool('test', 'rules', join(brokenRules('> 0.01', '> 0.03'), 'alerts.test.yml'));
    expect(failing.status).not.toBe(0);
    expect(failing.stdout + failing.stderr).toMatch(/FAILED[\s\S]*alertname: PlantStoreServerErrors/);
  });
});

describe('the Prometheus example against the server, the spec and the Kubernetes example', () => {
  it('uses in its rules only metric names a scrape of /metrics holds', () => {
    const scraped = new Set(scrape.split('\n').flatMap((line) => /^([a-zA-Z_:][\w:]*)[{ ]/.exec(line)?.[1] ?? []));
    const used = new Set(rules.flatMap((rule) => rule.expr.match(/\bplant_store_\w+/g) ?? []));
    expect([...used].sort()).toEqual([
      'plant_store_http_request_duration_seconds_bucket',
      'plant_store_http_requests_total',
    ]);
    for (const name of used) expect(scraped, name).toContain(name);
  });

  it("names only the spec's Error codes, each with its own status", () => {
    const selectors = rules.flatMap((rule) => rule.expr.match(/\{[^}]*\}/g) ?? []);
    const codes = selectors.flatMap((s) => [...s.matchAll(/code!?="(\d+)"/g)].map((m) => Number(m[1])));
    expect(new Set(codes)).toEqual(new Set([50301, 42901]));
    for (const code of codes) expect(errorStatus[code as ErrorCode], String(code)).toBeDefined();
    // What the annotations say: "<status> <code>" or "<status> (<code>)".
    const told = rules.flatMap((rule) => [
      ...Object.values(rule.annotations)
        .join(' ')
        .matchAll(/\b(\d{3}) \(?(\d{5})\b/g),
    ]);
    expect(told.length).toBeGreaterThanOrEqual(5);
    for (const [said, status, code] of told) expect(errorStatus[Number(code) as ErrorCode], said).toBe(Number(status));
  });

  it('matches exactly the jobs of prometheus.yml in each rule that names a job', () => {
    const jobs = config.scrape_configs.map((job) => job.job_name);
    expect(jobs).toEqual(['plant-store', 'plant-store-pods']);
    const matchers = rules.flatMap((rule) => [...rule.expr.matchAll(/job=~"([^"]+)"/g)].map((m) => m[1]!));
    expect(matchers.length).toBeGreaterThanOrEqual(2);
    for (const matcher of matchers) {
      // PromQL anchors a regex matcher at both ends.
      const pattern = new RegExp(`^(?:${matcher})$`);
      expect(
        jobs.filter((job) => pattern.test(job)),
        matcher,
      ).toEqual(jobs);
    }
  });

  it("keeps, in its Kubernetes job, the Kubernetes example's pods by their label and only their ops port", () => {
    const pod = kubernetesExamplePod();
    const pods = config.scrape_configs.find((job) => job.kubernetes_sd_configs !== undefined)!;
    expect(pods.kubernetes_sd_configs).toEqual([{ role: 'pod' }]);
    const keeps = (pods.relabel_configs ?? []).filter((r) => r.action === 'keep');
    const keep = (label: string) => {
      const rule = keeps.find((r) => r.source_labels?.length === 1 && r.source_labels[0] === label);
      if (rule?.regex === undefined) throw new Error(`no keep rule on ${label}`);
      return new RegExp(`^(?:${rule.regex})$`);
    };
    const labels = Object.entries(pod.labels);
    expect(labels.length).toBeGreaterThan(0);
    for (const [name, value] of labels) {
      expect(keep(`__meta_kubernetes_pod_label_${discoveryLabelName(name)}`).test(value), name).toBe(true);
    }
    const portName = keep('__meta_kubernetes_pod_container_port_name');
    expect(pod.ports.filter((port) => portName.test(port.name)).map((port) => port.containerPort)).toEqual([
      pod.opsPort,
    ]);
  });
});
