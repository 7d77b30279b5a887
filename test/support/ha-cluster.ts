// A high-availability PostgreSQL as operators run it, for the suites of test/ha: one etcd member, two
// PostgreSQL nodes under Patroni (synchronous mode, pg_rewind; patroni.ts), and HAProxy in front, routing
// to the leader by Patroni's REST check. Patroni and HAProxy run the files of examples/patroni, the ones
// operators copy, with the variables those files name. The programs are Debian's (`apt-get install
// patroni etcd-server haproxy postgresql-15`, which .ci/run does); a suite names them in
// describeWithTools. Everything listens on free ports of 127.0.0.1 and lives in one directory below the
// run's (test/ha/ha-setup.ts). As root, etcd, Patroni and PostgreSQL run as the `postgres` user and
// HAProxy as root. Each program leads a process group of its own, its pid in a file beside it: close()
// stops them, and if the test process dies first (even by SIGKILL), a watchdog the cluster starts kills
// what the pid files name and removes the directory (test/ha/sweep.mjs), as the run's teardown does for
// whatever is left. Two paths of each node run through TCP proxies in the test process
// (tcp-proxy.mjs), which a test blackholes to cut them and heals: its Patroni to etcd, and the other
// node to its PostgreSQL (the address the standby streams from, Patroni's connect_address); the servers
// and HAProxy reach PostgreSQL directly.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { inject } from 'vitest';
import type {} from '../ha/ha-setup.js';
import { sweepHaDirectory } from '../ha/sweep.mjs';
import { freePort } from './embedded-postgres.mjs';
import {
  Daemon,
  EXAMPLE_DIRECTORY,
  get,
  NODE_NAMES,
  type NodeName,
  PatroniNode,
  patroniConfigDirectory,
  patroniVariables,
  poll,
  postgresDirectory,
  postgresIds,
  program,
} from './patroni.js';
import { connectedTo } from './tcp-clients.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.mjs';

/** The watchdog that sweeps a cluster's directory once the test process is gone. */
const SWEEP_SCRIPT = fileURLToPath(new URL('../ha/sweep.mjs', import.meta.url));

/** examples/patroni/patroni.yml's `scope`: the cluster's keys in etcd are below /service/<scope>/. */
const CLUSTER_SCOPE = 'plant-store';

/** The section of examples/patroni/haproxy.cfg that routes to the leader; its servers are named after the nodes. */
const HAPROXY_SECTION = 'postgres';

/** The cluster's run directory: the run's from test/ha/ha-setup.ts, else the system's temporary one. */
function runDirectory(): string {
  try {
    return inject('plantStoreHaDir') ?? tmpdir();
  } catch {
    return tmpdir();
  }
}

/** `count` free ports of 127.0.0.1, all different. */
async function freePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}

/** The paths of a node that a test can cut, each through a proxy of its own. */
interface NodePaths {
  /** The node's Patroni (and patronictl) to etcd. */
  readonly etcd: TcpProxy;
  /** The other node to the node's PostgreSQL: its stream from this node when this one leads. */
  readonly replication: TcpProxy;
}

/** Starts etcd, node-a (which bootstraps the cluster and leads), node-b (its synchronous standby) and HAProxy. */
export async function startHaCluster(): Promise<HaCluster> {
  const root = mkdtempSync(join(runDirectory(), 'cluster-'));
  chmodSync(root, 0o755);
  // Its own session, so that a signal to the test's process group (a Ctrl-C) does not end it.
  spawn(process.execPath, [SWEEP_SCRIPT, String(process.pid), root], { detached: true, stdio: 'ignore' }).unref();
  const proxies: TcpProxy[] = [];
  const proxy = async (port: number) => {
    const started = await startTcpProxy({ target: { host: '127.0.0.1', port } });
    proxies.push(started);
    return started;
  };
  let cluster: HaCluster | undefined;
  try {
    const ports = await freePorts(4 + 2 * NODE_NAMES.length);
    const paths = new Map<NodeName, NodePaths>();
    for (const [index, name] of NODE_NAMES.entries()) {
      paths.set(name, { etcd: await proxy(ports[0]!), replication: await proxy(ports[4 + 2 * index]!) });
    }
    cluster = new HaCluster(root, ports, paths);
    await cluster.start();
    return cluster;
  } catch (error) {
    if (cluster) await cluster.close();
    else {
      await Promise.all(proxies.map((each) => each.close()));
      sweepHaDirectory(root);
    }
    throw error;
  }
}

/** etcd, two Patroni nodes and HAProxy (see the file's head); {@link startHaCluster} makes one. */
export class HaCluster {
  /** HAProxy's port, which routes to the leader. */
  readonly haproxyPort: number;
  readonly #root: string;
  readonly #password: string;
  readonly #nodes: ReadonlyMap<NodeName, PatroniNode>;
  readonly #etcdPorts: { readonly client: number; readonly peer: number };
  readonly #statsPort: number;
  readonly #paths: ReadonlyMap<NodeName, NodePaths>;
  #etcd: Daemon | undefined;
  #haproxy: Daemon | undefined;

  /**
   * Writes every node's configuration into `root`; `ports`: etcd's two, HAProxy's two, then two a node;
   * `paths`: each node's proxies, to etcd's client port and to the node's PostgreSQL.
   */
  constructor(root: string, ports: number[], paths: ReadonlyMap<NodeName, NodePaths>) {
    this.#root = root;
    this.#password = randomBytes(12).toString('hex');
    const [etcdClient, etcdPeer, haproxy, stats, ...nodePorts] = ports as [number, number, number, number, ...number[]];
    this.#etcdPorts = { client: etcdClient, peer: etcdPeer };
    this.haproxyPort = haproxy;
    this.#statsPort = stats;
    this.#paths = paths;
    const ids = postgresIds();
    const passwords = { superuser: this.#password, replication: randomBytes(12).toString('hex') };
    const binDir = dirname(program('pg_rewind'));
    this.#nodes = new Map(
      NODE_NAMES.map((name, index) => {
        const dir = postgresDirectory(join(root, name), ids);
        const { etcd, replication } = paths.get(name)!;
        const ports = { pg: nodePorts[2 * index]!, rest: nodePorts[2 * index + 1]!, connect: replication.port };
        const variables = patroniVariables(name, dir, ports, etcd.port, passwords, binDir);
        return [name, new PatroniNode(name, ports, dir, patroniConfigDirectory(dir, ids), variables)];
      }),
    );
  }

  async start(): Promise<void> {
    const etcd = startEtcd(postgresDirectory(join(this.#root, 'etcd'), postgresIds()), this.#etcdPorts);
    this.#etcd = etcd;
    await poll(
      30_000,
      'etcd healthy',
      async () => {
        if (!etcd.running()) throw new Error(`etcd exited:\n${etcd.log().slice(-3000)}`);
        return (await get(this.#etcdPorts.client, '/health'))?.body.includes('"true"') ? true : undefined;
      },
      () => etcd.log().slice(-3000),
    );
    this.#node('node-a').start();
    await this.waitForLeader('node-a', 60_000);
    this.#node('node-b').start();
    this.#startHaproxy();
    await this.waitForSyncStandby('node-a', 'node-b', 120_000);
  }

  #startHaproxy(): void {
    this.#haproxy = startHaproxy(this.#root, this.haproxyPort, this.#statsPort, [...this.#nodes.values()]);
  }

  /** Both nodes in one libpq host list, for a writer that follows the leader itself. */
  hostListUrl(): string {
    const hosts = NODE_NAMES.map((name) => `127.0.0.1:${this.#node(name).pgPort}`).join(',');
    return `postgres://postgres:${this.#password}@${hosts}/postgres?target_session_attrs=read-write`;
  }

  /** HAProxy's one address: it routes to the leader. */
  haproxyUrl(): string {
    return `postgres://postgres:${this.#password}@127.0.0.1:${this.haproxyPort}/postgres`;
  }

  /** The programs' versions, as they print them. */
  versions(): string {
    const first = (command: string, args: string[]) =>
      execFileSync(command, args, { encoding: 'utf8' }).split('\n')[0]!.trim();
    return [
      first(program('patroni'), ['--version']),
      first(program('etcd'), ['--version']),
      first(program('haproxy'), ['-v']),
      first(join(dirname(program('pg_rewind')), 'postgres'), ['--version']),
    ].join(', ');
  }

  /** The nodes whose Patroni answers `GET /primary` with 200. */
  async leaders(): Promise<NodeName[]> {
    const primary = await Promise.all(NODE_NAMES.map((name) => this.#node(name).isPrimary()));
    return NODE_NAMES.filter((_, index) => primary[index]);
  }

  /** Waits until `name` alone answers `GET /primary` with 200; resolves to the milliseconds it took. */
  async waitForLeader(name: NodeName, ms: number): Promise<number> {
    const start = Date.now();
    await poll(
      ms,
      `${name} the only primary`,
      async () => ((await this.leaders()).join() === name ? true : undefined),
      () => this.#logs(),
    );
    return Date.now() - start;
  }

  /**
   * Waits until `leader` leads, `standby` streams from it as its synchronous standby on its timeline and
   * is named so in etcd (which Patroni does last: only then may it be promoted), and HAProxy routes to
   * the leader alone; resolves to the milliseconds it took.
   */
  async waitForSyncStandby(leader: NodeName, standby: NodeName, ms: number): Promise<number> {
    const start = Date.now();
    await poll(
      ms,
      `${leader} leading with ${standby} its synchronous standby, and HAProxy routing to ${leader} alone`,
      async () => {
        if ((await this.leaders()).join() !== leader) return undefined;
        const [ahead, behind, routes, named] = await Promise.all([
          this.#node(leader).status(),
          this.#node(standby).status(),
          this.haproxyStates(),
          this.synchronousStandbys(),
        ]);
        const streams = ahead?.replication?.some(
          (each) => each.application_name === standby && each.state === 'streaming' && each.sync_state === 'sync',
        );
        const sameTimeline = ahead?.timeline !== undefined && behind?.timeline === ahead.timeline;
        const routed = routes[leader] === 'UP' && routes[standby] === 'DOWN';
        const promotable = named?.includes(standby);
        return streams && sameTimeline && behind?.role === 'replica' && routed && promotable ? true : undefined;
      },
      () => this.#logs(),
    );
    return Date.now() - start;
  }

  /**
   * Waits until `standby` has replayed all the WAL `leader` has written so far, so that a query on it
   * sees every commit the leader had made; resolves to the milliseconds it took.
   */
  async waitForReplay(leader: NodeName, standby: NodeName, ms: number): Promise<number> {
    const start = Date.now();
    const [{ lsn }] = (await this.query<{ lsn: string }>(leader, 'SELECT pg_current_wal_lsn()::text AS lsn')) as [
      { lsn: string },
    ];
    await poll(
      ms,
      `${standby} replaying ${leader}'s WAL up to ${lsn}`,
      async () => {
        const [row] = await this.query<{ done: boolean }>(standby, 'SELECT pg_last_wal_replay_lsn() >= $1 AS done', [
          lsn,
        ]);
        return row?.done ? true : undefined;
      },
      () => this.#logs(),
    );
    return Date.now() - start;
  }

  /** Each node's state in HAProxy's leader section (UP, DOWN, or on its way: `UP 1/2`), from its stats page. */
  async haproxyStates(): Promise<Partial<Record<NodeName, string>>> {
    const answer = await get(this.#statsPort, '/;csv');
    if (answer?.status !== 200) return {};
    const [header = '', ...rows] = answer.body.split('\n');
    const columns = header.replace(/^# /, '').split(',');
    const [section, server, status] = ['pxname', 'svname', 'status'].map((name) => columns.indexOf(name));
    const states: Partial<Record<NodeName, string>> = {};
    for (const row of rows.map((line) => line.split(','))) {
      const name = row[server!] as NodeName;
      if (row[section!] === HAPROXY_SECTION && NODE_NAMES.includes(name)) states[name] = row[status!];
    }
    return states;
  }

  /** A planned switchover with patronictl, as an operator types it; resolves to its output. */
  switchover(from: NodeName, to: NodeName): Promise<string> {
    return this.#node(from).switchover(to);
  }

  /** SIGKILLs the node's Patroni and postmaster at once. */
  kill(name: NodeName): Promise<void> {
    return this.#node(name).kill();
  }

  /** Starts the node's Patroni again, on its data directory as it was left. */
  restart(name: NodeName): void {
    this.#node(name).start();
  }

  /** Cuts (`true`) or heals the node's Patroni's path to etcd: every byte dropped both ways, connections left open. */
  cutFromEtcd(name: NodeName, cut: boolean): void {
    this.#paths.get(name)!.etcd.blackhole(cut);
  }

  /**
   * Cuts (`true`) or heals the path from the other node to this node's PostgreSQL: while this node
   * leads, its standby's stream (and a pg_rewind from it).
   */
  cutReplicationFrom(name: NodeName, cut: boolean): void {
    this.#paths.get(name)!.replication.blackhole(cut);
  }

  /** Stops HAProxy (SIGTERM: it closes every connection at once) and resolves once it is gone. */
  stopHaproxy(): Promise<void> {
    return this.#haproxy!.stop(5_000);
  }

  /** Starts HAProxy again on the same files, once stopped. */
  startHaproxy(): void {
    if (this.#haproxy?.running()) throw new Error('HAProxy runs already');
    this.#startHaproxy();
  }

  /**
   * The synchronous standbys the cluster's sync key in etcd names, read from etcd itself: the ones
   * Patroni may promote, and (Patroni removes one from the key before it stops waiting for it) the
   * ones the leader's commits still wait for. Undefined when etcd did not answer.
   */
  async synchronousStandbys(): Promise<NodeName[] | undefined> {
    const key = Buffer.from(`/service/${CLUSTER_SCOPE}/sync`).toString('base64');
    try {
      const response = await fetch(`http://127.0.0.1:${this.#etcdPorts.client}/v3/kv/range`, {
        method: 'POST',
        body: JSON.stringify({ key }),
        signal: AbortSignal.timeout(2_000),
      });
      if (!response.ok) return undefined;
      const { kvs = [] } = (await response.json()) as { kvs?: { value: string }[] };
      if (kvs.length === 0) return [];
      const sync = JSON.parse(Buffer.from(kvs[0]!.value, 'base64').toString()) as { sync_standby?: string | null };
      return (sync.sync_standby ?? '')
        .split(',')
        .filter((name): name is NodeName => NODE_NAMES.includes(name as NodeName));
    } catch {
      return undefined;
    }
  }

  /**
   * Turns Patroni's synchronous_mode_strict on or off with `patronictl edit-config` on the leader, as an
   * operator does, and resolves once the leader's Patroni works by it.
   */
  async setSynchronousModeStrict(leader: NodeName, on: boolean): Promise<void> {
    const node = this.#node(leader);
    await node.patronictl(['edit-config', '--set', `synchronous_mode_strict=${on}`, '--force', '--quiet']);
    // GET /config answers with the configuration the leader's last loop read, the one it runs by.
    await poll(
      30_000,
      `${leader} running with synchronous_mode_strict ${on}`,
      async () => ((await node.config())?.synchronous_mode_strict === on ? true : undefined),
      () => this.#logs(),
    );
  }

  /** The node's log (Patroni's and its PostgreSQL's), or only what its latest start wrote. */
  log(name: NodeName, sinceStart = false): string {
    return this.#node(name).log(sinceStart);
  }

  /**
   * The processes holding a connection to etcd's client port, or with `through`, to that node's proxy
   * to etcd; by pid, from /proc (Linux).
   */
  etcdClients(through?: NodeName): number[] {
    const port = through === undefined ? this.#etcdPorts.client : this.#paths.get(through)!.etcd.port;
    return [...new Set(connectedTo(port))].sort((a, b) => a - b);
  }

  /** The pids of etcd and of each node's Patroni. */
  pids(): { readonly etcd?: number } & Partial<Record<NodeName, number>> {
    return {
      etcd: this.#etcd?.pid,
      ...Object.fromEntries(NODE_NAMES.map((name) => [name, this.#node(name).patroniPid()])),
    };
  }

  /**
   * Has a process of the test (a plant-store-server on this cluster) killed with the cluster if the test
   * process dies first: its pid goes to a pid file in the cluster's directory, removed when it exits.
   */
  adopt(child: ChildProcess): void {
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const dir = join(this.#root, 'servers', String(child.pid));
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'plant-store-server.pid'), `${child.pid}\n`);
    child.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }

  /** One statement on the node's PostgreSQL, on a connection of its own. */
  async query<Row extends object>(name: NodeName, sql: string, values?: unknown[]): Promise<Row[]> {
    const client = new pg.Client({
      host: '127.0.0.1',
      port: this.#node(name).pgPort,
      user: 'postgres',
      password: this.#password,
      database: 'postgres',
    });
    client.on('error', () => undefined);
    await client.connect();
    try {
      return (await client.query(sql, values)).rows as Row[];
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  /** Stops HAProxy, both nodes and etcd, kills whatever did not stop, and removes the directory. */
  async close(): Promise<void> {
    try {
      // Healed first, so that a node's Patroni reaches etcd to stop as it should.
      for (const paths of this.#paths.values()) for (const proxy of Object.values(paths)) proxy.blackhole(false);
      await this.#haproxy?.stop(5_000);
      await Promise.all(NODE_NAMES.map((name) => this.#node(name).stop()));
      await this.#etcd?.stop(5_000);
    } finally {
      await Promise.all([...this.#paths.values()].flatMap((paths) => Object.values(paths).map((each) => each.close())));
      sweepHaDirectory(this.#root);
    }
  }

  #node(name: NodeName): PatroniNode {
    return this.#nodes.get(name)!;
  }

  /** The end of every program's log, for an error. */
  #logs(): string {
    const nodes = NODE_NAMES.map((name) => `--- ${name}:\n${this.#node(name).log().slice(-4000)}`);
    return [...nodes, `--- HAProxy:\n${this.#haproxy?.log().slice(-2000) ?? ''}`].join('\n');
  }
}

/** One etcd member on 127.0.0.1, its data in `dir` (owned by the user it runs as). */
function startEtcd(dir: string, ports: { client: number; peer: number }): Daemon {
  const client = `http://127.0.0.1:${ports.client}`;
  const peer = `http://127.0.0.1:${ports.peer}`;
  return new Daemon(
    dir,
    'etcd',
    program('etcd'),
    [
      ...['--name', 'ha', '--data-dir', join(dir, 'data')],
      ...['--listen-client-urls', client, '--advertise-client-urls', client],
      ...['--listen-peer-urls', peer, '--initial-advertise-peer-urls', peer],
      ...['--initial-cluster', `ha=${peer}`, '--initial-cluster-state', 'new'],
      ...['--initial-cluster-token', randomBytes(6).toString('hex')],
    ],
    true,
  );
}

/**
 * The variables examples/patroni/haproxy.cfg names (its head lists them): where HAProxy listens, its
 * stats page's port, and each node's PostgreSQL address and Patroni REST port (node-a's as NODE_A_…).
 */
export function haproxyVariables(
  port: number,
  statsPort: number,
  nodes: readonly Pick<PatroniNode, 'name' | 'pgPort' | 'restPort'>[],
): Record<string, string> {
  const variables: Record<string, string> = { LISTEN_ADDR: `127.0.0.1:${port}`, STATS_PORT: String(statsPort) };
  for (const node of nodes) {
    const prefix = node.name.toUpperCase().replace('-', '_');
    variables[`${prefix}_ADDR`] = `127.0.0.1:${node.pgPort}`;
    variables[`${prefix}_PATRONI_PORT`] = String(node.restPort);
  }
  return variables;
}

/**
 * HAProxy on examples/patroni/haproxy.cfg, read in place: a TCP section whose servers are the nodes'
 * PostgreSQL, each checked on its Patroni's REST port (`GET /primary` answers 200 on the leader alone),
 * marked down after two failed checks a second apart (cutting its sessions) and up after two good ones.
 * Its stats page on `statsPort` (127.0.0.1) shows what it decided.
 */
function startHaproxy(root: string, port: number, statsPort: number, nodes: readonly PatroniNode[]): Daemon {
  const dir = join(root, 'haproxy');
  // Kept when HAProxy is started again: its log goes on.
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  const config = join(EXAMPLE_DIRECTORY, 'haproxy.cfg');
  // -db: in the foreground, one process, whose pid is the one held.
  const variables = haproxyVariables(port, statsPort, nodes);
  return new Daemon(dir, 'haproxy', program('haproxy'), ['-db', '-f', config], false, variables);
}
