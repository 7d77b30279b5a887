// A real Prometheus (the installed one, system-tools.ts) for the tests of examples/prometheus: started on a
// free port of 127.0.0.1 with a configuration the test gives and its storage in a directory of its own,
// asked through its HTTP API, and stopped. Also what the example's configuration needs to run here: Debian
// builds Prometheus and promtool without Kubernetes discovery, so a test gives the Kubernetes job the
// discovery labels of a pod through a file instead (the relabelling that follows is the example's own).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load } from 'js-yaml';
import type { IDeployment } from 'kubernetes-models/apps/v1';
import { freePort } from './postgres.js';
import { findTool, missingToolMessage } from './system-tools.js';

/** The parts of a Prometheus configuration the tests read or rewrite. */
export interface PrometheusConfig {
  global?: Record<string, string>;
  rule_files?: string[];
  scrape_configs: ScrapeConfig[];
}

export interface ScrapeConfig {
  job_name: string;
  scrape_interval?: string;
  static_configs?: { targets: string[]; labels?: Record<string, string> }[];
  kubernetes_sd_configs?: { role: string }[];
  file_sd_configs?: { files: string[]; refresh_interval?: string }[];
  relabel_configs?: { source_labels?: string[]; regex?: string; action?: string; target_label?: string }[];
}

/** A target group of a discovery file: addresses, and the labels discovery gives them. */
export interface TargetGroup {
  readonly targets: readonly string[];
  readonly labels: Readonly<Record<string, string>>;
}

/**
 * `config` with each Kubernetes discovery replaced by a file discovery of `file` (a JSON list of target
 * groups), the rest of each job (its relabelling above all) as it was.
 */
export function withFileDiscovery(config: PrometheusConfig, file: string): PrometheusConfig {
  return {
    ...config,
    scrape_configs: config.scrape_configs.map(({ kubernetes_sd_configs, ...job }) =>
      kubernetes_sd_configs === undefined
        ? job
        : { ...job, file_sd_configs: [{ files: [file], refresh_interval: '1s' }] },
    ),
  };
}

/** The pods of examples/kubernetes/plant-store.yaml, as its Deployment's template makes them. */
export interface ExamplePod {
  readonly labels: Readonly<Record<string, string>>;
  readonly container: string;
  readonly ports: readonly { readonly name: string; readonly containerPort: number }[];
  /** The server's --ops-port. */
  readonly opsPort: number;
}

export function kubernetesExamplePod(): ExamplePod {
  const file = fileURLToPath(new URL('../../examples/kubernetes/plant-store.yaml', import.meta.url));
  // js-yaml's load takes one document; the manifest is several, separated by `---` lines.
  const deployment = readFileSync(file, 'utf8')
    .split(/^---$/m)
    .map((text) => load(text) as IDeployment)
    .find((document) => document.kind === 'Deployment');
  const template = deployment!.spec!.template;
  const container = template.spec!.containers[0]!;
  const args = container.args!;
  return {
    labels: template.metadata!.labels!,
    container: container.name,
    ports: container.ports!.map(({ name, containerPort }) => ({ name: name!, containerPort })),
    opsPort: Number(args[args.indexOf('--ops-port') + 1]),
  };
}

/** A label name as Kubernetes discovery writes it: every character outside [a-zA-Z0-9_] an underscore. */
export const discoveryLabelName = (name: string) => name.replace(/[^a-zA-Z0-9_]/g, '_');

/**
 * What Kubernetes pod discovery gives Prometheus for one pod of `pod`: a target group per container port
 * with the pod's labels, name, namespace and phase and the port's name and number. `address` says where
 * each port answers (on a cluster: the pod's IP and the port's number).
 */
export function discoveredPod(
  pod: ExamplePod,
  where: { name: string; namespace: string; phase: string; address: (port: number) => string },
): TargetGroup[] {
  const podLabels = Object.fromEntries(
    Object.entries(pod.labels).flatMap(([name, value]) => [
      [`__meta_kubernetes_pod_label_${discoveryLabelName(name)}`, value],
      [`__meta_kubernetes_pod_labelpresent_${discoveryLabelName(name)}`, 'true'],
    ]),
  );
  return pod.ports.map((port) => ({
    targets: [where.address(port.containerPort)],
    labels: {
      ...podLabels,
      __meta_kubernetes_namespace: where.namespace,
      __meta_kubernetes_pod_name: where.name,
      __meta_kubernetes_pod_phase: where.phase,
      __meta_kubernetes_pod_container_name: pod.container,
      __meta_kubernetes_pod_container_port_name: port.name,
      __meta_kubernetes_pod_container_port_number: String(port.containerPort),
      __meta_kubernetes_pod_container_port_protocol: 'TCP',
    },
  }));
}

/** One sample of an instant query: the series' labels and its value. */
export interface Sample {
  readonly metric: Record<string, string>;
  readonly value: number;
}

export interface RunningPrometheus {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly pid: number;
  /** The `data` of a GET of the HTTP API (`/api/v1/...`); rejects unless Prometheus says `success`. */
  api<T>(path: string, params?: Record<string, string>): Promise<T>;
  /** An instant query, now. */
  query(expression: string): Promise<Sample[]>;
  /** What it logged (stderr), for failure messages. */
  output(): string;
  /** SIGTERM, then SIGKILL if it still runs 10 s later; resolves once it exited, to its exit code. */
  stop(): Promise<number | null>;
}

/** Starts Prometheus on `config` (written to `dir`, where its storage goes too) and waits until it is ready. */
export async function startPrometheus(config: PrometheusConfig, dir: string): Promise<RunningPrometheus> {
  const program = findTool('prometheus');
  if (program === undefined) throw new Error(missingToolMessage('prometheus'));
  mkdirSync(dir, { recursive: true });
  const configFile = join(dir, 'prometheus.yml');
  // JSON is YAML: no YAML writer needed.
  writeFileSync(configFile, JSON.stringify(config, null, 2));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(
    program,
    [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let output = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const running: RunningPrometheus = {
    url,
    pid: child.pid!,
    async api<T>(path: string, params: Record<string, string> = {}) {
      const response = await fetch(`${url}${path}?${new URLSearchParams(params)}`, {
        signal: AbortSignal.timeout(10_000),
      });
      const body = (await response.json()) as { status: string; data: T; error?: string };
      if (body.status !== 'success') throw new Error(`GET ${path} ${JSON.stringify(params)}: ${body.error}`);
      return body.data;
    },
    async query(expression) {
      const data = await running.api<{ result: { metric: Record<string, string>; value: [number, string] }[] }>(
        '/api/v1/query',
        { query: expression },
      );
      return data.result.map(({ metric, value }) => ({ metric, value: Number(value[1]) }));
    },
    output: () => output,
    stop: () => stopChild(child, exited),
  };
  try {
    await untilReady(url, child, () => output);
  } catch (error) {
    await running.stop();
    throw error;
  }
  return running;
}

async function untilReady(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`prometheus exited with ${child.exitCode}:\n${output()}`);
    const ready = await fetch(`${url}/-/ready`, { signal: AbortSignal.timeout(1_000) }).catch(() => undefined);
    if (ready?.status === 200) return;
    if (Date.now() > deadline) throw new Error(`prometheus was not ready within 30 s:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function stopChild(child: ChildProcess, exited: Promise<number | null>): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  try {
    return await exited;
  } finally {
    clearTimeout(timer);
  }
}
