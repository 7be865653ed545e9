import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { httpsFetcher, VerificationError } from '../src/index.js';
import { isPublicAddress, parseResolve } from '../src/fetcher.js';
import { pem, certDocument, HOOK_HOST } from './helpers/pki.js';
import { certificateServer } from './helpers/servers.js';

const PATH = '/platform/hooks/certificate/';
const URL_ = `https://${HOOK_HOST}${PATH}`;
let server;

before(async () => {
  server = await certificateServer({
    [PATH]: (req, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(certDocument('leaf', 'inter')),
    '/redirect/': (req, res) => res.writeHead(302, { Location: PATH }).end(),
    '/server-error/': (req, res) => res.writeHead(500).end('{}'),
    '/big/': (req, res) => res.writeHead(200, { 'Content-Length': 70_000 }).end(Buffer.alloc(70_000, 0x20)),
    '/big-chunked/': (req, res) => {
      res.writeHead(200);
      for (let i = 0; i < 70; i++) res.write(Buffer.alloc(1000, 0x20));
      res.end();
    },
    '/silent/': () => {},
    '/trickle/': (req, res) => {
      res.writeHead(200, { 'Content-Length': 1000 });
      const t = setInterval(() => res.write(' '), 50);
      res.on('close', () => clearInterval(t));
    },
    '/echo-headers/': (req, res) => res.writeHead(200).end(JSON.stringify(req.headers)),
  });
});
after(() => server.close());

const fetcher = (options = {}) => httpsFetcher({
  extraAnchors: pem('root'), resolve: `${HOOK_HOST}=127.0.0.1:${server.port}`, ...options,
});

async function failsWith(promise, pattern) {
  await assert.rejects(promise, (e) => {
    assert.ok(e instanceof VerificationError, String(e));
    assert.equal(e.code, 'CERT_FETCH_FAILED');
    assert.match(e.message, pattern);
    return true;
  });
}

describe('httpsFetcher', () => {
  test('downloads the document over TLS with the host name verified', async () => {
    const body = await fetcher()(URL_);
    assert.deepEqual(body, certDocument('leaf', 'inter'));
  });

  test('sends Host, identity encoding and one plain GET', async () => {
    const headers = JSON.parse((await fetcher()(`https://${HOOK_HOST}/echo-headers/`)).toString());
    assert.equal(headers.host, HOOK_HOST);
    assert.equal(headers['accept-encoding'], 'identity');
  });

  test('does not follow redirects', async () => {
    await failsWith(fetcher()(`https://${HOOK_HOST}/redirect/`), /302.*redirects are not followed/);
  });

  test('accepts status 200 only', async () => {
    await failsWith(fetcher()(`https://${HOOK_HOST}/server-error/`), /answered 500/);
    await failsWith(fetcher()(`https://${HOOK_HOST}/nothing/`), /answered 404/);
  });

  test('refuses a body over the limit, declared or streamed', async () => {
    await failsWith(fetcher()(`https://${HOOK_HOST}/big/`), /larger than 65536 bytes/);
    await failsWith(fetcher()(`https://${HOOK_HOST}/big-chunked/`), /larger than 65536 bytes/);
    await failsWith(fetcher({ maxBytes: 100 })(URL_), /larger than 100 bytes/);
  });

  test('a server that says nothing trips the read time-out', async () => {
    await failsWith(fetcher({ readTimeoutMs: 200 })(`https://${HOOK_HOST}/silent/`), /sent nothing for 200 ms/);
  });

  test('a server that trickles trips the total deadline', async () => {
    // the total deadline's own words: the read time-out's say "sent nothing"
    await failsWith(fetcher({ totalTimeoutMs: 400 })(`https://${HOOK_HOST}/trickle/`), /timed out \(limit 400 ms\)/);
  });

  test('a port where nothing listens: refused', async () => {
    const f = httpsFetcher({ extraAnchors: pem('root'), resolve: `${HOOK_HOST}=127.0.0.1:1` });
    await failsWith(f(URL_), /refused the connection/);
  });

  test('a server certificate the anchors do not lead to is not trusted', async () => {
    await failsWith(fetcher({ extraAnchors: undefined })(URL_), /not trusted/);
  });

  test('a server certificate for another name is refused', async () => {
    const f = httpsFetcher({ extraAnchors: pem('root'), resolve: `other.platform.test=127.0.0.1:${server.port}` });
    await failsWith(f(`https://other.platform.test${PATH}`), /not valid for other\.platform\.test/);
  });

  test('a name that resolves to a private address is refused before connecting', async () => {
    await failsWith(httpsFetcher()(`https://localhost${PATH}`), /not public/);
  });

  test('a name that does not resolve', async () => {
    await failsWith(httpsFetcher({ connectTimeoutMs: 1500 })(`https://no-such-host.invalid${PATH}`), /does not resolve|did not resolve/);
  });

  test('only https', async () => {
    await failsWith(httpsFetcher()(`http://${HOOK_HOST}${PATH}`), /only https/);
  });

  test('isPublicAddress knows the special-purpose ranges', () => {
    for (const a of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0',
      '224.0.0.1', '255.255.255.255', '::1', '::', 'fe80::1', 'fc00::1', '::ffff:127.0.0.1', '2001:db8::1', 'not-an-ip']) {
      assert.equal(isPublicAddress(a), false, a);
    }
    for (const a of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) {
      assert.equal(isPublicAddress(a), true, a);
    }
  });

  test('parseResolve reads host=address:port entries', () => {
    const m = parseResolve('Hooks.Platform.Test=127.0.0.1:8443, b.test=[::1]:9000');
    assert.deepEqual(m.get('hooks.platform.test'), { address: '127.0.0.1', port: 8443 });
    assert.deepEqual(m.get('b.test'), { address: '::1', port: 9000 });
    assert.throws(() => parseResolve('nohost'), TypeError);
    assert.throws(() => parseResolve('a.test=localhost:1'), TypeError);
    assert.throws(() => parseResolve('a.test=127.0.0.1:70000'), TypeError);
  });
});
