// PlatformClient against a real HTTP server that checks what the platform checks: the signature over the exact bytes
// with the client's public key, the timestamp, the headers, and the multipart form as a parser reads it.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import crypto from 'node:crypto';
import { once } from 'node:events';
import { PlatformClient, PlatformError, RequestSigner, MessageType } from '../src/index.js';

const FQDN = 'client.example.com';
const keys = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
const received = [];
let server;
let base;

async function readAll(req) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  return Buffer.concat(chunks);
}

function reply(res, status, obj) {
  res.writeHead(status, { 'Content-Type': 'application/json', 'X-Request-Id': 'req-42' }).end(JSON.stringify(obj));
}

before(async () => {
  server = http.createServer(async (req, res) => {
    const body = await readAll(req);
    received.push({ method: req.method, url: req.url, headers: req.headers, body });
    if (req.url === '/platform/management/token/issue/' || req.url === '/platform/management/clients/') {
      const sig = Buffer.from(req.headers.signature ?? '', 'base64');
      const ok = crypto.verify('sha1', body, { key: keys.publicKey, dsaEncoding: 'der' }, sig);
      if (!ok || req.headers.signaturecertuuid !== 'cert-1' || req.headers['content-type'] !== 'application/json') {
        reply(res, 400, { error_code: 'SIGNATURE_MISMATCH', error_message: 'The signature does not match the request body' });
        return;
      }
      const fields = JSON.parse(body);
      if (Math.abs(Date.parse(fields.timestamp) - Date.now()) > 150_000 || fields.fqdn !== FQDN) {
        reply(res, 400, { error_code: 'TIMESTAMP_OUT_OF_WINDOW', error_message: 'too far' });
        return;
      }
      if (req.url.includes('token')) {
        if (fields.client_id !== 'client-1') {
          reply(res, 403, { error_code: 'CLIENT_NOT_IN_ACCOUNT', error_message: 'The client_id is not one of the account\'s' });
          return;
        }
        reply(res, 200, { access_token: `jwt-for-${fields.client_id}`, token_type: 'Bearer', expires_in: 3600, client_id: fields.client_id });
      } else {
        reply(res, 200, { clients: [{ client_id: 'client-1', name: 'Web', created_at: '2026-06-01T12:00:00Z' }] });
      }
      return;
    }
    if (req.url === '/v1.0/log_file_from_user/') {
      if (req.headers.authorization !== 'Bearer jwt-for-client-1' || req.headers['client-id'] !== 'client-1') {
        reply(res, 401, { error_code: 'INVALID_AUTHORIZATION', error_message: 'Invalid authorization details' });
        return;
      }
      const form = await new Request('http://x/', { method: 'POST', headers: { 'content-type': req.headers['content-type'] }, body }).formData();
      const file = form.get('file');
      reply(res, 200, {
        message_id: 7,
        message_body: form.get('message_body') ?? '',
        created_at: '2026-06-01T12:00:00.000Z',
        message_type: Number(form.get('message_type')),
        file_url: `https://files.example/${file.name}`,
        echo: { auth_id: form.get('auth_id'), business_id: form.get('business_id'), type: file.type, size: file.size, sha: crypto.createHash('sha256').update(Buffer.from(await file.arrayBuffer())).digest('hex') },
      });
      return;
    }
    res.writeHead(502).end('<html>bad gateway</html>');
  }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${server.address().port}`;
});
after(() => server.close());

const client = (over = {}) => new PlatformClient({
  managementUrl: `${base}/`, uploadUrl: base, fqdn: FQDN,
  signer: new RequestSigner({ privateKey: keys.privateKey, certUuid: 'cert-1' }), ...over,
});

describe('PlatformClient', () => {
  test('lists the clients and issues a token with signed requests', async () => {
    const c = client();
    const { clients } = await c.listClients();
    assert.equal(clients[0].client_id, 'client-1');
    const token = await c.issueToken('client-1');
    assert.equal(token.access_token, 'jwt-for-client-1');
    const sent = received.at(-1);
    assert.equal(sent.method, 'POST');
    assert.deepEqual(Object.keys(JSON.parse(sent.body)).sort(), ['client_id', 'fqdn', 'timestamp']);
  });

  test('a refusal is a PlatformError with the service\'s error_code and error_message', async () => {
    await assert.rejects(client().issueToken('client-2'), (e) => {
      assert.ok(e instanceof PlatformError);
      assert.equal(e.status, 403);
      assert.equal(e.errorCode, 'CLIENT_NOT_IN_ACCOUNT');
      assert.match(e.errorMessage, /not one of the account's/);
      assert.equal(e.requestId, 'req-42');
      return true;
    });
  });

  test('a signature by another key is refused by the server', async () => {
    const other = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const c = client({ signer: new RequestSigner({ privateKey: other.privateKey, certUuid: 'cert-1' }) });
    await assert.rejects(c.listClients(), { name: 'PlatformError', errorCode: 'SIGNATURE_MISMATCH', status: 400 });
  });

  test('uploads a file as multipart with the Bearer token and client-id', async () => {
    const file = crypto.randomBytes(5000);
    const logged = await client().upload({
      accessToken: 'jwt-for-client-1', clientId: 'client-1', authId: 'user42', businessId: '1001',
      messageType: MessageType.IMAGE, file, fileName: 'photo.png', contentType: 'image/png', messageBody: 'hello',
    });
    assert.equal(logged.message_type, 1);
    assert.equal(logged.message_body, 'hello');
    assert.equal(logged.file_url, 'https://files.example/photo.png');
    assert.deepEqual(logged.echo, {
      auth_id: 'user42', business_id: '1001', type: 'image/png', size: 5000,
      sha: crypto.createHash('sha256').update(file).digest('hex'),
    });
    assert.match(received.at(-1).headers['content-type'], /^multipart\/form-data; boundary=/);
  });

  test('an upload with a bad token: PlatformError 401 INVALID_AUTHORIZATION', async () => {
    await assert.rejects(client().upload({
      accessToken: 'nope', clientId: 'client-1', authId: 'user42', businessId: '1001', messageType: 52,
      file: Buffer.from('a,b\n'), fileName: 'scores.csv',
    }), { name: 'PlatformError', status: 401, errorCode: 'INVALID_AUTHORIZATION', errorMessage: 'Invalid authorization details' });
  });

  test('an answer that is not JSON: PlatformError HTTP_<status> with the text', async () => {
    await assert.rejects(client({ managementUrl: `${base}/elsewhere` }).listClients(), { status: 502, errorCode: 'HTTP_502', errorMessage: '<html>bad gateway</html>' });
  });

  test('missing settings are said before anything is sent', async () => {
    await assert.rejects(new PlatformClient({ managementUrl: base, fqdn: FQDN }).listClients(), /signer is required/);
    await assert.rejects(client({ fqdn: undefined }).listClients(), /fqdn is required/);
    await assert.rejects(client().issueToken(''), /clientId is required/);
    await assert.rejects(client().upload({ accessToken: 't' }), /clientId is required/);
  });
});
