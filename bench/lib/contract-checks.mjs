// A few cases of the contract in openapi.yaml, run against every server before it is loaded, so a
// baseline that is fast because it skips work shows up in the results instead of hiding there.
import { request } from 'node:http';

// node:http rather than fetch: fetch would refuse to send a declared length it does not send,
// and would add headers of its own.
function send(url, { method = 'POST', path = '/plants', headers = {}, body }) {
  const target = new URL(path.replace(/^\//, ''), `${url}/`);
  return new Promise((resolve, reject) => {
    const req = request(target, { method, headers, agent: false }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode, headers: res.headers, json });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Runs the cases against `url`; returns the names of those that failed. */
export async function runContractChecks(url, token) {
  const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const post = (body, headers = auth) => send(url, { headers, body });
  const failed = [];
  let total = 0;
  const check = async (name, run) => {
    total++;
    try {
      if (!(await run())) failed.push(name);
    } catch {
      failed.push(name);
    }
  };
  const is = (response, status, code) => response.status === status && response.json?.error === code;

  await check('creates and echoes name and tag', async () => {
    const r = await post('{"id":1,"name":"Fern","tag":"indoor","extra":true}');
    return r.status === 200 && JSON.stringify(r.json) === '{"name":"Fern","tag":"indoor"}';
  });
  await check(
    'replays the same body with 200',
    async () => (await post('{"id":1,"name":"Fern","tag":"indoor"}')).status === 200,
  );
  await check('answers 40003 to the same id with another tag', async () =>
    is(await post('{"id":1,"name":"Fern"}'), 400, 40003),
  );
  await check('keeps 2^53 and 2^53+1 apart (exact int64)', async () => {
    const a = await post('{"id":9007199254740992,"name":"A"}');
    const b = await post('{"id":9007199254740993,"name":"B"}');
    return a.status === 200 && b.status === 200;
  });
  await check('accepts 2^63-1 and refuses 2^63', async () => {
    const max = await post('{"id":9223372036854775807,"name":"Max"}');
    const over = await post('{"id":9223372036854775808,"name":"Over"}');
    return max.status === 200 && is(over, 400, 40002);
  });
  await check('refuses 1.00000000000000000001 as an id', async () =>
    is(await post('{"id":1.00000000000000000001,"name":"F"}'), 400, 40002),
  );
  await check('refuses a string id and tag null', async () => {
    const a = await post('{"id":"7","name":"F"}');
    const b = await post('{"id":7,"name":"F","tag":null}');
    return is(a, 400, 40002) && is(b, 400, 40002);
  });
  await check('answers 40001 to invalid JSON and invalid UTF-8', async () => {
    const a = await post('{"id":');
    const b = await post(Buffer.from([...Buffer.from('{"id":8,"name":"'), 0xff, ...Buffer.from('"}')]));
    return is(a, 400, 40001) && is(b, 400, 40001);
  });
  await check('answers 40101 and 40102 with Bearer challenges', async () => {
    const body = '{"id":9,"name":"F"}';
    const a = await post(body, { 'content-type': 'application/json' });
    const b = await post(body, { authorization: 'bearer wrong-token', 'content-type': 'application/json' });
    return (
      is(a, 401, 40101) &&
      /^Bearer realm="plant-store"/.test(a.headers['www-authenticate'] ?? '') &&
      is(b, 401, 40102) &&
      /error="invalid_token"/.test(b.headers['www-authenticate'] ?? '')
    );
  });
  await check('answers 41501 to text/plain', async () =>
    is(
      await post('{"id":10,"name":"F"}', { authorization: `Bearer ${token}`, 'content-type': 'text/plain' }),
      415,
      41501,
    ),
  );
  await check('answers 41301 to a declared length over 1 MiB', async () =>
    is(await post(`{"id":11,"name":"${'x'.repeat(1024 * 1024)}"}`), 413, 41301),
  );
  await check('answers 405 with Allow: POST and 404 elsewhere', async () => {
    const a = await send(url, { method: 'GET', headers: { authorization: `Bearer ${token}` } });
    const b = await send(url, { method: 'POST', path: '/nope', headers: auth, body: '{}' });
    return is(a, 405, 40501) && /POST/.test(a.headers.allow ?? '') && is(b, 404, 40401);
  });
  await check('echoes a sane X-Request-Id', async () => {
    const r = await post('{"id":12,"name":"F"}', { ...auth, 'x-request-id': 'bench-42' });
    return r.headers['x-request-id'] === 'bench-42';
  });
  return { total, failed };
}
