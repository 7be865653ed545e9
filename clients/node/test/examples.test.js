// The examples as the docs and the interop journey run them: real processes, real HTTPS download, real HTTP.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatTimestamp } from '../src/index.js';
import {
  CERT_URL, HOOK_HOST, PLATFORM_DOMAIN, pem, certDocument, hookBody, signHook,
} from './helpers/pki.js';
import { certificateServer } from './helpers/servers.js';

const EXAMPLES = fileURLToPath(new URL('../examples/', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'kit-examples-'));

/** Starts an example; resolves with the process and the first line it prints. */
async function start(file, env) {
  const child = spawn(process.execPath, [join(EXAMPLES, file)], {
    env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => { err += d; });
  const line = await new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve(out.split('\n')[0]);
    });
    child.on('exit', (code) => reject(new Error(`${file} exited ${code}: ${err}`)));
  });
  return { child, line };
}

describe('examples/receiver.mjs', () => {
  let certServer;
  let receiver;
  let base;
  const outFile = join(dir, 'hooks.jsonl');
  const trustFile = join(dir, 'trust.pem');

  before(async () => {
    certServer = await certificateServer({
      '/platform/hooks/certificate/': (req, res) => res.writeHead(200).end(certDocument('leaf', 'inter')),
    });
    writeFileSync(trustFile, pem('root'));
    receiver = await start('receiver.mjs', {
      PORT: '0', PLATFORM_DOMAIN, TRUST: trustFile, OUT: outFile, RESOLVE: `${HOOK_HOST}=127.0.0.1:${certServer.port}`,
    });
    base = /http:\/\/[\d.]+:\d+\//.exec(receiver.line)[0];
  });
  after(async () => {
    receiver?.child.kill();
    await certServer?.close();
  });

  const post = (body, headers) => fetch(base, {
    method: 'POST', body, headers: { 'Content-Type': 'application/json', ...headers },
  });
  const lines = () => (existsSync(outFile) ? readFileSync(outFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l)) : []);

  test('answers 200 to a hook signed now, downloading the chain over HTTPS, and records it', async () => {
    const body = hookBody(formatTimestamp(Date.now()), { message_id: 4711 });
    const res = await post(body, { signature: signHook('leaf', body), 'signature-certificate-url': CERT_URL });
    assert.equal(res.status, 200, await res.clone().text());
    assert.deepEqual(await res.json(), { received: true });
    assert.deepEqual(lines().at(-1), { ok: true, message_id: 4711 });
  });

  test('answers 400 with the failure code to a tampered hook, and records it', async () => {
    const body = hookBody(formatTimestamp(Date.now()));
    const signature = signHook('leaf', body);
    body[body.length - 3] ^= 1;
    const res = await post(body, { signature, 'signature-certificate-url': CERT_URL });
    assert.equal(res.status, 400);
    const answer = await res.json();
    assert.equal(answer.error_code, 'SIGNATURE_MISMATCH');
    assert.match(answer.error_message, /raw body bytes/);
    assert.deepEqual(lines().at(-1), { ok: false, code: 'SIGNATURE_MISMATCH' });
  });

  test('answers 400 to a hook without headers', async () => {
    const res = await post(hookBody(formatTimestamp(Date.now())), {});
    assert.equal(res.status, 400);
    assert.equal((await res.json()).error_code, 'CERT_URL_MALFORMED');
    assert.deepEqual(lines().at(-1), { ok: false, code: 'CERT_URL_MALFORMED' });
  });

  test('answers 400 to a stale hook', async () => {
    const body = hookBody(formatTimestamp(Date.now() - 10 * 60_000));
    const res = await post(body, { signature: signHook('leaf', body), 'signature-certificate-url': CERT_URL });
    assert.equal(res.status, 400);
    assert.equal((await res.json()).error_code, 'TIMESTAMP_OUT_OF_WINDOW');
  });
});

describe('examples/express-receiver.mjs', () => {
  let certServer;
  let receiver;
  let url;
  before(async () => {
    certServer = await certificateServer({
      '/platform/hooks/certificate/': (req, res) => res.writeHead(200).end(certDocument('leaf', 'inter')),
    });
    const trustFile = join(dir, 'trust-express.pem');
    writeFileSync(trustFile, pem('root'));
    receiver = await start('express-receiver.mjs', {
      PORT: '0', PLATFORM_DOMAIN, TRUST: trustFile, RESOLVE: `${HOOK_HOST}=127.0.0.1:${certServer.port}`,
    });
    url = /http:\/\/\S+\/hooks/.exec(receiver.line)[0];
  });
  after(async () => {
    receiver?.child.kill();
    await certServer?.close();
  });

  test('200 for a good hook, 400 with the code for a bad one', async () => {
    const body = hookBody(formatTimestamp(Date.now()));
    const headers = { 'Content-Type': 'application/json', signature: signHook('leaf', body), 'signature-certificate-url': CERT_URL };
    const good = await fetch(url, { method: 'POST', body, headers });
    assert.equal(good.status, 200);
    assert.deepEqual(await good.json(), { received: true });
    const bad = await fetch(url, { method: 'POST', body: Buffer.concat([body, Buffer.from('\n')]), headers });
    assert.equal(bad.status, 400);
    assert.equal((await bad.json()).error_code, 'SIGNATURE_MISMATCH');
  });
});

describe('examples/signer.mjs', () => {
  test('lists the clients and prints the token alone, signed with the key file', async () => {
    const http = await import('node:http');
    const crypto = await import('node:crypto');
    const keys = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
    const keyFile = join(dir, 'client.key');
    writeFileSync(keyFile, keys.privateKey.export({ type: 'pkcs8', format: 'pem' }));
    const seen = [];
    const server = http.createServer((req, res) => {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        const ok = crypto.verify('sha1', body, keys.publicKey, Buffer.from(req.headers.signature, 'base64'));
        seen.push({ url: req.url, ok, uuid: req.headers.signaturecertuuid, fields: JSON.parse(body) });
        res.setHeader('Content-Type', 'application/json');
        if (!ok) {
          res.writeHead(400).end('{"error_code":"SIGNATURE_MISMATCH","error_message":"no"}');
        } else if (req.url.endsWith('/clients/')) {
          res.end('{"clients":[{"client_id":"c-9","name":"n","created_at":"2026-01-01T00:00:00Z"}]}');
        } else {
          res.end(JSON.stringify({ access_token: 'jwt', token_type: 'Bearer', expires_in: 3600, client_id: JSON.parse(body).client_id }));
        }
      });
    }).listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const child = spawn(process.execPath, [join(EXAMPLES, 'signer.mjs')], {
        env: { ...process.env, BASE_URL: `http://127.0.0.1:${server.address().port}`, FQDN: 'client.example.com', KEY: keyFile, CERT_UUID: 'uuid-7' },
      });
      let out = '';
      child.stdout.on('data', (d) => { out += d; });
      const [exitCode] = await once(child, 'exit');
      assert.equal(exitCode, 0);
      assert.equal(out, 'jwt\n', 'the token alone on stdout, for scripts');
      assert.deepEqual(seen.map((s) => [s.url, s.ok, s.uuid]), [
        ['/platform/management/clients/', true, 'uuid-7'], ['/platform/management/token/issue/', true, 'uuid-7']]);
      assert.equal(seen[1].fields.fqdn, 'client.example.com');
    } finally {
      server.close();
    }
  });
});

describe('examples/upload.mjs', () => {
  test('sends the file as multipart with the token and client-id, and prints the message id', async () => {
    const http = await import('node:http');
    const seen = [];
    const server = http.createServer(async (req, res) => {
      const chunks = [];
      for await (const c of req) chunks.push(c);
      const form = await new Request('http://x/', { method: 'POST', headers: { 'content-type': req.headers['content-type'] }, body: Buffer.concat(chunks) }).formData();
      seen.push({ url: req.url, auth: req.headers.authorization, client: req.headers['client-id'], type: form.get('message_type'), name: form.get('file').name, text: await form.get('file').text(), user: form.get('auth_id'), business: form.get('business_id') });
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ message_id: 31, message_body: '', created_at: '2026-01-01T00:00:00.000Z', message_type: 52, file_url: 'https://f/x' }));
    }).listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const file = join(dir, 'scores.csv');
      writeFileSync(file, 'name,score\nada,10\n');
      const child = spawn(process.execPath, [join(EXAMPLES, 'upload.mjs')], {
        env: { ...process.env, UPLOAD_URL: `http://127.0.0.1:${server.address().port}`, TOKEN: 'jwt', CLIENT_ID: 'c-1', AUTH_ID: 'user42', BUSINESS_ID: '1001', FILE: file },
      });
      let out = '';
      child.stdout.on('data', (d) => { out += d; });
      const [exitCode] = await once(child, 'exit');
      assert.equal(exitCode, 0);
      assert.equal(out, '31\n');
      assert.deepEqual(seen, [{ url: '/v1.0/log_file_from_user/', auth: 'Bearer jwt', client: 'c-1', type: '52', name: 'scores.csv', text: 'name,score\nada,10\n', user: 'user42', business: '1001' }]);
    } finally {
      server.close();
    }
  });
});
