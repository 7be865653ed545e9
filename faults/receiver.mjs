// The fault harness's hook receiver: verifies every hook with the Node kit (clients/node, no runtime dependencies)
// and misbehaves on the harness's command. One JSON line per request in OUT:
//   {"t": epoch ms, "message_id", "delivery_id", "attempt", "verified", "fp", "code", "error", "mode", "status"}
// ("fp": the SHA-256 fingerprint of the signing certificate that verified it)
// "status" is what it answered (0: it never answered, the caller had given up). A hook whose signature does not
// verify is answered 400 with the kit's error code, as the kit's own receivers do, and not processed.
// Modes (GET /control?mode=...): ok (200 at once), fail (503, the hook is not processed), slow (200 after 2-5 s),
// timeout (processed, then the answer is held for TIMEOUT_MS, longer than hook-service's read time-out, so the
// attempt fails although the receiver did the work: the next attempt is a duplicate).
// Settings: PORT, OUT, PLATFORM_DOMAIN, TRUST (the hook CA), RESOLVE (certificate host=127.0.0.1:port), TIMEOUT_MS.
import http from 'node:http';
import { appendFileSync, readFileSync } from 'node:fs';
import { HookVerifier, VerificationError } from '../clients/node/src/index.js';

const env = process.env;
const timeoutMs = Number(env.TIMEOUT_MS ?? 15000);
const verifier = new HookVerifier({
  platformDomains: (env.PLATFORM_DOMAIN ?? 'platform.example').split(','),
  trustAnchors: readFileSync(env.TRUST, 'utf8'),
  useSystemRoots: false,
  resolve: env.RESOLVE,
});
let mode = 'ok';
const record = (line) => appendFileSync(env.OUT, `${JSON.stringify(line)}\n`);
const gone = (res) => !res.socket || res.socket.destroyed;
const answer = (res, status, body) => {
  if (gone(res) || res.writableEnded) return;
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
};

const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://receiver');
  if (url.pathname === '/control') {
    mode = url.searchParams.get('mode') ?? mode;
    answer(res, 200, { mode });
    return;
  }
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', async () => {
    const body = Buffer.concat(chunks);
    const now = mode;
    const line = {
      t: Date.now(), message_id: null, delivery_id: req.headers['x-hook-delivery-id'] ?? null,
      attempt: Number(req.headers['x-hook-attempt'] ?? 0), verified: false, code: null, mode: now, status: 0,
    };
    try {
      const verified = await verifier.verifyRequest(req.headers, body);
      line.verified = true;
      line.fp = verified.certificates[0].fingerprint256; // which signing key verified it (the rotation's check)
    } catch (e) {
      line.code = e instanceof VerificationError ? e.code : 'ERROR';
      line.error = String(e.message).slice(0, 300);
    }
    try {
      line.message_id = JSON.parse(body.toString('utf8')).message_id ?? null;
    } catch {
      // not JSON: recorded without a message id
    }
    if (!line.verified) {
      line.status = 400;
      record(line);
      answer(res, 400, { error_code: line.code, error_message: 'the hook does not verify' });
      return;
    }
    if (now === 'fail') {
      line.status = 503;
      record(line);
      answer(res, 503, { error: 'receiver failing (fault harness)' });
    } else if (now === 'slow') {
      const wait = 2000 + Math.floor(Math.random() * 3000);
      setTimeout(() => {
        line.status = gone(res) ? 0 : 200;
        record(line);
        answer(res, 200, { received: true });
      }, wait);
    } else if (now === 'timeout') {
      setTimeout(() => {
        line.status = gone(res) ? 0 : 200;
        record(line);
        answer(res, 200, { received: true });
      }, timeoutMs);
    } else {
      line.status = 200;
      record(line);
      answer(res, 200, { received: true });
    }
  });
});
server.keepAliveTimeout = 30000;
server.listen(Number(env.PORT), '127.0.0.1', () => {
  console.log(`fault receiver on http://127.0.0.1:${server.address().port}/`);
});
