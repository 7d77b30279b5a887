// examples/kubernetes/plant-store.yaml, checked offline: every object against the Kubernetes JSON
// schemas (kubernetes-models' validators), then what the schemas cannot see: that the parts refer to
// each other (Secret keys, volume, ports, selectors), that the server is given only flags it takes,
// and the container's command run for real: its arguments and the Secret's token file and database
// URL variable, against an embedded PostgreSQL.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { Deployment, type IDeployment } from 'kubernetes-models/apps/v1';
import { type INetworkPolicy, NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { type IPodDisruptionBudget, PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { type ISecret, type IService, Secret, Service } from 'kubernetes-models/v1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, readJson, repoRoot, runOk } from '../../test/packaging/helpers.js';
import { type EmbeddedDatabase, startEmbeddedPostgres } from '../../test/support/postgres.js';

const file = join(repoRoot, 'examples/kubernetes/plant-store.yaml');
// js-yaml's load takes one document; the manifest is several, separated by `---` lines.
const documents = readFileSync(file, 'utf8')
  .split(/^---$/m)
  .map((text) => load(text) as { apiVersion: string; kind: string });
interface Kinds {
  Secret: ISecret;
  Deployment: IDeployment;
  Service: IService;
  PodDisruptionBudget: IPodDisruptionBudget;
  NetworkPolicy: INetworkPolicy;
}
/** The one object of that kind in the manifest, typed by the schemas' interfaces (Required: the tests read what they check). */
function byKind<K extends keyof Kinds>(kind: K): Kinds[K] {
  const found = documents.filter((d) => d.kind === kind);
  if (found.length !== 1) throw new Error(`expected one ${kind}, found ${found.length}`);
  return found[0] as unknown as Kinds[K];
}
const models: { [K in keyof Kinds]: new (data: Kinds[K]) => { validate(): void } } = {
  Secret,
  Deployment,
  Service,
  PodDisruptionBudget,
  NetworkPolicy,
};
const cli = join(repoRoot, 'packages/server/dist/cli.js');
const version = readJson(join(repoRoot, 'node_modules/kubernetes-models/package.json')).version;

describe(`the Kubernetes example against the schemas of kubernetes-models ${version}`, () => {
  it('holds exactly a Secret, a Deployment, a Service, a PodDisruptionBudget and a NetworkPolicy', () => {
    expect(documents.map((d) => `${d.apiVersion} ${d.kind}`)).toEqual([
      'v1 Secret',
      'apps/v1 Deployment',
      'v1 Service',
      'policy/v1 PodDisruptionBudget',
      'networking.k8s.io/v1 NetworkPolicy',
    ]);
  });

  it.each(Object.keys(models) as (keyof Kinds)[])('its %s is valid against the Kubernetes schema', (kind) => {
    const Model = models[kind] as new (data: Kinds[typeof kind]) => { validate(): void };
    expect(() => new Model(byKind(kind)).validate()).not.toThrow();
  });

  it('the schema check rejects a Deployment with a port given as text and one without a selector', () => {
    const deployment = structuredClone(byKind('Deployment'));
    Object.assign(deployment.spec!.template.spec!.containers[0]!.ports![0]!, { containerPort: 'api' });
    expect(() => new Deployment(deployment).validate()).toThrow(/containerPort must be integer/);
    const unselected = structuredClone(byKind('Deployment'));
    Reflect.deleteProperty(unselected.spec!, 'selector');
    expect(() => new Deployment(unselected).validate()).toThrow(/selector/);
  });
});

describe('the Kubernetes example, its parts together', () => {
  const secret = byKind('Secret');
  const data = secret.stringData!;
  const deployment = byKind('Deployment');
  const pod = deployment.spec!.template;
  const podSpec = pod.spec!;
  const container = podSpec.containers[0]!;
  const args = container.args!;
  const flag = (name: string): string | undefined => {
    const at = args.indexOf(name);
    return at === -1 ? undefined : args[at + 1];
  };
  const port = (name: string) => container.ports!.find((p) => p.name === name)!.containerPort;

  it('reads the database URL from the Secret into PLANT_STORE_DATABASE_URL, never in the arguments', () => {
    const variable = container.env!.find((e) => e.name === 'PLANT_STORE_DATABASE_URL');
    const ref = variable!.valueFrom!.secretKeyRef!;
    expect(ref.name).toBe(secret.metadata!.name);
    expect(data[ref.key]).toMatch(/^postgres:\/\//);
    expect(args.filter((a) => /postgres:|--database$/.test(a))).toEqual([]);
  });

  it('passes --token-file a file of the Secret, mounted read-only, readable by the pod group', () => {
    const path = flag('--token-file')!;
    const mount = container.volumeMounts!.find((m) => path.startsWith(`${m.mountPath}/`))!;
    expect(mount.readOnly).toBe(true);
    const volume = podSpec.volumes!.find((v) => v.name === mount.name)!;
    expect(volume.secret!.secretName).toBe(secret.metadata!.name);
    const item = volume.secret!.items!.find((i) => i.path === path.slice(mount.mountPath.length + 1))!;
    // One token (or sha256:<hex> of one) per line, # comments: the format --token-file reads.
    const lines = data[item.key]!.split('\n').filter((l) => l !== '' && !l.startsWith('#'));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).toMatch(/^(sha256:[0-9a-f]{64}|[A-Za-z0-9._~+/-]+=*)$/);
    expect(podSpec.securityContext!.fsGroup).toBeDefined();
  });

  it('binds 0.0.0.0, probes the ops port, runs as many workers as it requests CPUs, with resources', () => {
    expect(flag('--host')).toBe('0.0.0.0');
    expect(flag('--ops-host')).toBe('0.0.0.0');
    expect(Number(flag('--port'))).toBe(port('api'));
    expect(Number(flag('--ops-port'))).toBe(port('ops'));
    expect(container.livenessProbe!.httpGet).toEqual({ path: '/livez', port: 'ops' });
    expect(container.readinessProbe!.httpGet).toEqual({ path: '/readyz', port: 'ops' });
    expect(container.startupProbe!.httpGet!.port).toBe('ops');
    expect(Number(flag('--workers'))).toBe(Number(container.resources!.requests!.cpu));
    expect(container.resources!.limits!.memory).toBeDefined();
    expect(container.image).toMatch(/plant-store-server:/);
    // Longer than the server's 10 s drain plus the preStop sleep.
    expect(podSpec.terminationGracePeriodSeconds).toBeGreaterThan(10 + container.lifecycle!.preStop!.sleep!.seconds);
  });

  it('selects its pods from the Service (the API port only) and the PodDisruptionBudget', () => {
    const labels = pod.metadata!.labels;
    expect(deployment.spec!.selector.matchLabels).toEqual(labels);
    const service = byKind('Service');
    expect(service.spec!.selector).toEqual(labels);
    expect(service.spec!.ports!.map((p) => p.targetPort)).toEqual(['api']);
    const budget = byKind('PodDisruptionBudget');
    expect(budget.spec!.selector!.matchLabels).toEqual(labels);
    expect(budget.spec!.minAvailable).toBeLessThan(deployment.spec!.replicas!);
  });

  it('lets every client reach the API port and only the monitoring namespace the ops port', () => {
    const policy = byKind('NetworkPolicy');
    expect(policy.spec!.podSelector.matchLabels).toEqual(pod.metadata!.labels);
    const names = new Set(pod.spec!.containers[0]!.ports!.map((p) => p.name));
    const rules = policy.spec!.ingress!.map((rule) => ({
      ports: rule.ports!.map((p) => p.port),
      from: rule.from?.map((peer) => peer.namespaceSelector?.matchLabels),
    }));
    expect(rules).toEqual([
      { ports: ['api'], from: undefined },
      { ports: ['ops'], from: [{ 'kubernetes.io/metadata.name': 'monitoring' }] },
    ]);
    for (const { ports } of rules) for (const port of ports) expect(names.has(String(port))).toBe(true);
  });

  it('gives the server only flags that plant-store-server --help lists', async () => {
    const help = (await runOk(process.execPath, [cli, '--help'])).stdout;
    const flags = args.filter((a) => a.startsWith('--'));
    expect(flags.length).toBeGreaterThan(0);
    expect(flags.filter((f) => !new RegExp(`^\\s+${f} `, 'm').test(help))).toEqual([]);
  });
});

describe("the Deployment's container, run", () => {
  // The token whose sha256 the Secret's token file holds, as its comment says.
  const token = 'change-me-too';
  const deployment = byKind('Deployment');
  const container = deployment.spec!.template.spec!.containers[0]!;
  const tokens = byKind('Secret').stringData!.tokens!;
  const work = mkdtempSync(join(tmpdir(), 'plant-store-kubernetes-'));
  let database: EmbeddedDatabase | undefined;
  beforeAll(async () => {
    database = await startEmbeddedPostgres();
  }, 180_000);
  afterAll(async () => {
    await database?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it("serves with the Secret's token file and database URL, is ready on the ops port, and drains on SIGTERM", async () => {
    expect(tokens).toContain(`sha256:${createHash('sha256').update(token).digest('hex')}`);
    const tokenFile = join(work, 'tokens');
    writeFileSync(tokenFile, tokens);
    const [api, ops] = [await freePort(), await freePort()];
    // The container's own arguments, with the paths and ports of this machine, and 127.0.0.1 for
    // 0.0.0.0 so that the test's sockets stay local.
    const replaced: Record<string, string> = {
      '--token-file': tokenFile,
      '--port': String(api),
      '--ops-port': String(ops),
      '--host': '127.0.0.1',
      '--ops-host': '127.0.0.1',
    };
    const args = container.args!.map((arg, i, all) => replaced[all[i - 1]!] ?? arg);
    const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('PLANT_STORE_')));
    const env = { ...clean, PLANT_STORE_DATABASE_URL: database!.url };
    expect(container.env!.map((e) => e.name)).toEqual(['PLANT_STORE_DATABASE_URL']);
    const child = spawn(process.execPath, [cli, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const deadline = Date.now() + 60_000;
      for (;;) {
        if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}:\n${output}`);
        const ready = await fetch(`http://127.0.0.1:${ops}/readyz`).catch(() => undefined);
        if (ready?.status === 200) break;
        if (Date.now() > deadline) throw new Error(`not ready within 60 s:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(output).toMatch(/\(2 workers\)/);
      const create = (bearer: string) =>
        fetch(`http://127.0.0.1:${api}/plants`, {
          method: 'POST',
          headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
          body: '{"id":9007199254740993,"name":"Fern"}',
        });
      const created = await create(token);
      expect(created.status, output).toBe(200);
      expect(await created.json()).toEqual({ name: 'Fern' });
      expect((await create('not-the-token')).status).toBe(401);
      expect((await fetch(`http://127.0.0.1:${ops}/livez`)).status).toBe(200);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 120_000);
});
