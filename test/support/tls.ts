// Certificates for a test's TLS PostgreSQL, made with the machine's `openssl`: a CA of the test's own,
// a server certificate it signs for 127.0.0.1 and localhost, and a second CA that signed nothing (the
// wrong one). Files in a temporary directory, removed by `close()`.
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCertificates {
  /** The CA that signed the server certificate (PEM). */
  readonly caFile: string;
  /** Another CA, which signed nothing the server has. */
  readonly otherCaFile: string;
  /** The server's certificate, for 127.0.0.1 and localhost, and its key. */
  readonly certFile: string;
  readonly keyFile: string;
  /** Removes the files. */
  close(): void;
}

/** Makes the CAs and the server certificate; throws naming the remedy when openssl is missing. */
export function makeTestCertificates(): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), 'plant-store-tls-'));
  const openssl = (...args: string[]) => {
    try {
      execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
    } catch (error) {
      throw new Error(
        `openssl ${args[0]} failed (is openssl installed? apt-get install -y openssl): ${(error as Error).message}`,
        { cause: error },
      );
    }
  };
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  try {
    for (const ca of ['ca', 'other-ca']) {
      openssl(
        'req',
        '-x509',
        ...ec,
        '-keyout',
        `${ca}.key`,
        '-out',
        `${ca}.pem`,
        '-days',
        '2',
        '-subj',
        `/CN=plant-store test ${ca}`,
      );
    }
    openssl('req', '-new', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost');
    writeFileSync(join(dir, 'server.ext'), 'subjectAltName = IP:127.0.0.1, DNS:localhost\n');
    openssl(
      'x509',
      '-req',
      '-in',
      'server.csr',
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      'server.pem',
      '-days',
      '2',
      '-extfile',
      'server.ext',
    );
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    caFile: join(dir, 'ca.pem'),
    otherCaFile: join(dir, 'other-ca.pem'),
    certFile: join(dir, 'server.pem'),
    keyFile: join(dir, 'server.key'),
    close: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The `postgres` settings that turn TLS on with what {@link installServerCertificate} put in the data directory. */
export const TLS_SETTINGS: Readonly<Record<string, string>> = {
  ssl: 'on',
  ssl_cert_file: 'server.crt',
  ssl_key_file: 'server.key',
};

/**
 * Copies the server certificate and key into a PostgreSQL data directory, owned as the directory is
 * (PostgreSQL refuses a key another user could read).
 */
export function installServerCertificate(dataDir: string, certificates: TestCertificates): void {
  const owner = statSync(dataDir);
  for (const [from, to] of [
    [certificates.certFile, 'server.crt'],
    [certificates.keyFile, 'server.key'],
  ] as const) {
    copyFileSync(from, join(dataDir, to));
    chownSync(join(dataDir, to), owner.uid, owner.gid);
  }
  chmodSync(join(dataDir, 'server.key'), 0o600);
}
