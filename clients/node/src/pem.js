/** Strict PEM reading for certificate chains, as the platform reads them. */
import { FailureCode as C, fail } from './errors.js';

/** More certificates than this in one chain is refused. */
export const MAX_CERTIFICATES = 10;
/** Default upper bound for chain data: 64 KiB. */
export const DEFAULT_MAX_BYTES = 64 * 1024;

const BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([A-Za-z0-9+/=\r\n]*?)\r?\n?-----END \1-----/g;
// Java's String.isBlank: only white space (the ASCII kinds a PEM file can hold).
const BLANK = /^[\t\n\u000b\f\r \u001c-\u001f]*$/;

/** Lenient MIME Base64 as PEM bodies use it (line breaks ignored), refusing anything that is not Base64. */
function mimeDecode(body) {
  const compact = body.replace(/[\r\n]/g, '');
  const stripped = compact.replace(/=+$/, '');
  if (stripped.includes('=') || compact.length - stripped.length > 2 || stripped.length % 4 === 1) {
    throw new Error('not Base64');
  }
  return Buffer.from(stripped, 'base64');
}

/**
 * Splits PEM text into DER certificates, in the order given. Nothing but white space may surround the blocks, every
 * block must be a CERTIFICATE, and there are at most {@link MAX_CERTIFICATES}.
 *
 * @param {Uint8Array | string} data
 * @returns {Buffer[]} the DER of each block
 */
export function pemBlocks(data, maxBytes = DEFAULT_MAX_BYTES) {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data);
  if (bytes.length === 0) {
    throw fail(C.CERT_MALFORMED, 'The certificate data is empty');
  }
  if (bytes.length > maxBytes) {
    throw fail(C.CERT_MALFORMED, `The certificate data is ${bytes.length} bytes, more than the limit of ${maxBytes}`);
  }
  // Non-ASCII bytes become U+FFFD, which no block can contain and which is not blank.
  const text = bytes.toString('latin1').replace(/[\u0080-\u00ff]/g, '\ufffd');
  const blocks = [];
  let end = 0;
  for (const m of text.matchAll(BLOCK)) {
    if (!BLANK.test(text.slice(end, m.index))) {
      throw fail(C.CERT_MALFORMED, `Unexpected text before PEM block ${blocks.length + 1}; the document must hold only -----BEGIN CERTIFICATE----- blocks`);
    }
    let der;
    try {
      der = mimeDecode(m[2]);
    } catch {
      throw fail(C.CERT_MALFORMED, `PEM block ${blocks.length + 1} is not valid Base64`);
    }
    if (der.length === 0) {
      throw fail(C.CERT_MALFORMED, `PEM block ${blocks.length + 1} is empty`);
    }
    blocks.push({ type: m[1], der });
    end = m.index + m[0].length;
  }
  if (blocks.length === 0) {
    throw fail(C.CERT_MALFORMED, 'No PEM block found; expected -----BEGIN CERTIFICATE----- ... -----END CERTIFICATE-----');
  }
  if (!BLANK.test(text.slice(end))) {
    throw fail(C.CERT_MALFORMED, 'Unexpected text after the last PEM block');
  }
  if (blocks.length > MAX_CERTIFICATES) {
    throw fail(C.CERT_MALFORMED, `The chain has ${blocks.length} certificates; at most ${MAX_CERTIFICATES} are accepted`);
  }
  return blocks.map((b, i) => {
    if (b.type !== 'CERTIFICATE') {
      throw fail(C.CERT_MALFORMED, `Block ${i + 1} is '${b.type}'; a chain holds only CERTIFICATE blocks (never a private key)`);
    }
    return b.der;
  });
}
