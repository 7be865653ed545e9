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
