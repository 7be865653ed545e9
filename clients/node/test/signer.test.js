import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RequestSigner, signManagementBody, verifyManagementSignature } from '../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'kit-signer-'));
const rsa = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
const file = (name, text) => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};
const rsaKeyFile = file('rsa.key', rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }));
const ecPubFile = file('ec.pub', ec.publicKey.export({ type: 'spki', format: 'pem' }));
const body = Buffer.from('{"client_id":"c-1","fqdn":"client.example.com","timestamp":"2026-06-01T12:00:00Z"}');

describe('signManagementBody', () => {
  test('SHA1withRSA is byte for byte what openssl makes', () => {
    const bodyFile = file('body.json', body);
    const expected = execFileSync('openssl', ['dgst', '-sha1', '-sign', rsaKeyFile, bodyFile]).toString('base64');
    assert.equal(signManagementBody(rsa.privateKey, body), expected);
    assert.equal(signManagementBody(rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }), body), expected);
  });

  test('SHA1withECDSA is DER that openssl verifies', () => {
    const sig = signManagementBody(ec.privateKey, body);
    const der = Buffer.from(sig, 'base64');
    assert.equal(der[0], 0x30, 'a DER SEQUENCE, not raw r||s');
    const sigFile = file('ec.sig', der);
    const out = execFileSync('openssl', ['dgst', '-sha1', '-verify', ecPubFile, '-signature', sigFile, file('b2.json', body)]).toString();
    assert.match(out, /Verified OK/);
  });

  test('a string is signed as its UTF-8 bytes', () => {
    const text = '{"client_id":"ünïcødé"}';
    assert.equal(signManagementBody(rsa.privateKey, text), signManagementBody(rsa.privateKey, Buffer.from(text, 'utf8')));
  });

  test('other key types are refused', () => {
    const ed = crypto.generateKeyPairSync('ed25519');
    assert.throws(() => signManagementBody(ed.privateKey, body), /RSA or EC/);
  });
});

describe('RequestSigner', () => {
  const clock = () => new Date('2026-06-01T12:00:00.750Z');

  test('builds the body with the timestamp and signs the exact bytes', () => {
    const signer = new RequestSigner({ privateKey: rsa.privateKey, certUuid: 'uuid-1', clock });
    const { body: sent, headers } = signer.signJson({ client_id: 'c-1', fqdn: 'client.example.com' });
    assert.deepEqual(JSON.parse(sent.toString()), { client_id: 'c-1', fqdn: 'client.example.com', timestamp: '2026-06-01T12:00:00Z' });
    assert.equal(headers['Content-Type'], 'application/json');
    assert.equal(headers.SignatureCertUUID, 'uuid-1');
    assert.equal(headers.SignatureCertChainUrl, undefined);
    assert.ok(crypto.verify('sha1', sent, rsa.publicKey, Buffer.from(headers.Signature, 'base64')));
    assert.equal(signer.algorithm, 'SHA1withRSA');
  });

  test('names a CA-signed chain by URL', () => {
    const signer = new RequestSigner({ privateKey: ec.privateKey, certChainUrl: 'https://client.example.com/client.api/chain.pem', clock });
    const { body: sent, headers } = signer.signJson({ fqdn: 'client.example.com' });
    assert.equal(headers.SignatureCertChainUrl, 'https://client.example.com/client.api/chain.pem');
    assert.equal(headers.SignatureCertUUID, undefined);
    assert.equal(signer.algorithm, 'SHA1withECDSA');
    assert.equal(verifyManagementSignature('SHA1withECDSA', ec.publicKey, sent, headers.Signature), true);
  });

  test('sends Signature-256 beside Signature by default, and leaves it out when told', () => {
    for (const [pair, sha1, sha256] of [[rsa, 'SHA1withRSA', 'SHA256withRSA'], [ec, 'SHA1withECDSA', 'SHA256withECDSA']]) {
      const signer = new RequestSigner({ privateKey: pair.privateKey, certUuid: 'u', clock });
      assert.equal(signer.algorithm256, sha256);
      const { body: sent, headers } = signer.signJson({ fqdn: 'client.example.com' });
      assert.deepEqual(Object.keys(headers), ['Content-Type', 'Signature', 'Signature-256', 'SignatureCertUUID']);
      assert.equal(verifyManagementSignature(sha1, pair.publicKey, sent, headers.Signature), true);
      assert.equal(verifyManagementSignature(sha256, pair.publicKey, sent, headers['Signature-256']), true);
      assert.equal(verifyManagementSignature(sha1, pair.publicKey, sent, headers['Signature-256']), false, 'SHA-256 is not SHA-1');
      const only = new RequestSigner({ privateKey: pair.privateKey, certUuid: 'u', signature256: false }).headers(sent);
      assert.equal(only['Signature-256'], undefined);
      assert.equal(verifyManagementSignature(sha1, pair.publicKey, sent, only.Signature), true);
    }
    assert.equal(new RequestSigner({ privateKey: rsa.privateKey, certUuid: 'u' }).sign256('{"a":1}'),
      crypto.sign('sha256', Buffer.from('{"a":1}'), rsa.privateKey).toString('base64'), 'SHA256withRSA is deterministic');
    assert.throws(() => new RequestSigner({ privateKey: rsa.privateKey, certUuid: 'u', signature256: 'no' }), /true or false/);
  });

  test('needs exactly one of certUuid and certChainUrl, and a private key', () => {
    assert.throws(() => new RequestSigner({ privateKey: rsa.privateKey }), /exactly one/);
    assert.throws(() => new RequestSigner({ privateKey: rsa.privateKey, certUuid: 'u', certChainUrl: 'https://x' }), /exactly one/);
    assert.throws(() => new RequestSigner({ certUuid: 'u' }), /privateKey/);
    assert.throws(() => new RequestSigner({ privateKey: rsa.publicKey, certUuid: 'u' }), /private key/);
  });
});

describe('verifyManagementSignature', () => {
  test('mismatch, malformed and the wrong key type', () => {
    const sig = signManagementBody(rsa.privateKey, body);
    assert.equal(verifyManagementSignature('SHA1withRSA', rsa.publicKey, body, sig), true);
    assert.equal(verifyManagementSignature('SHA1withRSA', rsa.publicKey, Buffer.concat([body, Buffer.from(' ')]), sig), false);
    assert.throws(() => verifyManagementSignature('SHA1withRSA', rsa.publicKey, body, sig.replace(/=+$/, '')), { code: 'SIGNATURE_MALFORMED' });
    assert.throws(() => verifyManagementSignature('SHA1withECDSA', rsa.publicKey, body, sig), { code: 'CERT_KEY_UNSUPPORTED' });
    const ecSig = Buffer.from(signManagementBody(ec.privateKey, body), 'base64');
    const trailing = Buffer.concat([ecSig, Buffer.from([0])]).toString('base64');
    assert.throws(() => verifyManagementSignature('SHA1withECDSA', ec.publicKey, body, trailing), { code: 'SIGNATURE_MALFORMED' });
  });
});
