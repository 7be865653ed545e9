/**
 * What an external client runs for every hook it receives (spec 5.2), on the raw body before decoding the JSON, in
 * the platform's order: (1) the certificate-URL rule, (2) the certificate downloaded (cached by normalised URL),
 * (3) its validity, its chain to a trusted root and the URL's host in its SANs, RSA of 2048 bits or more, (4) the
 * SHA256withRSA signature over the exact bytes, (5) the body's `signature_timestamp` within 120 s. When the signature
 * does not verify with a cached certificate, the certificate is downloaded once more, so the platform can rotate its
 * key. Build one verifier and keep it: the cache lives in it.
 */
import tls from 'node:tls';
import { FailureCode as C, fail, VerificationError } from './errors.js';
import { checkHookCertUrl, normalisePlatformDomains } from './url.js';
import { decodeSignature, verifySha256Rsa } from './signature.js';
import { topLevelString } from './json.js';
import { checkTimestamp, nowMillis, HOOK_TOLERANCE_SECONDS } from './timestamp.js';
import { pemBlocks } from './pem.js';
import { parseCertificate } from './cert.js';
import { validateChain, parseAnchors } from './chain.js';
import { ChainCache, checkValidAt } from './cache.js';
import { httpsFetcher, DEFAULT_MAX_BYTES } from './fetcher.js';

/** Smallest RSA modulus accepted for the platform's signing key. */
export const MIN_RSA_BITS = 2048;

let systemAnchors;
function systemRootAnchors() {
  if (systemAnchors === undefined) {
    systemAnchors = [];
    for (const pem of tls.rootCertificates) {
      try {
        systemAnchors.push(...parseAnchors(pem));
      } catch {
        // a root this kit cannot read is simply not an anchor
      }
    }
  }
  return systemAnchors;
}

function asBytes(body) {
  if (typeof body === 'string') {
    throw new TypeError('The body must be the raw bytes as received, not a string: decoding and encoding again can change them');
  }
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  throw new TypeError('The body must be the raw bytes as received (Buffer, Uint8Array or ArrayBuffer)');
}

function header(headers, name) {
  if (!headers) return undefined;
  if (typeof headers.get === 'function') return headers.get(name) ?? undefined;
  for (const [k, v] of Object.entries(headers)) {
    if (k.toLowerCase() === name) return Array.isArray(v) ? v.join(', ') : v;
  }
  return undefined;
}

export class HookVerifier {
  #domains;
  #anchors;
  #fetcher;
  #maxBytes;
  #clock;
  #tolerance;
  #refetchAfterMs;
  #cache;

  /**
   * @param {import('./index.js').HookVerifierOptions} options
   */
  constructor(options) {
    if (!options || options.platformDomains === undefined) {
      throw new TypeError('platformDomains is required');
    }
    this.#domains = normalisePlatformDomains(options.platformDomains);
    const extra = options.trustAnchors ? parseAnchors(options.trustAnchors) : [];
    const useSystem = options.useSystemRoots !== false;
    this.#anchors = [...(useSystem ? systemRootAnchors() : []), ...extra];
    if (this.#anchors.length === 0) {
      throw new TypeError('No trust anchors: give trustAnchors, or leave useSystemRoots on');
    }
    this.#clock = options.clock ?? (() => Date.now());
    this.#maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
    this.#fetcher = options.fetcher ?? httpsFetcher({
      maxBytes: this.#maxBytes,
      extraAnchors: options.trustAnchors ? pemOf(extra) : undefined,
      systemRoots: useSystem,
      resolve: options.resolve,
      connectTimeoutMs: options.connectTimeoutMs,
      readTimeoutMs: options.readTimeoutMs,
      totalTimeoutMs: options.totalTimeoutMs,
    });
    if (options.fetcher && options.resolve) {
      throw new TypeError('resolve applies to the built-in fetcher only; give it to httpsFetcher() instead');
    }
    this.#tolerance = options.toleranceSeconds ?? HOOK_TOLERANCE_SECONDS;
    this.#refetchAfterMs = options.refetchAfterMs ?? 30_000;
    this.#cache = new ChainCache({
      maxEntries: options.cacheSize ?? 16,
      maxAgeMs: options.cacheMaxAgeMs ?? 3_600_000,
      clock: this.#clock,
    });
  }

  /** The platform domains, lower case. */
  get platformDomains() {
    return this.#domains;
  }

  /**
   * Verifies one hook.
   * @param {{signature: string | null | undefined, certificateUrl: string | null | undefined, body: Uint8Array}} hook
   * @returns {Promise<import('./index.js').VerifiedHook>}
   * @throws {VerificationError} naming the first check that failed; answer HTTP 400
   */
  async verify({ signature, certificateUrl, body }) {
    const raw = asBytes(body);
    const url = checkHookCertUrl(certificateUrl, this.#domains);
    const key = url.url;
    const loader = () => this.#load(url);
    let entry = await this.#cache.getValid(key, loader);
    const sig = decodeSignature(signature);
    if (!this.#verifies(entry, raw, sig)) {
      let refreshed;
      try {
        refreshed = await this.#cache.refresh(key, entry, this.#refetchAfterMs, loader);
        checkValidAt(refreshed.chain, nowMillis(this.#clock));
      } catch (e) {
        if (!(e instanceof VerificationError)) throw e;
        throw fail(C.SIGNATURE_MISMATCH, `The signature does not verify with the platform certificate from ${key}, and downloading it again to look for a new key failed (${e.code}: ${e.message})`, e);
      }
      if (refreshed === entry || !this.#verifies(refreshed, raw, sig)) {
        throw fail(C.SIGNATURE_MISMATCH, `The signature does not verify over the ${raw.length} raw body bytes with the platform certificate from ${key}; verify the bytes exactly as received, before decoding JSON`);
      }
      entry = refreshed;
    }
    let ts;
    try {
      ts = topLevelString(raw, 'signature_timestamp');
    } catch (e) {
      throw fail(C.TIMESTAMP_MALFORMED, `The signature_timestamp cannot be read: ${e.message}`, e);
    }
    const at = checkTimestamp(ts, this.#clock, this.#tolerance);
    return Object.freeze({
      certificateUrl: key,
      signatureTimestamp: new Date(at),
      certificates: Object.freeze(entry.chain.path.map((c) => c.x509)),
      body: raw,
    });
  }

  /**
   * Verifies a hook from request headers (any case; a Headers object or Node's IncomingHttpHeaders) and the raw body.
   */
  verifyRequest(headers, body) {
    return this.verify({
      signature: header(headers, 'signature'),
      certificateUrl: header(headers, 'signature-certificate-url'),
      body,
    });
  }

  #verifies(entry, body, sig) {
    return verifySha256Rsa(entry.chain.path[0].publicKey, body, sig);
  }

  async #load(url) {
    let bytes;
    try {
      bytes = await this.#fetcher(url.url);
    } catch (e) {
      if (e instanceof VerificationError) throw e;
      throw fail(C.CERT_FETCH_FAILED, `Downloading ${url.url} failed`, e);
    }
    let doc;
    try {
      doc = typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : asBytes(bytes);
    } catch (e) {
      throw fail(C.CERT_FETCH_FAILED, `Downloading ${url.url} gave no bytes`, e);
    }
    if (doc.length > this.#maxBytes) {
      throw fail(C.CERT_FETCH_FAILED, `Downloading ${url.url}: the response is larger than ${this.#maxBytes} bytes`);
    }
    let pem;
    try {
      pem = topLevelString(doc, 'certificate');
      if (pem === undefined) throw new TypeError("it has no 'certificate' field");
    } catch (e) {
      throw fail(C.CERT_MALFORMED, `The document at ${url.url} is not a JSON object with a 'certificate' string: ${e.message}`, e);
    }
    const ders = pemBlocks(Buffer.from(pem.replace(/[^\x00-\x7f]/g, '?'), 'latin1'), this.#maxBytes);
    const certs = ders.map((der, i) => parseCertificate(der, `Block ${i + 1}`));
    const validated = validateChain(certs, url.host, nowMillis(this.#clock), this.#anchors);
    const key = validated.path[0].publicKey;
    if (key.asymmetricKeyType !== 'rsa') {
      throw fail(C.CERT_KEY_UNSUPPORTED, "The platform certificate's key is not RSA; hooks are signed with SHA256withRSA");
    }
    const bits = key.asymmetricKeyDetails.modulusLength;
    if (bits < MIN_RSA_BITS) {
      throw fail(C.CERT_KEY_UNSUPPORTED, `The RSA key has ${bits} bits; at least ${MIN_RSA_BITS} are required`);
    }
    return validated;
  }
}

function pemOf(parsed) {
  return parsed.map((c) => c.x509.toString());
}
