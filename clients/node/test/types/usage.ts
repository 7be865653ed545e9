// Compiled by `tsc -p test/types` (no output): the declarations in src/index.d.ts describe the kit as it is used.
import http from 'node:http';
import express from 'express';
import {
  HookVerifier, VerificationError, FailureCode, createHookHandler, hookMiddleware, httpsFetcher, checkHookCertUrl,
  checkManagementCertUrl, RequestSigner, PlatformClient, PlatformError, MessageType, formatTimestamp, parseTimestamp,
  verifyManagementSignature, type VerifiedHook, type HookBody,
} from '@convplatform/kit';

const verifier = new HookVerifier({
  platformDomains: ['platform.example'],
  trustAnchors: '-----BEGIN CERTIFICATE-----...',
  resolve: 'hooks.platform.example=127.0.0.1:8443',
  clock: () => new Date(),
});

async function verifyOne(headers: http.IncomingHttpHeaders, raw: Buffer): Promise<string> {
  try {
    const hook: VerifiedHook = await verifier.verifyRequest(headers, raw);
    const at: Date = hook.signatureTimestamp;
    return `${hook.certificateUrl} ${at.toISOString()} ${hook.certificates[0].subject}`;
  } catch (e) {
    if (e instanceof VerificationError) {
      const code: FailureCode = e.code;
      if (code === FailureCode.SIGNATURE_MISMATCH) return 'mismatch';
      return code;
    }
    throw e;
  }
}

http.createServer(createHookHandler(verifier, (hook, req, res) => {
  const body = hook.json<HookBody>();
  const id: number = body.message_id;
  res.end(String(id));
}, { limit: 65536, onRefused: (error) => console.log(error.code) }));

const app = express();
app.post('/hooks', hookMiddleware(verifier), (req, res) => {
  res.json({ ok: true });
});

const fetcher = httpsFetcher({ maxBytes: 1024, totalTimeoutMs: 1000 });
const custom = new HookVerifier({ platformDomains: 'platform.example', fetcher, useSystemRoots: true, cacheSize: 4 });
const url: string = checkHookCertUrl('https://hooks.platform.example/platform/hooks/certificate/', ['platform.example']).url;
const mgmt: string = checkManagementCertUrl('https://client.example.com/client.api/chain.pem', 'client.example.com').path;

const signer = new RequestSigner({ privateKey: '-----BEGIN PRIVATE KEY-----...', certUuid: 'uuid' });
const { body, headers } = signer.signJson({ client_id: 'c', fqdn: 'client.example.com' });
const ok: boolean = verifyManagementSignature('SHA1withRSA', '-----BEGIN CERTIFICATE-----', body, headers.Signature);

async function calls(): Promise<void> {
  const client = new PlatformClient({ managementUrl: 'https://api.example', uploadUrl: 'https://up.example', fqdn: 'client.example.com', signer });
  try {
    const token = await client.issueToken('client-1');
    const { clients } = await client.listClients();
    const logged = await client.upload({
      accessToken: token.access_token, clientId: clients[0].client_id, authId: 'u1', businessId: '1001',
      messageType: MessageType.DOCUMENT, file: new Uint8Array([1, 2]), fileName: 'a.csv',
    });
    console.log(logged.file_url, formatTimestamp(Date.now()), parseTimestamp('2026-01-01T00:00:00Z'));
  } catch (e) {
    if (e instanceof PlatformError) console.log(e.status, e.errorCode, e.errorMessage);
  }
}

// @ts-expect-error: platformDomains is required
new HookVerifier({});
// @ts-expect-error: not a failure code
const wrong: FailureCode = 'NOPE';

void [verifyOne, custom, url, mgmt, ok, calls, wrong];
