// A hook receiver: answers 200 to a hook that verifies and 400 {"error_code", "error_message"} to one that does not.
// Settings: PORT, PLATFORM_DOMAIN (comma-separated), TRUST (PEM file of extra trust anchors), RESOLVE
// (host=127.0.0.1:port, local runs only), OUT (file: one JSON line per hook), HOST (default 127.0.0.1).
import http from 'node:http';
import { appendFileSync, readFileSync } from 'node:fs';
import { HookVerifier, createHookHandler } from '@convplatform/kit';

const env = process.env;
const verifier = new HookVerifier({
  platformDomains: (env.PLATFORM_DOMAIN ?? 'platform.example').split(','),
  trustAnchors: env.TRUST ? readFileSync(env.TRUST, 'utf8') : undefined,
  resolve: env.RESOLVE || undefined,
});
const record = (line, note) => { // one line on stdout, and one JSON line in OUT
  console.log(note ?? JSON.stringify(line));
  if (env.OUT) appendFileSync(env.OUT, `${JSON.stringify(line)}\n`);
};

const handler = createHookHandler(verifier, (hook, req, res) => {
  const { message_id: messageId } = hook.json();
  record({ ok: true, message_id: messageId });
  res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"received":true}');
}, { onRefused: (e) => record({ ok: false, code: e.code }, `refused (400) ${e.code}: ${e.message}`) });

const server = http.createServer(handler).listen(Number(env.PORT ?? 8090), env.HOST ?? '127.0.0.1', () => {
  console.log(`receiving hooks on http://${env.HOST ?? '127.0.0.1'}:${server.address().port}/`);
});
