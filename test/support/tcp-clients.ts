// Which processes of this machine hold a TCP connection to a port of 127.0.0.1, read from /proc (Linux),
// so that a test can tell who really talks to a server: a program that should go through a proxy of the
// test's, and does not, shows up by its own pid.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/**
 * The pids of the processes holding an established TCP connection to `port` on 127.0.0.1: the
 * connections of /proc/net/tcp whose remote end is that port, and the processes whose descriptors are
 * their sockets.
 */
export function connectedTo(port: number): number[] {
  const remote = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  const inodes = new Set(
    readFileSync('/proc/net/tcp', 'utf8')
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      .filter((fields) => fields[2] === remote && fields[3] === '01')
      .map((fields) => `socket:[${fields[9]}]`),
  );
  const pids: number[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    let descriptors: string[];
    try {
      descriptors = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of descriptors) {
      try {
        if (inodes.has(readlinkSync(`/proc/${pid}/fd/${fd}`))) pids.push(Number(pid));
      } catch {
        // Closed meanwhile.
      }
    }
  }
  return pids;
}
