// Test PKI made with the openssl command line: a root, an intermediate, signing certificates for the hook host and
// the faulty variants every chain rule needs. Made once per test process in a temporary directory.
import { execFileSync } from 'node:child_process';
import {
  mkdtempSync, writeFileSync, readFileSync, rmSync, existsSync, renameSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import crypto from 'node:crypto';

export const HOOK_HOST = 'hooks.platform.test';
export const PLATFORM_DOMAIN = 'platform.test';
export const CERT_URL = `https://${HOOK_HOST}/platform/hooks/certificate/`;

// Made once and shared by the test processes (node --test runs files in parallel): the directory's name is the hash of
// this file, so a change here makes a new one. Tests take times from T0, the moment the certificates were made.
const self = readFileSync(fileURLToPath(import.meta.url));
// A new set each week keeps the 30-day certificates valid for the tests that run on the real clock.
const week = Math.floor(Date.now() / (7 * 86_400_000));
const finalDir = join(tmpdir(), `convplatform-kit-pki-${crypto.createHash('sha256').update(self).digest('hex').slice(0, 16)}-${week}`);
const ready = existsSync(join(finalDir, 'done'));
let dir = ready ? finalDir : mkdtempSync(join(tmpdir(), 'kit-pki-tmp-'));

const f = (name) => join(dir, name);
const openssl = (...args) => execFileSync('openssl', args, { stdio: ['ignore', 'pipe', 'pipe'] });

const keys = new Set();

function key(name, spec = 'rsa:2048') {
  if (keys.has(name)) return f(`${name}.key`);
  keys.add(name);
  if (spec.startsWith('ec:')) {
    openssl('genpkey', '-algorithm', 'EC', '-pkeyopt', `ec_paramgen_curve:${spec.slice(3)}`, '-out', f(`${name}.key`));
  } else {
    openssl('genpkey', '-algorithm', 'RSA', '-pkeyopt', `rsa_keygen_bits:${spec.slice(4)}`, '-out', f(`${name}.key`));
  }
  return f(`${name}.key`);
}

let serial = 1000;

const keyOf = new Map();

/**
 * Makes a certificate. `issuer` is a name made before (or null for self-signed); `ext` is the extension lines;
 * `keyName` names the key pair, shared between certificates where the tests need no distinct key (key generation is
 * the slow part).
 */
function cert(name, { subject, issuer = null, ext, days = 30, keySpec = 'rsa:2048', keyName = name }) {
  const k = f(`${keyName}.key`);
  keyOf.set(name, keyName);
  if (ready) return name;
  key(keyName, keySpec);
  writeFileSync(f(`${name}.ext`), `${ext.join('\n')}\n`);
  openssl('req', '-new', '-key', k, '-subj', subject, '-out', f(`${name}.csr`));
  openssl('x509', '-req', '-in', f(`${name}.csr`), '-days', String(days), '-set_serial', String(serial++),
    '-sha256', ...(issuer ? ['-CA', f(`${issuer}.pem`), '-CAkey', f(`${keyOf.get(issuer)}.key`)] : ['-signkey', k]),
    '-extfile', f(`${name}.ext`), '-out', f(`${name}.pem`));
  return name;
}

const CA = ['basicConstraints=critical,CA:true', 'keyUsage=critical,keyCertSign,cRLSign', 'subjectKeyIdentifier=hash'];
const LEAF = (san = `DNS:${HOOK_HOST}`) => ['basicConstraints=CA:false', 'keyUsage=critical,digitalSignature',
  'extendedKeyUsage=serverAuth', `subjectAltName=${san}`, 'subjectKeyIdentifier=hash', 'authorityKeyIdentifier=keyid'];

cert('root', { subject: '/CN=Kit Test Root', ext: CA, days: 3650 });
cert('inter', { subject: '/CN=Kit Test Intermediate', issuer: 'root', days: 3650,
  ext: ['basicConstraints=critical,CA:true,pathlen:0', 'keyUsage=critical,keyCertSign,cRLSign', 'subjectKeyIdentifier=hash', 'authorityKeyIdentifier=keyid'] });
cert('leaf', { subject: `/CN=${HOOK_HOST}`, issuer: 'inter', ext: LEAF() });
cert('rotated', { subject: `/CN=${HOOK_HOST}`, issuer: 'inter', ext: LEAF() });
cert('wildcard', { keyName: 'leaf', subject: '/CN=wildcard', issuer: 'inter', ext: LEAF(`DNS:*.${PLATFORM_DOMAIN}`) });
cert('wrongname', { keyName: 'leaf', subject: `/CN=${HOOK_HOST}`, issuer: 'inter', ext: LEAF('DNS:other.platform.test') });
cert('short', { keyName: 'leaf', subject: `/CN=${HOOK_HOST}`, issuer: 'inter', ext: LEAF(), days: 1 });
cert('ec', { subject: `/CN=${HOOK_HOST}`, issuer: 'inter', ext: LEAF(), keySpec: 'ec:P-256' });
cert('rsa1024', { subject: `/CN=${HOOK_HOST}`, issuer: 'inter', ext: LEAF(), keySpec: 'rsa:1024' });
cert('leafca', { keyName: 'leaf', subject: `/CN=${HOOK_HOST}`, issuer: 'inter',
  ext: ['basicConstraints=critical,CA:true', 'keyUsage=critical,digitalSignature,keyCertSign', `subjectAltName=DNS:${HOOK_HOST}`] });
cert('nodigsig', { keyName: 'leaf', subject: `/CN=${HOOK_HOST}`, issuer: 'inter',
  ext: ['basicConstraints=CA:false', 'keyUsage=critical,keyEncipherment', `subjectAltName=DNS:${HOOK_HOST}`] });
cert('codesign', { keyName: 'leaf', subject: `/CN=${HOOK_HOST}`, issuer: 'inter',
  ext: ['basicConstraints=CA:false', 'keyUsage=critical,digitalSignature', 'extendedKeyUsage=codeSigning', `subjectAltName=DNS:${HOOK_HOST}`] });
cert('critunknown', { keyName: 'leaf', subject: `/CN=${HOOK_HOST}`, issuer: 'inter',
  ext: [...LEAF(), '1.2.3.4.5.6.7=critical,DER:05:00'] });
cert('selfsigned', { keyName: 'leaf', subject: `/CN=${HOOK_HOST}`, ext: LEAF().filter((l) => !l.startsWith('authorityKeyIdentifier')) });
cert('otherroot', { subject: '/CN=Kit Other Root', ext: CA, days: 3650 });
cert('foreign', { keyName: 'leaf', subject: `/CN=${HOOK_HOST}`, issuer: 'otherroot', ext: LEAF() });
// An intermediate that is not a CA, signing a leaf.
cert('notca', { keyName: 'ca2', subject: '/CN=Kit Not A CA', issuer: 'root', days: 3650,
  ext: ['basicConstraints=critical,CA:false', 'keyUsage=critical,digitalSignature,keyCertSign'] });
cert('undernotca', { keyName: 'leaf', subject: `/CN=${HOOK_HOST}`, issuer: 'notca', ext: LEAF() });
// pathlen:0 intermediate over another intermediate: one CA too many.
cert('inter2', { keyName: 'ca2', subject: '/CN=Kit Second Intermediate', issuer: 'inter', days: 3650, ext: CA });
cert('deep', { keyName: 'leaf', subject: `/CN=${HOOK_HOST}`, issuer: 'inter2', ext: LEAF() });
// An intermediate whose key usage does not allow certificate signing.
cert('nocertsign', { keyName: 'ca2', subject: '/CN=Kit No CertSign', issuer: 'root', days: 3650,
  ext: ['basicConstraints=critical,CA:true', 'keyUsage=critical,digitalSignature'] });
cert('undernocertsign', { keyName: 'leaf', subject: `/CN=${HOOK_HOST}`, issuer: 'nocertsign', ext: LEAF() });
// A name-constrained intermediate that does not permit the hook host, and one that does.
cert('constrained', { keyName: 'ca2', subject: '/CN=Kit Constrained', issuer: 'root', days: 3650,
  ext: [...CA, 'nameConstraints=critical,permitted;DNS:example.org'] });
cert('underconstrained', { keyName: 'leaf', subject: `/CN=${HOOK_HOST}`, issuer: 'constrained', ext: LEAF() });
cert('allowing', { keyName: 'ca2', subject: '/CN=Kit Allowing', issuer: 'root', days: 3650,
  ext: [...CA, `nameConstraints=critical,permitted;DNS:${PLATFORM_DOMAIN}`] });
cert('underallowing', { keyName: 'leaf', subject: `/CN=${HOOK_HOST}`, issuer: 'allowing', ext: LEAF() });
// An intermediate that expires a day from now, over a leaf that lives longer.
cert('shortinter', { keyName: 'ca2', subject: '/CN=Kit Short Intermediate', issuer: 'root', days: 1, ext: CA });
cert('undershortinter', { keyName: 'leaf', subject: `/CN=${HOOK_HOST}`, issuer: 'shortinter', ext: LEAF() });
// A CA with an RSA key of 1024 bits.
cert('weakca', { keyName: 'rsa1024', keySpec: 'rsa:1024', subject: '/CN=Kit Weak CA', issuer: 'root', days: 3650, ext: CA });
cert('underweakca', { keyName: 'leaf', subject: `/CN=${HOOK_HOST}`, issuer: 'weakca', ext: LEAF() });
// Excluded DNS subtrees, an IP subtree and an e-mail subtree.
cert('excluding', { keyName: 'ca2', subject: '/CN=Kit Excluding', issuer: 'root', days: 3650,
  ext: [...CA, `nameConstraints=critical,excluded;DNS:${HOOK_HOST}`] });
cert('underexcluding', { keyName: 'leaf', subject: `/CN=${HOOK_HOST}`, issuer: 'excluding', ext: LEAF() });
cert('wildunderexcluding', { keyName: 'leaf', subject: '/CN=wildcard', issuer: 'excluding', ext: LEAF(`DNS:*.${PLATFORM_DOMAIN}`) });
cert('ipconstrained', { keyName: 'ca2', subject: '/CN=Kit IP Constrained', issuer: 'root', days: 3650,
  ext: [...CA, 'nameConstraints=critical,permitted;IP:10.0.0.0/255.0.0.0'] });
cert('underipconstrained', { keyName: 'leaf', subject: `/CN=${HOOK_HOST}`, issuer: 'ipconstrained', ext: LEAF(`DNS:${HOOK_HOST},IP:192.168.1.1`) });
cert('ipexcluding', { keyName: 'ca2', subject: '/CN=Kit IP Excluding', issuer: 'root', days: 3650,
  ext: [...CA, 'nameConstraints=critical,excluded;IP:192.168.0.0/255.255.0.0'] });
cert('underipexcluding', { keyName: 'leaf', subject: `/CN=${HOOK_HOST}`, issuer: 'ipexcluding', ext: LEAF(`DNS:${HOOK_HOST},IP:192.168.1.1`) });
cert('emailconstrained', { keyName: 'ca2', subject: '/CN=Kit Mail Constrained', issuer: 'root', days: 3650,
  ext: [...CA, 'nameConstraints=critical,permitted;email:example.org'] });
cert('underemailconstrained', { keyName: 'leaf', subject: `/CN=${HOOK_HOST}`, issuer: 'emailconstrained', ext: LEAF(`DNS:${HOOK_HOST},email:hooks@platform.test`) });
cert('underemailconstrainednomail', { keyName: 'leaf', subject: `/CN=${HOOK_HOST}`, issuer: 'emailconstrained', ext: LEAF() });
cert('underemailconstrainedok', { keyName: 'leaf', subject: `/CN=${HOOK_HOST}`, issuer: 'emailconstrained', ext: LEAF(`DNS:${HOOK_HOST},email:hooks@example.org`) });
// A directory-name constraint (O=Kit Org), URI constraints, and an empty name constraints extension.
cert('dirconstrained', { keyName: 'ca2', subject: '/CN=Kit Dir Constrained', issuer: 'root', days: 3650,
  ext: [...CA, 'nameConstraints=critical,permitted;dirName:dir_sect', '[dir_sect]', 'O=Kit Org'] });
cert('underdirok', { keyName: 'leaf', subject: `/O=kit  ORG/CN=${HOOK_HOST}`, issuer: 'dirconstrained', ext: LEAF() });
cert('underdirbad', { keyName: 'leaf', subject: `/O=Other Org/CN=${HOOK_HOST}`, issuer: 'dirconstrained', ext: LEAF() });
cert('uriconstrained', { keyName: 'ca2', subject: '/CN=Kit URI Constrained', issuer: 'root', days: 3650,
  ext: [...CA, `nameConstraints=critical,permitted;URI:.${PLATFORM_DOMAIN}`] });
cert('underuriok', { keyName: 'leaf', subject: `/CN=${HOOK_HOST}`, issuer: 'uriconstrained', ext: LEAF(`DNS:${HOOK_HOST},URI:https://${HOOK_HOST}/about`) });
cert('underuribad', { keyName: 'leaf', subject: `/CN=${HOOK_HOST}`, issuer: 'uriconstrained', ext: LEAF(`DNS:${HOOK_HOST},URI:https://evil.example/`) });
cert('emptyconstraints', { keyName: 'ca2', subject: '/CN=Kit Empty Constraints', issuer: 'root', days: 3650,
  ext: [...CA, '2.5.29.30=critical,DER:30:00'] });
cert('underemptyconstraints', { keyName: 'leaf', subject: `/CN=${HOOK_HOST}`, issuer: 'emptyconstraints', ext: LEAF() });
// 600 name constraints over 500 names: more comparisons than a path may cost.
cert('manyconstraints', { keyName: 'ca2', subject: '/CN=Kit Many Constraints', issuer: 'root', days: 3650,
  ext: [...CA, `nameConstraints=critical,permitted;DNS:${PLATFORM_DOMAIN},${Array.from({ length: 599 }, (_, i) => `permitted;DNS:n${i}.example`).join(',')}`] });
cert('undermanyconstraints', { keyName: 'leaf', subject: `/CN=${HOOK_HOST}`, issuer: 'manyconstraints',
  ext: LEAF([`DNS:${HOOK_HOST}`, ...Array.from({ length: 499 }, (_, i) => `DNS:h${i}.${PLATFORM_DOMAIN}`)].join(',')) });
// Roots with faults, used as the only anchor: not a CA; expiring in a day; a second root of the same name.
cert('badroot', { keyName: 'ca2', subject: '/CN=Kit Bad Root', days: 3650, ext: ['basicConstraints=critical,CA:false', 'subjectKeyIdentifier=hash'] });
cert('underbadroot', { keyName: 'leaf', subject: `/CN=${HOOK_HOST}`, issuer: 'badroot', ext: LEAF() });
cert('shortroot', { keyName: 'ca2', subject: '/CN=Kit Short Root', days: 1, ext: CA });
cert('undershortroot', { keyName: 'leaf', subject: `/CN=${HOOK_HOST}`, issuer: 'shortroot', ext: LEAF() });
cert('rootclone', { keyName: 'ca2', subject: '/CN=Kit Test Root', days: 3650, ext: CA });
// A TLS server certificate for the download tests.
cert('server', { keyName: 'leaf', subject: `/CN=${HOOK_HOST}`, issuer: 'root', ext: LEAF() });

if (!ready) {
  writeFileSync(f('t0'), String(Date.now()));
  writeFileSync(f('done'), '');
  try {
    renameSync(dir, finalDir);
  } catch {
    rmSync(dir, { recursive: true, force: true }); // another process made it first
  }
  dir = finalDir;
}

/** When the certificates were made: every one is valid from (about) then. */
export const T0 = Number(readFileSync(f('t0'), 'utf8'));
export const DAY = 86_400_000;

export const pem = (name) => readFileSync(f(`${name}.pem`), 'utf8');
export const keyPem = (name) => readFileSync(f(`${keyOf.get(name) ?? name}.key`), 'utf8');
export const privateKey = (name) => crypto.createPrivateKey(keyPem(name));
export const path = f;

/** The chain a URL would serve: the named certificates' PEM, in order. */
export const chainPem = (...names) => names.map(pem).join('');
/** The JSON document the certificate URL answers with. */
export const certDocument = (...names) => Buffer.from(JSON.stringify({ certificate: chainPem(...names) }));

/** The hook body of spec 2.2 with the given signature_timestamp. */
export function hookBody(signatureTimestamp, extra = {}) {
  return Buffer.from(JSON.stringify({
    user_id: 'u42',
    conversation_number: 1,
    message_body: JSON.stringify({ text: 'hi', type: 'TEXT', data: { quick_replies: [] } }),
    message_id: 123,
    sender: 'user',
    timestamp: '2026-11-22T10:00:00.000Z',
    metadata: {},
    signature_timestamp: signatureTimestamp,
    ...extra,
  }));
}

/** SHA256withRSA over the exact bytes, Base64: what the platform sends in `signature`. */
export function signHook(name, body) {
  return crypto.sign('sha256', body, privateKey(name)).toString('base64');
}
