import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { VerificationError, formatTimestamp } from '../src/index.js';
import {
  CERT_URL, T0, DAY, certDocument, hookBody, signHook,
} from './helpers/pki.js';
import { setup, hook } from './helpers/setup.js';

async function rejectsWith(promise, code) {
  await assert.rejects(promise, (e) => {
    assert.ok(e instanceof VerificationError, `not a VerificationError: ${e}`);
    assert.equal(e.code, code, e.message);
    assert.ok(e.message.length > 10);
    return true;
  });
}

describe('a good hook', () => {
  test('verifies and names the certificate URL, the timestamp and the chain', async () => {
    const s = setup();
    const h = hook(s);
    const v = await s.verifier.verify(h);
    assert.equal(v.certificateUrl, CERT_URL);
    assert.equal(v.signatureTimestamp.getTime(), Math.floor(s.now / 1000) * 1000);
    assert.equal(v.certificates.length, 2);
    assert.match(v.certificates[0].subjectAltName, /hooks\.platform\.test/);
    assert.deepEqual(v.body, h.body);
    assert.deepEqual(s.fetched, [CERT_URL]);
  });

  test('is downloaded once and then served from the cache, under its normalised URL', async () => {
    const s = setup();
    await s.verifier.verify(hook(s));
    await s.verifier.verify(hook(s, { url: 'HTTPS://HOOKS.platform.test:443//platform/hooks/certificate/' }));
    await s.verifier.verify(hook(s, { url: 'https://hooks.platform.test/platform/x/../hooks/certificate/' }));
    assert.deepEqual(s.fetched, [CERT_URL]);
  });

  test('verifyRequest reads the headers in any case', async () => {
    const s = setup();
    const h = hook(s);
    const v = await s.verifier.verifyRequest({ Signature: h.signature, 'Signature-Certificate-URL': h.certificateUrl }, h.body);
    assert.equal(v.certificateUrl, CERT_URL);
    const w = await s.verifier.verifyRequest(new Headers({ signature: h.signature, 'signature-certificate-url': h.certificateUrl }), h.body);
    assert.equal(w.certificateUrl, CERT_URL);
  });

  test('a wildcard certificate for the platform domain names the host', async () => {
    const s = setup({ served: { [CERT_URL]: certDocument('wildcard', 'inter') } });
    const body = hookBody(formatTimestamp(s.now));
    await s.verifier.verify({ signature: signHook('wildcard', body), certificateUrl: CERT_URL, body });
  });

  test('the root may be sent along, and the chain may come out of order', async () => {
    const s = setup({ served: { [CERT_URL]: certDocument('leaf', 'root', 'inter') } });
    await s.verifier.verify(hook(s));
  });

  test('a name-constrained intermediate that permits the platform domain is accepted', async () => {
    const s = setup({ served: { [CERT_URL]: certDocument('underallowing', 'allowing') } });
    const body = hookBody(formatTimestamp(s.now));
    await s.verifier.verify({ signature: signHook('underallowing', body), certificateUrl: CERT_URL, body });
  });
});

describe('every failure code', () => {
  const urlCases = [
    ['CERT_URL_MALFORMED', null],
    ['CERT_URL_MALFORMED', 'https://hooks.platform.test/platform/hooks/certificate/?x=1'],
    ['CERT_URL_SCHEME', 'http://hooks.platform.test/platform/hooks/certificate/'],
    ['CERT_URL_HOST', 'https://hooks.platform.test.evil.example/platform/hooks/certificate/'],
    ['CERT_URL_HOST', 'https://platform.test/platform/hooks/certificate/'],
    ['CERT_URL_PATH', 'https://hooks.platform.test/platform/hooks/certificate'],
    ['CERT_URL_PORT', 'https://hooks.platform.test:8443/platform/hooks/certificate/'],
  ];
  for (const [code, url] of urlCases) {
    test(`${code}: ${url}`, async () => {
      const s = setup();
      await rejectsWith(s.verifier.verify(hook(s, { url })), code);
      assert.deepEqual(s.fetched, [], 'nothing is downloaded for a URL that fails the rule');
    });
  }

  test('CERT_FETCH_FAILED: nothing is served', async () => {
    const s = setup({ served: {} });
    await rejectsWith(s.verifier.verify(hook(s)), 'CERT_FETCH_FAILED');
  });

  test('CERT_FETCH_FAILED: the fetcher returns no bytes', async () => {
    const s = setup({ served: { [CERT_URL]: 42 } });
    await rejectsWith(s.verifier.verify(hook(s)), 'CERT_FETCH_FAILED');
  });

  test('CERT_FETCH_FAILED: the document is larger than the limit', async () => {
    const s = setup({ served: { [CERT_URL]: Buffer.alloc(64 * 1024 + 1, 0x20) } });
    await rejectsWith(s.verifier.verify(hook(s)), 'CERT_FETCH_FAILED');
  });

  const malformed = {
    'a document without certificate': Buffer.from('{"cert": "x"}'),
    'certificate not a string': Buffer.from('{"certificate": 1}'),
    'a document that is not JSON': Buffer.from('-----BEGIN CERTIFICATE-----'),
    'a duplicated key': Buffer.from('{"certificate": "a", "certificate": "b"}'),
    'data after the object': Buffer.from('{"certificate": "a"} {}'),
    'garbage PEM': Buffer.from(JSON.stringify({ certificate: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n' })),
    'text around the PEM': Buffer.from(JSON.stringify({ certificate: `hello\n${certDocument('leaf').toString()}` })),
    'a private key in the chain': Buffer.from(JSON.stringify({ certificate: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n' })),
    'no PEM at all': Buffer.from(JSON.stringify({ certificate: 'nothing here' })),
  };
  for (const [name, doc] of Object.entries(malformed)) {
    test(`CERT_MALFORMED: ${name}`, async () => {
      const s = setup({ served: { [CERT_URL]: doc } });
      await rejectsWith(s.verifier.verify(hook(s)), 'CERT_MALFORMED');
    });
  }

  test('CERT_MALFORMED: eleven certificates', async () => {
    const s = setup({ served: { [CERT_URL]: certDocument(...Array(11).fill('leaf')) } });
    await rejectsWith(s.verifier.verify(hook(s)), 'CERT_MALFORMED');
  });

  test('CERT_MALFORMED: bytes after the DER certificate', async () => {
    const { pem } = await import('./helpers/pki.js');
    const der = Buffer.from(pem('leaf').replace(/-----[A-Z ]+-----|\s/g, ''), 'base64');
    const padded = Buffer.concat([der, Buffer.from([0, 0])]).toString('base64').replace(/.{64}/g, '$&\n');
    const doc = Buffer.from(JSON.stringify({ certificate: `-----BEGIN CERTIFICATE-----\n${padded}\n-----END CERTIFICATE-----\n` }));
    const s = setup({ served: { [CERT_URL]: doc } });
    await rejectsWith(s.verifier.verify(hook(s)), 'CERT_MALFORMED');
  });

  test('CERT_NOT_YET_VALID: before the certificates were issued', async () => {
    const s = setup({ now: T0 - DAY });
    await rejectsWith(s.verifier.verify(hook(s)), 'CERT_NOT_YET_VALID');
  });

  test('CERT_EXPIRED: the signing certificate', async () => {
    const s = setup({ served: { [CERT_URL]: certDocument('short', 'inter') }, now: T0 + 2 * DAY });
    const body = hookBody(formatTimestamp(s.now));
    await rejectsWith(s.verifier.verify({ signature: signHook('short', body), certificateUrl: CERT_URL, body }), 'CERT_EXPIRED');
  });

  test('CERT_EXPIRED: the intermediate, with a leaf still valid', async () => {
    const s = setup({ served: { [CERT_URL]: certDocument('undershortinter', 'shortinter') }, now: T0 + 2 * DAY });
    const body = hookBody(formatTimestamp(s.now));
    await rejectsWith(s.verifier.verify({ signature: signHook('undershortinter', body), certificateUrl: CERT_URL, body }), 'CERT_EXPIRED');
  });

  test('CERT_EXPIRED: a cached chain that expired since is downloaded again, then refused', async () => {
    const s = setup({ served: { [CERT_URL]: certDocument('short', 'inter') } });
    let body = hookBody(formatTimestamp(s.now));
    await s.verifier.verify({ signature: signHook('short', body), certificateUrl: CERT_URL, body });
    s.now = T0 + 2 * DAY;
    body = hookBody(formatTimestamp(s.now));
    await rejectsWith(s.verifier.verify({ signature: signHook('short', body), certificateUrl: CERT_URL, body }), 'CERT_EXPIRED');
    assert.equal(s.fetched.length, 2);
  });

  test('CERT_NAME_MISMATCH: the SAN names another host', async () => {
    const s = setup({ served: { [CERT_URL]: certDocument('wrongname', 'inter') } });
    await rejectsWith(s.verifier.verify(hook(s)), 'CERT_NAME_MISMATCH');
  });

  test('CERT_NAME_MISMATCH: the host is only in the subject CN', async () => {
    // the leaf's CN is hooks.platform.test, its SAN other.platform.test: the CN is never consulted
    const s = setup({ served: { 'https://other.platform.test/platform/hooks/certificate/': certDocument('leaf', 'inter') } });
    await rejectsWith(s.verifier.verify(hook(s, { url: 'https://other.platform.test/platform/hooks/certificate/' })), 'CERT_NAME_MISMATCH');
  });

  test('CERT_UNTRUSTED: a chain to an unknown root', async () => {
    const s = setup({ served: { [CERT_URL]: certDocument('foreign', 'otherroot') } });
    await rejectsWith(s.verifier.verify(hook(s)), 'CERT_UNTRUSTED');
  });

  test('CERT_UNTRUSTED: the intermediate left out', async () => {
    const s = setup({ served: { [CERT_URL]: certDocument('leaf') } });
    await rejectsWith(s.verifier.verify(hook(s)), 'CERT_UNTRUSTED');
  });

  test('CERT_UNTRUSTED: a self-signed signing certificate', async () => {
    const s = setup({ served: { [CERT_URL]: certDocument('selfsigned') } });
    await rejectsWith(s.verifier.verify(hook(s)), 'CERT_UNTRUSTED');
  });

  const invalid = {
    'a CA certificate signs': ['leafca', 'inter'],
    'no digitalSignature key usage': ['nodigsig', 'inter'],
    'extended key usage codeSigning only': ['codesign', 'inter'],
    'an unknown critical extension': ['critunknown', 'inter'],
    'an issuer that is not a CA': ['undernotca', 'notca'],
    'a path longer than pathlen allows': ['deep', 'inter2', 'inter'],
    'an issuer without keyCertSign': ['undernocertsign', 'nocertsign'],
    'a name outside the name constraints': ['underconstrained', 'constrained'],
    'a name in an excluded subtree': ['underexcluding', 'excluding'],
    'a wildcard that can match an excluded name': ['wildunderexcluding', 'excluding'],
    'an IP address outside the permitted subtree': ['underipconstrained', 'ipconstrained'],
    'an IP address in an excluded subtree': ['underipexcluding', 'ipexcluding'],
    'an e-mail address outside the permitted subtree': ['underemailconstrained', 'emailconstrained'],
    'a subject outside the permitted directory name': ['underdirbad', 'dirconstrained'],
    'a URI outside the permitted subtree': ['underuribad', 'uriconstrained'],
    'an empty name constraints extension': ['underemptyconstraints', 'emptyconstraints'],
    'more name comparisons than allowed (500 names, 600 constraints)': ['undermanyconstraints', 'manyconstraints'],
    'a CA key of 1024 bits': ['underweakca', 'weakca'],
  };
  for (const [name, chain] of Object.entries(invalid)) {
    test(`CERT_CHAIN_INVALID: ${name}`, async () => {
      const s = setup({ served: { [CERT_URL]: certDocument(...chain) } });
      await rejectsWith(s.verifier.verify(hook(s)), 'CERT_CHAIN_INVALID');
    });
  }

  test('CERT_CHAIN_INVALID: a certificate whose signature was altered', async () => {
    const { pem } = await import('./helpers/pki.js');
    const der = Buffer.from(pem('leaf').replace(/-----[A-Z ]+-----|\s/g, ''), 'base64');
    der[der.length - 1] ^= 0x01; // the last byte of the signature value
    const leaf = `-----BEGIN CERTIFICATE-----\n${der.toString('base64')}\n-----END CERTIFICATE-----\n`;
    const s = setup({ served: { [CERT_URL]: Buffer.from(JSON.stringify({ certificate: leaf + pem('inter') })) } });
    await rejectsWith(s.verifier.verify(hook(s)), 'CERT_CHAIN_INVALID');
  });

  test('CERT_CHAIN_INVALID: an intermediate altered in its signed part', async () => {
    const { pem } = await import('./helpers/pki.js');
    const der = Buffer.from(pem('inter').replace(/-----[A-Z ]+-----|\s/g, ''), 'base64');
    const serial = der.indexOf(Buffer.from([0x02, 0x02, 0x03, 0xe9])); // serialNumber 1001, inside the signed part
    assert.ok(serial > 0 && serial < 20);
    der[serial + 3] ^= 0x01;
    const inter = `-----BEGIN CERTIFICATE-----\n${der.toString('base64')}\n-----END CERTIFICATE-----\n`;
    const s = setup({ served: { [CERT_URL]: Buffer.from(JSON.stringify({ certificate: pem('leaf') + inter })) } });
    await rejectsWith(s.verifier.verify(hook(s)), 'CERT_CHAIN_INVALID');
  });

  test('CERT_KEY_UNSUPPORTED: an EC signing certificate', async () => {
    const s = setup({ served: { [CERT_URL]: certDocument('ec', 'inter') } });
    await rejectsWith(s.verifier.verify(hook(s)), 'CERT_KEY_UNSUPPORTED');
  });

  test('CERT_KEY_UNSUPPORTED: an RSA key of 1024 bits', async () => {
    const s = setup({ served: { [CERT_URL]: certDocument('rsa1024', 'inter') } });
    await rejectsWith(s.verifier.verify(hook(s)), 'CERT_KEY_UNSUPPORTED');
  });

  const badSignatures = {
    missing: undefined,
    empty: '',
    'not Base64': '!!!!',
    'unpadded Base64': 'QUJD',
    'Base64 with white space': ' QUJD',
    'URL-safe Base64': '-_-_',
    'non-zero padding bits': 'QUJE=',
    'too short for the key': Buffer.alloc(255, 1).toString('base64'),
    'too long for the key': Buffer.alloc(257, 1).toString('base64'),
  };
  for (const [name, signature] of Object.entries(badSignatures)) {
    test(`SIGNATURE_MALFORMED: ${name}`, async () => {
      const s = setup();
      const h = hook(s);
      await rejectsWith(s.verifier.verify({ ...h, signature }), 'SIGNATURE_MALFORMED');
    });
  }

  test('SIGNATURE_MALFORMED: a padding character inside', async () => {
    const s = setup();
    const h = hook(s);
    const sig = `${h.signature.slice(0, 8)}=${h.signature.slice(9)}`;
    await rejectsWith(s.verifier.verify({ ...h, signature: sig }), 'SIGNATURE_MALFORMED');
  });

  test('SIGNATURE_MISMATCH: signed with another key', async () => {
    const s = setup();
    await rejectsWith(s.verifier.verify(hook(s, { signer: 'rotated' })), 'SIGNATURE_MISMATCH');
  });

  test('SIGNATURE_MISMATCH: the body re-serialised after signing', async () => {
    const s = setup();
    const h = hook(s);
    const reserialised = Buffer.from(JSON.stringify(JSON.parse(h.body.toString()), null, 2));
    await rejectsWith(s.verifier.verify({ ...h, body: reserialised }), 'SIGNATURE_MISMATCH');
  });

  const timestamps = {
    TIMESTAMP_MALFORMED: ['2026-06-01 12:00:00Z', '2026-06-01T12:00:00.000Z', '2026-06-01T12:00:00+00:00',
      '2026-02-30T12:00:00Z', '2026-06-01T24:00:00Z', '2026-06-01t12:00:00z', 1780000000, null],
  };
  for (const value of timestamps.TIMESTAMP_MALFORMED) {
    test(`TIMESTAMP_MALFORMED: ${JSON.stringify(value)}`, async () => {
      const s = setup();
      const body = hookBody(value);
      await rejectsWith(s.verifier.verify({ signature: signHook('leaf', body), certificateUrl: CERT_URL, body }), 'TIMESTAMP_MALFORMED');
    });
  }

  test('TIMESTAMP_MALFORMED: no signature_timestamp at all', async () => {
    const s = setup();
    const body = Buffer.from('{"message_id": 1}');
    await rejectsWith(s.verifier.verify({ signature: signHook('leaf', body), certificateUrl: CERT_URL, body }), 'TIMESTAMP_MALFORMED');
  });

  test('TIMESTAMP_MALFORMED: a body that is not JSON, signed as it is', async () => {
    const s = setup();
    const body = Buffer.from('signature_timestamp=2026-01-01T00:00:00Z');
    await rejectsWith(s.verifier.verify({ signature: signHook('leaf', body), certificateUrl: CERT_URL, body }), 'TIMESTAMP_MALFORMED');
  });

  test('TIMESTAMP_MALFORMED: signature_timestamp twice', async () => {
    const s = setup();
    const ts = formatTimestamp(s.now);
    const body = Buffer.from(`{"signature_timestamp": "${ts}", "signature_timestamp": "${ts}"}`);
    await rejectsWith(s.verifier.verify({ signature: signHook('leaf', body), certificateUrl: CERT_URL, body }), 'TIMESTAMP_MALFORMED');
  });

  for (const ms of [1, 999]) {
    test(`signature_timestamp 120 s old with the clock ${ms} ms into the second: TIMESTAMP_OUT_OF_WINDOW (exact window)`, async () => {
      const s = setup();
      const whole = Math.floor(s.now / 1000) * 1000;
      s.now = whole + ms;
      await rejectsWith(s.verifier.verify(hook(s, { at: whole - 120_000 })), 'TIMESTAMP_OUT_OF_WINDOW');
    });
  }

  for (const [offset, code] of [[120, null], [-120, null], [121, 'TIMESTAMP_OUT_OF_WINDOW'], [-121, 'TIMESTAMP_OUT_OF_WINDOW'], [3600, 'TIMESTAMP_OUT_OF_WINDOW']]) {
    test(`signature_timestamp ${offset} s from now: ${code ?? 'OK'}`, async () => {
      const s = setup();
      s.now = Math.floor(s.now / 1000) * 1000;
      const h = hook(s, { at: s.now + offset * 1000 });
      if (code) await rejectsWith(s.verifier.verify(h), code);
      else await s.verifier.verify(h);
    });
  }
});

describe('certificate rotation', () => {
  test('a signature by a new key makes one more download, after which the new chain is used', async () => {
    const s = setup({ refetchAfterMs: 0 });
    await s.verifier.verify(hook(s));
    s.served[CERT_URL] = certDocument('rotated', 'inter');
    await s.verifier.verify(hook(s, { signer: 'rotated' }));
    assert.equal(s.fetched.length, 2);
    await s.verifier.verify(hook(s, { signer: 'rotated' }));
    assert.equal(s.fetched.length, 2, 'the new chain is cached');
  });

  test('the URL still serving the old chain: SIGNATURE_MISMATCH after one download', async () => {
    const s = setup({ refetchAfterMs: 0 });
    await s.verifier.verify(hook(s));
    await rejectsWith(s.verifier.verify(hook(s, { signer: 'rotated' })), 'SIGNATURE_MISMATCH');
    assert.equal(s.fetched.length, 2);
  });

  test('within refetchAfterMs of the last download, a mismatch downloads nothing', async () => {
    const s = setup();
    await s.verifier.verify(hook(s));
    s.served[CERT_URL] = certDocument('rotated', 'inter');
    await rejectsWith(s.verifier.verify(hook(s, { signer: 'rotated' })), 'SIGNATURE_MISMATCH');
    assert.equal(s.fetched.length, 1);
    s.now += 31_000;
    await s.verifier.verify(hook(s, { signer: 'rotated' }));
    assert.equal(s.fetched.length, 2);
  });

  test('a failing download on the second try: SIGNATURE_MISMATCH naming why, and the old chain kept', async () => {
    const s = setup({ refetchAfterMs: 0 });
    await s.verifier.verify(hook(s));
    delete s.served[CERT_URL];
    await assert.rejects(s.verifier.verify(hook(s, { signer: 'rotated' })), (e) => e.code === 'SIGNATURE_MISMATCH' && /CERT_FETCH_FAILED/.test(e.message));
    await s.verifier.verify(hook(s));
  });

  test('failed refreshes do not keep a chain taken off its URL past its maximum age', async () => {
    const s = setup();
    await s.verifier.verify(hook(s));
    delete s.served[CERT_URL]; // the platform took the certificate off its URL (its key leaked)
    s.now += 45 * 60_000;
    await rejectsWith(s.verifier.verify(hook(s, { signer: 'rotated' })), 'SIGNATURE_MISMATCH');
    assert.equal(s.fetched.length, 2, 'the refresh was tried, and failed');
    s.now += 30 * 60_000; // over an hour after the only download
    await rejectsWith(s.verifier.verify(hook(s)), 'CERT_FETCH_FAILED');
  });

  test('concurrent hooks for one URL share one download', async () => {
    const s = setup();
    await Promise.all([1, 2, 3, 4].map(() => s.verifier.verify(hook(s))));
    assert.equal(s.fetched.length, 1);
  });

  test('the cache keeps at most cacheSize URLs, least recently used dropped first', async () => {
    const urls = ['a', 'b', 'c'].map((l) => `https://${l}.platform.test/platform/hooks/certificate/`);
    const s = setup({ cacheSize: 2, served: Object.fromEntries(urls.map((u) => [u, certDocument('wildcard', 'inter')])) });
    const v = (u) => {
      const body = hookBody(formatTimestamp(s.now));
      return s.verifier.verify({ signature: signHook('wildcard', body), certificateUrl: u, body });
    };
    await v(urls[0]);
    await v(urls[1]);
    await v(urls[0]);
    await v(urls[2]); // drops b
    await v(urls[0]);
    assert.equal(s.fetched.length, 3);
    await v(urls[1]);
    assert.equal(s.fetched.length, 4);
  });

  test('a cached chain is downloaded again after cacheMaxAgeMs', async () => {
    const s = setup({ cacheMaxAgeMs: 10_000 });
    await s.verifier.verify(hook(s));
    s.now += 11_000;
    await s.verifier.verify(hook(s));
    assert.equal(s.fetched.length, 2);
  });
});

describe('tampering', () => {
  test('flipping any one byte of the body fails verification', async () => {
    const s = setup();
    const h = hook(s);
    for (let i = 0; i < h.body.length; i++) {
      const body = Buffer.from(h.body);
      body[i] ^= 0x01;
      await rejectsWith(s.verifier.verify({ ...h, body }), 'SIGNATURE_MISMATCH');
    }
    await s.verifier.verify(h); // and the untouched hook still verifies
    assert.equal(s.fetched.length, 1, 'bad signatures within refetchAfterMs download nothing more');
  });

  test('flipping any one byte of the signature fails verification', async () => {
    const s = setup();
    const h = hook(s);
    const sig = Buffer.from(h.signature, 'base64');
    for (let i = 0; i < sig.length; i++) {
      for (const mask of [0x01, 0x80]) {
        const bad = Buffer.from(sig);
        bad[i] ^= mask;
        await rejectsWith(s.verifier.verify({ ...h, signature: bad.toString('base64') }), 'SIGNATURE_MISMATCH');
      }
    }
  });

  test('appending or removing a byte of the body fails verification', async () => {
    const s = setup();
    const h = hook(s);
    await rejectsWith(s.verifier.verify({ ...h, body: Buffer.concat([h.body, Buffer.from(' ')]) }), 'SIGNATURE_MISMATCH');
    await rejectsWith(s.verifier.verify({ ...h, body: h.body.subarray(0, -1) }), 'SIGNATURE_MISMATCH');
  });
});

describe('options', () => {
  test('platformDomains is required, and must be domains', async () => {
    const { HookVerifier } = await import('../src/index.js');
    assert.throws(() => new HookVerifier({}), TypeError);
    assert.throws(() => new HookVerifier({ platformDomains: ['com'] }), TypeError);
    assert.throws(() => new HookVerifier({ platformDomains: [] }), TypeError);
  });

  test('the body must be bytes, not a parsed object', async () => {
    const s = setup();
    const h = hook(s);
    await assert.rejects(s.verifier.verify({ ...h, body: JSON.parse(h.body.toString()) }), TypeError);
    await assert.rejects(s.verifier.verify({ ...h, body: h.body.toString() }), /not a string/);
  });

  test('several platform domains: production and staging', async () => {
    const s = setup({ platformDomains: ['platform.example', 'platform.test'] });
    await s.verifier.verify(hook(s));
  });
});

describe('trust anchors', () => {
  const signedBy = (s, name) => {
    const body = hookBody(formatTimestamp(s.now));
    return { signature: signHook(name, body), certificateUrl: CERT_URL, body };
  };

  test('an e-mail constraint does not apply to a certificate without e-mail names', async () => {
    const s = setup({ served: { [CERT_URL]: certDocument('underemailconstrainednomail', 'emailconstrained') } });
    await s.verifier.verify(hook(s));
  });

  for (const [name, chain] of Object.entries({
    'an e-mail address within the permitted subtree': ['underemailconstrainedok', 'emailconstrained'],
    'a subject within the permitted directory name (compared without case and extra spaces)': ['underdirok', 'dirconstrained'],
    'a URI whose host is below the permitted domain': ['underuriok', 'uriconstrained'],
  })) {
    test(`accepted: ${name}`, async () => {
      const s = setup({ served: { [CERT_URL]: certDocument(...chain) } });
      await s.verifier.verify(hook(s));
    });
  }

  test('CERT_CHAIN_INVALID: an anchor that is not a CA', async () => {
    const { pem } = await import('./helpers/pki.js');
    const s = setup({ trustAnchors: pem('badroot'), served: { [CERT_URL]: certDocument('underbadroot') } });
    await rejectsWith(s.verifier.verify(signedBy(s, 'underbadroot')), 'CERT_CHAIN_INVALID');
  });

  test('CERT_EXPIRED: the anchor itself has expired', async () => {
    const { pem } = await import('./helpers/pki.js');
    const s = setup({ trustAnchors: pem('shortroot'), served: { [CERT_URL]: certDocument('undershortroot') }, now: T0 + 2 * DAY });
    await rejectsWith(s.verifier.verify(signedBy(s, 'undershortroot')), 'CERT_EXPIRED');
  });

  test('CERT_EXPIRED: a cached chain, once its anchor has expired', async () => {
    // the root ends a day after T0; the chain is cached (for an hour) before that and used again after it
    const { pem } = await import('./helpers/pki.js');
    const s = setup({ trustAnchors: pem('shortroot'), served: { [CERT_URL]: certDocument('undershortroot') }, now: T0 + DAY - 600_000 });
    await s.verifier.verify(signedBy(s, 'undershortroot'));
    s.now = T0 + DAY + 600_000;
    await rejectsWith(s.verifier.verify(signedBy(s, 'undershortroot')), 'CERT_EXPIRED');
  });

  test('of two anchors with the same name, the one whose key verifies is used', async () => {
    const { pem } = await import('./helpers/pki.js');
    const s = setup({ trustAnchors: [pem('rootclone'), pem('root')] });
    await s.verifier.verify(hook(s));
  });

  test('CERT_CHAIN_INVALID: an anchor with the issuer\'s name but another key', async () => {
    const { pem } = await import('./helpers/pki.js');
    const s = setup({ trustAnchors: pem('rootclone') });
    await rejectsWith(s.verifier.verify(hook(s)), 'CERT_CHAIN_INVALID');
  });
});

describe('system roots', () => {
  test('by default the system roots are the anchors: a chain to the test root is untrusted', async () => {
    const s = setup({ trustAnchors: undefined, useSystemRoots: true });
    await rejectsWith(s.verifier.verify(hook(s)), 'CERT_UNTRUSTED');
  });

  test('extra anchors are added to the system roots', async () => {
    const s = setup({ useSystemRoots: true });
    await s.verifier.verify(hook(s));
  });

  test('no anchors at all is a configuration error', async () => {
    const { HookVerifier } = await import('../src/index.js');
    assert.throws(() => new HookVerifier({ platformDomains: 'platform.test', useSystemRoots: false }), /No trust anchors/);
  });
});
