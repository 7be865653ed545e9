// The shared vectors of every kit (clients/vectors) and the public certificate-URL tables (../shared/vectors).
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  HookVerifier, VerificationError, checkHookCertUrl, checkManagementCertUrl, signManagementBody,
  verifyManagementSignature, RequestSigner, HOOK_CERT_PATH,
} from '../src/index.js';

const VECTORS = fileURLToPath(new URL('../../vectors/', import.meta.url));
const read = (rel) => readFileSync(VECTORS + rel);
const json = (rel) => JSON.parse(read(rel).toString('utf8'));

const outcome = async (fn) => {
  try {
    await fn();
    return 'OK';
  } catch (e) {
    if (e instanceof VerificationError) return e.code;
    throw e;
  }
};

describe('hooks.json', () => {
  const doc = json('hooks.json');
  const anchors = doc.anchors.map((a) => read(a).toString('utf8'));

  function verifierFor() {
    const state = { now: 0, served: {}, fetches: 0 };
    state.verifier = new HookVerifier({
      platformDomains: doc.platform_domains,
      trustAnchors: anchors,
      useSystemRoots: false,
      toleranceSeconds: doc.tolerance_seconds,
      refetchAfterMs: doc.refetch_after_seconds * 1000,
      clock: () => state.now,
      fetcher: async (url) => {
        state.fetches++;
        if (!Object.hasOwn(state.served, url)) throw new Error(`nothing is served at ${url}`);
        return read(state.served[url]);
      },
    });
    return state;
  }

  const hookOf = (h) => ({
    signature: h.headers.signature,
    certificateUrl: h.headers['signature-certificate-url'],
    body: Buffer.from(h.body_b64, 'base64'),
  });

  test('has the cases the kits agreed on', () => {
    assert.ok(doc.cases.length >= 60, `${doc.cases.length} cases`);
    const names = new Set(doc.cases.map((c) => c.name));
    for (const n of ['good', 'tampered-body', 'wrong-key', 'stale-121s', 'future-121s', 'rotated-certificate', 'rotated-but-url-serves-old']) {
      assert.ok(names.has(n), n);
    }
  });

  for (const c of doc.cases) {
    test(`${c.name}: ${c.expected}`, async () => {
      const s = verifierFor();
      if (c.prime) {
        s.now = Date.parse(c.prime.now ?? c.now);
        s.served = c.prime.served;
        assert.equal(await outcome(() => s.verifier.verify(hookOf(c.prime))), 'OK', 'the prime hook verifies');
      }
      s.now = Date.parse(c.now);
      s.served = c.served;
      const got = await outcome(() => s.verifier.verify(hookOf(c)));
      assert.equal(got, c.expected, c.description);
      assert.equal(s.fetches, c.fetches, `download attempts (${c.description})`);
    });
  }

  const good = doc.cases.find((c) => c.name === 'good');

  test('good: every byte of the body flipped fails', async () => {
    const s = verifierFor();
    s.now = Date.parse(good.now);
    s.served = good.served;
    const h = hookOf(good);
    for (let i = 0; i < h.body.length; i++) {
      const body = Buffer.from(h.body);
      body[i] ^= 0xff;
      assert.notEqual(await outcome(() => s.verifier.verify({ ...h, body })), 'OK', `byte ${i}`);
    }
    assert.equal(await outcome(() => s.verifier.verify(h)), 'OK');
  });

  test('good: every byte of the signature flipped fails', async () => {
    const s = verifierFor();
    s.now = Date.parse(good.now);
    s.served = good.served;
    const h = hookOf(good);
    const sig = Buffer.from(h.signature, 'base64');
    for (let i = 0; i < sig.length; i++) {
      const bad = Buffer.from(sig);
      bad[i] ^= 0xff;
      assert.equal(await outcome(() => s.verifier.verify({ ...h, signature: bad.toString('base64') })), 'SIGNATURE_MISMATCH', `byte ${i}`);
    }
  });

  test('good: every character of the signature header changed fails', async () => {
    const s = verifierFor();
    s.now = Date.parse(good.now);
    s.served = good.served;
    const h = hookOf(good);
    for (let i = 0; i < h.signature.length; i++) {
      const c = h.signature[i] === 'A' ? 'B' : 'A';
      const sig = h.signature.slice(0, i) + c + h.signature.slice(i + 1);
      assert.notEqual(await outcome(() => s.verifier.verify({ ...h, signature: sig })), 'OK', `character ${i}`);
    }
  });
});

describe('cert-urls.json', () => {
  const doc = json('cert-urls.json');
  for (const c of doc.hook.cases) {
    test(`hook ${JSON.stringify(c.url)}: ${c.expected}`, async () => {
      let normalised = null;
      const got = await outcome(() => {
        normalised = checkHookCertUrl(c.url, doc.hook.platform_domains).url;
      });
      assert.equal(got, c.expected);
      assert.equal(got === 'OK' ? normalised : null, c.normalized);
    });
  }
  for (const c of doc.management.cases) {
    test(`management ${JSON.stringify(c.url)}: ${c.expected}`, async () => {
      let normalised = null;
      const got = await outcome(() => {
        normalised = checkManagementCertUrl(c.url, doc.management.fqdn).url;
      });
      assert.equal(got, c.expected);
      assert.equal(got === 'OK' ? normalised : null, c.normalized);
    });
  }
});

describe('signed-requests.json', () => {
  const doc = json('signed-requests.json');
  for (const c of doc.cases) {
    test(`${c.name}: ${c.expected}`, async () => {
      const body = Buffer.from(c.body_b64, 'base64');
      const cert = read(c.certificate).toString('utf8');
      const key = read(c.private_key).toString('utf8');
      const got = await outcome(() => {
        if (!verifyManagementSignature(c.algorithm, cert, body, c.signature_b64)) {
          throw new VerificationError('SIGNATURE_MISMATCH', 'does not verify');
        }
      });
      assert.equal(got, c.expected, c.description);
      if (c.expected === 'OK') {
        // SHA256with... cases are the Signature-256 header (the platform's extension), the others Signature
        const sha256 = c.algorithm.startsWith('SHA256');
        const mine = signManagementBody(key, body, sha256 ? 'sha256' : 'sha1');
        if (c.algorithm.endsWith('RSA')) {
          assert.equal(mine, c.signature_b64, `${c.algorithm} is deterministic: the same bytes`);
        }
        assert.equal(verifyManagementSignature(c.algorithm, cert, body, mine), true);
        const signer = new RequestSigner({ privateKey: key, certUuid: 'u' });
        assert.equal(sha256 ? signer.algorithm256 : signer.algorithm, c.algorithm);
        const sent = signer.headers(body)[sha256 ? 'Signature-256' : 'Signature'];
        assert.equal(verifyManagementSignature(c.algorithm, cert, body, sent), true);
      }
    });
  }
});

// ../shared/vectors/cert-urls/README.md, parsed at test time as crypto-common's CertificateUrlTablesTest does.
describe('public certificate-URL tables', () => {
  const tables = fileURLToPath(new URL('../../../../shared/vectors/cert-urls/README.md', import.meta.url));
  const present = existsSync(tables);
  const required = process.env.VECTORS_REQUIRED === 'true';
  if (!present && required) {
    test('the public tables are present', () => assert.fail(`missing ${tables}; mandatory when VECTORS_REQUIRED=true`));
    return;
  }
  const skip = present ? false : `public vectors not found at ${tables}; skipping`;
  const lines = present ? readFileSync(tables, 'utf8').split('\n') : [];
  const ROW = /^\| (\w+) \| `([^`]*)` \| ([^|]+?) \|/;

  function rows(from, to) {
    const out = [];
    let inside = false;
    for (const line of lines) {
      if (line.startsWith('## ') && line.includes(from)) {
        inside = true;
        continue;
      }
      if (inside && line.startsWith('## ') && line.includes(to.replace('## ', ''))) break;
      if (!inside) continue;
      const m = ROW.exec(line);
      if (m) out.push([m[1], m[2], m[3].trim()]);
      else if (line.startsWith('| X3 |') || line.startsWith('| X4 |')) {
        const id = line.slice(2, 4);
        out.push([id, id === 'X3' ? '' : '   ', 'reject']);
      }
    }
    return out;
  }

  const FQDN = 'client.example.com';
  const alexa = rows('1. Alexa', '2. AWS SNS');
  test('the Alexa table has its rows', { skip }, () => assert.ok(alexa.length >= 24, `${alexa.length}`));
  for (const [id, raw, verdict] of alexa) {
    // Java's String.replace replaces every occurrence
    const url = raw.replaceAll('s3.amazonaws.com', FQDN).replaceAll('S3.AMAZONAWS.COM', FQDN.toUpperCase())
      .replaceAll('/echo.api/', '/client.api/').replaceAll('/EcHo.aPi/', '/ClIeNt.aPi/')
      .replaceAll('/ECHO.API/', '/CLIENT.API/');
    const accept = verdict.startsWith('accept');
    test(`Alexa ${id} ${url} -> ${accept ? 'accept' : 'reject'} (management rule)`, { skip }, () => {
      if (accept) {
        const n = checkManagementCertUrl(url, FQDN);
        assert.equal(n.host, FQDN);
        assert.ok(n.path.startsWith('/client.api/'));
        if (id === 'A9') assert.equal(n.url, 'https://client.example.com/client.api/cert');
        if (id === 'A3') assert.equal(n.url, 'https://client.example.com/client.api/echo-api-cert.pem');
      } else {
        assert.throws(() => checkManagementCertUrl(url, FQDN), VerificationError);
      }
    });
  }

  // SNS only trusts hosts whose first label is 'sns'; the hook rule accepts any subdomain (spec 5.2), and the path is
  // replaced by ours, so its '.pem' rule has no counterpart.
  const SNS_OUTCOME_DIFFERS = new Set(['X6', 'X9', 'X13', 'X14']);
  const mapSns = (u) => {
    const mapped = u.replaceAll('amazonaws.com', 'platform.example');
    const m = /^(https?:\/\/[^/]+)(\/.*)$/.exec(mapped);
    return m ? m[1] + HOOK_CERT_PATH : mapped;
  };
  const sns = rows('2. AWS SNS', '## Sources');
  test('the SNS table has its rows', { skip }, () => assert.ok(sns.length >= 25, `${sns.length}`));
  for (const [id, raw, verdict] of sns) {
    const url = mapSns(raw);
    let accept = verdict.startsWith('accept');
    if (SNS_OUTCOME_DIFFERS.has(id)) accept = !accept;
    test(`SNS ${id} ${url} -> ${accept ? 'accept' : 'reject'} (hook rule)`, { skip }, () => {
      const domains = ['platform.example', 'platform.example.cn'];
      if (accept) assert.equal(checkHookCertUrl(url, domains).path, HOOK_CERT_PATH);
      else assert.throws(() => checkHookCertUrl(url, domains), VerificationError);
    });
  }
});
