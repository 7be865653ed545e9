/**
 * The external client's side of spec 5.1: signs the exact body bytes of a management request with SHA1withRSA
 * (PKCS#1 v1.5) or SHA1withECDSA (DER-encoded, as Java's) in `Signature` and, by default, with SHA256withRSA or
 * SHA256withECDSA in `Signature-256` (the platform's extension), and names the certificate with
 * SignatureCertChainUrl (CA-signed) or SignatureCertUUID (registered self-signed). Send exactly the bytes that were
 * signed.
 */
import crypto from 'node:crypto';
import { formatTimestamp } from './timestamp.js';

function toPrivateKey(key) {
  if (key instanceof crypto.KeyObject) {
    if (key.type !== 'private') throw new TypeError('A private key is required');
    return key;
  }
  return crypto.createPrivateKey(key);
}

/**
 * Signs `data` for a management request with the key's algorithm: SHA1withRSA or SHA1withECDSA.
 * @param {crypto.KeyObject | string | Buffer} privateKey
 * @param {Uint8Array | string} data the exact bytes sent (a string is encoded as UTF-8)
 * @param {'sha1' | 'sha256'} [digest]
 * @returns {string} the Base64 signature
 */
export function signManagementBody(privateKey, data, digest = 'sha1') {
  const key = toPrivateKey(privateKey);
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  if (key.asymmetricKeyType === 'rsa') {
    return crypto.sign(digest, bytes, { key, padding: crypto.constants.RSA_PKCS1_PADDING }).toString('base64');
  }
  if (key.asymmetricKeyType === 'ec') {
    return crypto.sign(digest, bytes, { key, dsaEncoding: 'der' }).toString('base64');
  }
  throw new TypeError(`Management requests are signed with RSA or EC keys, not ${key.asymmetricKeyType}`);
}

export class RequestSigner {
  #key;
  #chainUrl;
  #uuid;
  #clock;
  #sha256;

  /**
   * @param {import('./index.js').RequestSignerOptions} options
   */
  constructor(options) {
    if (!options || options.privateKey === undefined) throw new TypeError('privateKey is required');
    const { certChainUrl, certUuid } = options;
    if ((certChainUrl === undefined) === (certUuid === undefined)) {
      throw new TypeError('Give exactly one of certChainUrl (CA-signed) or certUuid (registered self-signed)');
    }
    this.#key = toPrivateKey(options.privateKey);
    if (this.#key.asymmetricKeyType !== 'rsa' && this.#key.asymmetricKeyType !== 'ec') {
      throw new TypeError(`Management requests are signed with RSA or EC keys, not ${this.#key.asymmetricKeyType}`);
    }
    this.#chainUrl = certChainUrl;
    this.#uuid = certUuid;
    this.#clock = options.clock ?? (() => Date.now());
    if (options.signature256 !== undefined && typeof options.signature256 !== 'boolean') {
      throw new TypeError('signature256 must be true or false');
    }
    this.#sha256 = options.signature256 !== false;
  }

  /** `SHA1withRSA` or `SHA1withECDSA`: the `Signature` header's algorithm. */
  get algorithm() {
    return this.#key.asymmetricKeyType === 'rsa' ? 'SHA1withRSA' : 'SHA1withECDSA';
  }

  /** `SHA256withRSA` or `SHA256withECDSA`: the `Signature-256` header's algorithm. */
  get algorithm256() {
    return this.#key.asymmetricKeyType === 'rsa' ? 'SHA256withRSA' : 'SHA256withECDSA';
  }

  /** The `Signature` header value (SHA-1) for these exact bytes. */
  sign(body) {
    return signManagementBody(this.#key, body);
  }

  /** The `Signature-256` header value (SHA-256) for these exact bytes. */
  sign256(body) {
    return signManagementBody(this.#key, body, 'sha256');
  }

  /** The headers for these exact body bytes: Signature-256 too unless `signature256: false`. */
  headers(body) {
    const headers = { 'Content-Type': 'application/json', Signature: this.sign(body) };
    if (this.#sha256) headers['Signature-256'] = this.sign256(body);
    if (this.#chainUrl !== undefined) headers.SignatureCertChainUrl = this.#chainUrl;
    else headers.SignatureCertUUID = this.#uuid;
    return headers;
  }

  /**
   * Builds a signed request: `fields` plus `timestamp` (now, `YYYY-MM-DDThh:mm:ssZ`) as minified JSON, and its headers.
   * @param {Record<string, unknown>} fields for a token request: `{client_id, fqdn}`; for the client list: `{fqdn}`
   * @returns {{body: Buffer, headers: Record<string, string>}}
   */
  signJson(fields) {
    const body = Buffer.from(JSON.stringify({ ...fields, timestamp: formatTimestamp(this.#clock()) }), 'utf8');
    return { body, headers: this.headers(body) };
  }
}
