// The same receiver in Express: mount hookMiddleware on the hook route before any body parser.
// Settings: PORT, PLATFORM_DOMAIN, TRUST (PEM file of extra trust anchors), RESOLVE (host=127.0.0.1:port, local only).
import express from 'express';
import { readFileSync } from 'node:fs';
import { HookVerifier, hookMiddleware } from '@convplatform/kit';

const env = process.env;
const verifier = new HookVerifier({
  platformDomains: (env.PLATFORM_DOMAIN ?? 'platform.example').split(','),
  trustAnchors: env.TRUST ? readFileSync(env.TRUST, 'utf8') : undefined,
  resolve: env.RESOLVE || undefined,
});

const app = express();
app.post('/hooks', hookMiddleware(verifier), (req, res) => {
  // req.body is the verified JSON, req.rawBody its exact bytes; a hook that failed never gets here (400 was sent)
  console.log(`message ${req.body.message_id} from ${req.body.user_id}`);
  res.json({ received: true });
});
app.use(express.json()); // other routes may parse JSON as usual

const server = app.listen(Number(env.PORT ?? 8090), env.HOST ?? '127.0.0.1', () => {
  console.log(`receiving hooks on http://${env.HOST ?? '127.0.0.1'}:${server.address().port}/hooks`);
});
