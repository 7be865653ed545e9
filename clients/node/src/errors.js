/**
 * The one error every check of this kit throws: a stable `code` (the platform's failure code names) and a plain
 * message a person can act on. Never carries key material.
 */

/** Every failure code, by name. The names are the platform's own and never change. */
export const FailureCode = Object.freeze({
  CERT_URL_MALFORMED: 'CERT_URL_MALFORMED',
  CERT_URL_SCHEME: 'CERT_URL_SCHEME',
  CERT_URL_HOST: 'CERT_URL_HOST',
  CERT_URL_PATH: 'CERT_URL_PATH',
  CERT_URL_PORT: 'CERT_URL_PORT',
  CERT_FETCH_FAILED: 'CERT_FETCH_FAILED',
  CERT_MALFORMED: 'CERT_MALFORMED',
  CERT_NOT_YET_VALID: 'CERT_NOT_YET_VALID',
  CERT_EXPIRED: 'CERT_EXPIRED',
  CERT_NAME_MISMATCH: 'CERT_NAME_MISMATCH',
  CERT_UNTRUSTED: 'CERT_UNTRUSTED',
  CERT_CHAIN_INVALID: 'CERT_CHAIN_INVALID',
  CERT_KEY_UNSUPPORTED: 'CERT_KEY_UNSUPPORTED',
  SIGNATURE_MALFORMED: 'SIGNATURE_MALFORMED',
  SIGNATURE_MISMATCH: 'SIGNATURE_MISMATCH',
  TIMESTAMP_MALFORMED: 'TIMESTAMP_MALFORMED',
  TIMESTAMP_OUT_OF_WINDOW: 'TIMESTAMP_OUT_OF_WINDOW',
});

export class VerificationError extends Error {
  /**
   * @param {string} code one of {@link FailureCode}
   * @param {string} message what failed, in plain words
   * @param {{cause?: unknown}} [options]
   */
  constructor(code, message, options) {
    super(message, options);
    if (!Object.hasOwn(FailureCode, code)) {
      throw new TypeError(`Unknown failure code: ${code}`);
    }
    this.name = 'VerificationError';
    /** @readonly */
    this.code = code;
  }

  toString() {
    return `${this.code}: ${this.message}`;
  }
}

/** Shorthand used inside the kit. */
export function fail(code, message, cause) {
  return new VerificationError(code, message, cause === undefined ? undefined : { cause });
}
