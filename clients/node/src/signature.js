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
