// The receivers over real HTTP servers: the plain node:http handler, and the Express middleware in a real Express app.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { once } from 'node:events';
import express from 'express';
import { createHookHandler, hookMiddleware } from '../src/index.js';
import { setup, hook } from './helpers/setup.js';

async function listen(handler) {
  const server = http.createServer(handler).listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) };
}

const send = (url, h, init = {}) => fetch(url, {
  method: 'POST',
  body: h.body,
  headers: { 'Content-Type': 'application/json', signature: h.signature, 'signature-certificate-url': h.certificateUrl },
  ...init,
});

describe('createHookHandler (node:http)', () => {
  const s = setup();
  const refused = [];
  let server;
  before(async () => {
    server = await listen(createHookHandler(s.verifier, (h, req, res) => {
      if (h.json().message_id === 666) throw new Error('the application failed');
      res.writeHead(200, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ message_id: h.json().message_id, bytes: h.body.length, url: h.certificateUrl }));
    }, { onRefused: (e) => refused.push(e.code), limit: 4096 }));
  });
  after(() => server.close());

  test('hands a verified hook, with its exact bytes, to the application', async () => {
    const h = hook(s);
    const res = await send(server.url, h);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { message_id: 123, bytes: h.body.length, url: h.certificateUrl });
  });

  test('answers 400 {error_code, error_message} to a hook that fails, and tells onRefused', async () => {
    const h = hook(s, { signer: 'rotated' });
    const res = await send(server.url, h);
    assert.equal(res.status, 400);
    assert.equal(res.headers.get('content-type'), 'application/json');
    const body = await res.json();
    assert.deepEqual(Object.keys(body).sort(), ['error_code', 'error_message']);
    assert.equal(body.error_code, 'SIGNATURE_MISMATCH');
    assert.equal(refused.at(-1), 'SIGNATURE_MISMATCH');
  });

  test('answers 400 to a hook without its headers', async () => {
    const res = await fetch(server.url, { method: 'POST', body: hook(s).body });
    assert.equal(res.status, 400);
    assert.equal((await res.json()).error_code, 'CERT_URL_MALFORMED');
  });

  test('answers 400 to a hook sent in chunks with one byte changed', async () => {
    const h = hook(s);
    const body = Buffer.from(h.body);
    body[10] ^= 1;
    const res = await new Promise((resolve, reject) => {
      const req = http.request(server.url, { method: 'POST', headers: { signature: h.signature, 'signature-certificate-url': h.certificateUrl } }, resolve);
      req.on('error', reject);
      for (let i = 0; i < body.length; i += 7) req.write(body.subarray(i, i + 7));
      req.end();
    });
    assert.equal(res.statusCode, 400);
  });

  test('answers 413 to a body over the limit, without reading it all', async () => {
    const h = hook(s, { extra: { metadata: { pad: 'x'.repeat(5000) } } });
    const res = await send(server.url, h);
    assert.equal(res.status, 413);
    assert.equal((await res.json()).error_code, 'BODY_TOO_LARGE');
  });

  test('answers 405 to another method', async () => {
    const res = await fetch(server.url);
    assert.equal(res.status, 405);
    assert.equal(res.headers.get('allow'), 'POST');
  });

  test('answers 500 when the application fails, without its details', async () => {
    const h = hook(s, { extra: { message_id: 666 } });
    const res = await send(server.url, h);
    assert.equal(res.status, 500);
    assert.deepEqual(await res.json(), { error_code: 'INTERNAL_ERROR', error_message: 'The hook could not be handled' });
  });
});

describe('hookMiddleware (Express)', () => {
  const s = setup();
  let server;
  before(async () => {
    const app = express();
    app.post('/hooks', hookMiddleware(s.verifier), (req, res) => {
      res.json({ message_id: req.body.message_id, raw: req.rawBody.length, ts: req.hook.signatureTimestamp });
    });
    app.post('/raw-first', express.raw({ type: '*/*' }), hookMiddleware(s.verifier), (req, res) => {
      res.json({ message_id: req.body.message_id });
    });
    app.post('/parsed-first', express.json(), hookMiddleware(s.verifier), (req, res) => res.json({ reached: true }));
    // eslint-disable-next-line no-unused-vars
    app.use((err, req, res, next) => res.status(500).json({ error_code: 'MISUSE', error_message: err.message }));
    server = await listen(app);
  });
  after(() => server.close());

  test('sets req.hook, req.rawBody and req.body, then calls next', async () => {
    const h = hook(s);
    const res = await send(`${server.url}/hooks`, h);
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.equal(body.message_id, 123);
    assert.equal(body.raw, h.body.length);
  });

  test('answers 400 {error_code, error_message} and does not call the route', async () => {
    const res = await send(`${server.url}/hooks`, hook(s, { signer: 'rotated' }));
    assert.equal(res.status, 400);
    const body = await res.json();
    assert.equal(body.error_code, 'SIGNATURE_MISMATCH');
    assert.equal(typeof body.error_message, 'string');
  });

  test('works after express.raw(), which keeps the bytes', async () => {
    const res = await send(`${server.url}/raw-first`, hook(s));
    assert.equal(res.status, 200);
    assert.equal((await res.json()).message_id, 123);
  });

  test('refuses to run after express.json(): the bytes are gone', async () => {
    const res = await send(`${server.url}/parsed-first`, hook(s));
    assert.equal(res.status, 500);
    assert.match((await res.json()).error_message, /before any body parser/);
  });
});
