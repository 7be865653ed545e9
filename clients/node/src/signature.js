/** Strict Base64 and signature checks over exact bytes. */
import crypto from 'node:crypto';
import { FailureCode as C, fail } from './errors.js';

/** Signatures longer than this (decoded) are refused before any work: RSA-8192 makes 1024 bytes. */
export const MAX_SIGNATURE_BYTES = 1024;

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Decodes a signature header strictly: standard alphabet, padding present, unused bits zero, no white space.
 * @returns {Buffer}
 */
export function decodeSignature(header) {
  if (header === null || header === undefined || header === '') {
    throw fail(C.SIGNATURE_MALFORMED, 'The signature header is missing or empty');
  }
  if (typeof header !== 'string') {
    throw fail(C.SIGNATURE_MALFORMED, 'The signature header is not a single string');
  }
  if (header.length > MAX_SIGNATURE_BYTES * 2) {
    throw fail(C.SIGNATURE_MALFORMED, 'The signature header is too long');
  }
  if (header.length % 4 !== 0) {
    throw fail(C.SIGNATURE_MALFORMED, 'The signature is not padded standard Base64 (its length is not a multiple of 4)');
  }
  if (!BASE64.test(header)) {
    throw fail(C.SIGNATURE_MALFORMED, 'The signature is not standard Base64 (A-Z a-z 0-9 + / and = padding)');
  }
  const raw = Buffer.from(header, 'base64');
  if (raw.toString('base64') !== header) {
    throw fail(C.SIGNATURE_MALFORMED, 'The signature is not canonical Base64 (non-zero padding bits)');
  }
  if (raw.length === 0 || raw.length > MAX_SIGNATURE_BYTES) {
    throw fail(C.SIGNATURE_MALFORMED, 'The signature has an impossible length');
  }
  return raw;
}

/**
 * Verifies SHA256withRSA (PKCS#1 v1.5) over `data`. False for a well-formed signature that does not match.
 * @param {crypto.KeyObject} key an RSA public key
 */
export function verifySha256Rsa(key, data, signature) {
  if (key.asymmetricKeyType !== 'rsa') {
    throw fail(C.CERT_KEY_UNSUPPORTED, 'SHA256withRSA needs an RSA key');
  }
  const bits = key.asymmetricKeyDetails.modulusLength;
  const modulusBytes = Math.ceil(bits / 8);
  if (signature.length !== modulusBytes) {
    throw fail(C.SIGNATURE_MALFORMED, `The RSA signature is ${signature.length} bytes; a ${bits}-bit key makes ${modulusBytes}`);
  }
  try {
    return crypto.verify('sha256', data, { key, padding: crypto.constants.RSA_PKCS1_PADDING }, signature);
  } catch {
    return false;
  }
}

const CURVE_ORDERS = {
  prime256v1: BigInt('0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551'),
  secp384r1: BigInt('0xffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973'),
  secp521r1: BigInt('0x01ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffa51868783bf2f966b7fcc0148f709a5d03bb5c9b8899c47aebb6fb71e91386409'),
};

/**
 * Checks that an ECDSA signature is strict DER: SEQUENCE { INTEGER r, INTEGER s }, definite minimal lengths, minimal
 * positive integers, 0 < r, s < n, nothing after the sequence (as the platform checks it).
 */
function checkEcdsaDer(sig, order) {
  const malformed = (why) => fail(C.SIGNATURE_MALFORMED, `The ECDSA signature is not strict DER: ${why}`);
  let pos = 0;
  const length = () => {
    if (pos >= sig.length) throw malformed('it ends inside a length');
    const first = sig[pos++];
    if (first < 0x80) return first;
    if (first === 0x81) {
      if (pos >= sig.length) throw malformed('it ends inside a length');
      const len = sig[pos++];
      if (len < 0x80) throw malformed('a length is not minimally encoded (BER, not DER)');
      return len;
    }
    throw malformed('a length uses an indefinite or over-long form (BER, not DER)');
  };
  const integer = () => {
    if (pos >= sig.length || sig[pos] !== 0x02) throw malformed('an INTEGER was expected');
    pos++;
    const len = length();
    if (len === 0 || pos + len > sig.length) throw malformed('an INTEGER has an impossible length');
    if (sig[pos] & 0x80) throw malformed('an INTEGER is negative');
    if (len > 1 && sig[pos] === 0 && !(sig[pos + 1] & 0x80)) throw malformed('an INTEGER has a superfluous leading zero');
    const v = BigInt(`0x${Buffer.from(sig.subarray(pos, pos + len)).toString('hex')}`);
    pos += len;
    if (v === 0n) throw malformed('r or s is zero');
    return v;
  };
  if (sig.length < 8 || sig[0] !== 0x30) throw malformed('it is not a DER SEQUENCE');
  pos = 1;
  const seqLen = length();
  if (pos + seqLen !== sig.length) throw malformed('the SEQUENCE length does not match the signature length (trailing or missing bytes)');
  const r = integer();
  const s = integer();
  if (pos !== sig.length) throw malformed('there are bytes after the two integers');
  if (order !== undefined && (r >= order || s >= order)) throw malformed('r or s is not smaller than the curve order');
}

const MANAGEMENT_ALGORITHMS = {
  SHA1withRSA: ['sha1', 'rsa'],
  SHA1withECDSA: ['sha1', 'ec'],
  SHA256withRSA: ['sha256', 'rsa'],
  SHA256withECDSA: ['sha256', 'ec'],
};

/**
 * Verifies a management-request signature as the platform does (strict Base64; an RSA signature exactly as long as
 * the modulus; an ECDSA signature strict DER). Useful to test a signer before sending.
 *
 * @param {'SHA1withRSA' | 'SHA1withECDSA' | 'SHA256withRSA' | 'SHA256withECDSA'} algorithm
 * @param {crypto.KeyObject | crypto.X509Certificate | string} publicKey the key, or the certificate (PEM or object)
 * @param {Uint8Array | string} data the exact bytes sent
 * @param {string} signature the Base64 header value
 * @returns {boolean} false for a well-formed signature that does not match
 * @throws {VerificationError} SIGNATURE_MALFORMED, or CERT_KEY_UNSUPPORTED when the key does not fit the algorithm
 */
export function verifyManagementSignature(algorithm, publicKey, data, signature) {
  const spec = MANAGEMENT_ALGORITHMS[algorithm];
  if (!spec) throw new TypeError(`Unknown algorithm ${algorithm}`);
  let key = publicKey;
  if (key instanceof crypto.X509Certificate) key = key.publicKey;
  else if (typeof key === 'string' && key.includes('CERTIFICATE')) key = new crypto.X509Certificate(key).publicKey;
  else if (!(key instanceof crypto.KeyObject)) key = crypto.createPublicKey(key);
  const sig = decodeSignature(signature);
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  if (spec[1] === 'ec') {
    if (key.asymmetricKeyType !== 'ec') throw fail(C.CERT_KEY_UNSUPPORTED, `${algorithm} needs an EC key`);
    checkEcdsaDer(sig, CURVE_ORDERS[key.asymmetricKeyDetails.namedCurve]);
    try {
      return crypto.verify(spec[0], bytes, { key, dsaEncoding: 'der' }, sig);
    } catch {
      return false;
    }
  }
  if (key.asymmetricKeyType !== 'rsa') throw fail(C.CERT_KEY_UNSUPPORTED, `${algorithm} needs an RSA key`);
  const bits = key.asymmetricKeyDetails.modulusLength;
  if (sig.length !== Math.ceil(bits / 8)) {
    throw fail(C.SIGNATURE_MALFORMED, `The RSA signature is ${sig.length} bytes; a ${bits}-bit key makes ${Math.ceil(bits / 8)}`);
  }
  try {
    return crypto.verify(spec[0], bytes, { key, padding: crypto.constants.RSA_PKCS1_PADDING }, sig);
  } catch {
    return false;
  }
}
