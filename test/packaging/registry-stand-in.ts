// A local stand-in for the npm registry, enough for `npm info` and `npm publish`: it knows no package
// (every GET is a 404, so everything is "not published yet") and records every publish (PUT), so a
// release can be rehearsed end to end without network and without publishing anything.
import { createServer, type Server } from 'node:http';
import { gunzipSync } from 'node:zlib';

export interface Publication {
  name: string;
  version: string;
  distTags: Record<string, string>;
  access: string | null | undefined;
  /** The package.json as the registry receives it. */
  manifest: Record<string, any>;
  /** The paths in the tarball (without the leading `package/`). */
  files: string[];
}

export interface RegistryStandIn {
  url: string;
  publications: Publication[];
  requests: string[];
  close(): Promise<void>;
}

/** The file names in a .tgz (ustar; enough for npm's tarballs, which use no long-name extensions). */
function tarFiles(tgz: Buffer): string[] {
  const tar = gunzipSync(tgz);
  const names: string[] = [];
  for (let offset = 0; offset + 512 <= tar.length; ) {
    const header = tar.subarray(offset, offset + 512);
    if (header.every((b) => b === 0)) break;
    const field = (start: number, length: number) =>
      header
        .subarray(start, start + length)
        .toString('utf8')
        .replace(/\0.*$/s, '');
    const name = field(0, 100);
    const prefix = field(345, 155);
    const size = parseInt(field(124, 12).trim() || '0', 8);
    const type = field(156, 1);
    if (type === '0' || type === '') names.push((prefix ? `${prefix}/${name}` : name).replace(/^package\//, ''));
    offset += 512 + Math.ceil(size / 512) * 512;
  }
  return names.sort();
}

export async function startRegistryStandIn(): Promise<RegistryStandIn> {
  const publications: Publication[] = [];
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push(`${req.method} ${req.url}`);
      res.setHeader('content-type', 'application/json');
      if (req.method === 'PUT' && req.url?.startsWith('/@plant-store')) {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        const [version, manifest] = Object.entries(body.versions as Record<string, any>)[0]!;
        const [attachment] = Object.values(body._attachments as Record<string, { data: string }>);
        publications.push({
          name: body.name,
          version,
          distTags: body['dist-tags'],
          access: body.access,
          manifest,
          files: tarFiles(Buffer.from(attachment!.data, 'base64')),
        });
        res.writeHead(201).end(JSON.stringify({ ok: true }));
        return;
      }
      res.writeHead(404).end(JSON.stringify({ error: 'Not found' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/`,
    publications,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
