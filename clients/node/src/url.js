/**
 * The certificate-URL rules: the hook rule of spec 5.2 step 1 (`signature-certificate-url`) and the management rule
 * of spec 5.1 step 1 (`SignatureCertChainUrl`). Both share one strict parser that refuses everything two HTTP stacks
 * could read differently, then check scheme, host, path and port in the spec's order, so the failure reported is the
 * first criterion that fails. The result is the normalised URL: the one to download, and the cache key.
 */
import { FailureCode as C, fail } from './errors.js';

/** The only path a hook certificate URL may have after normalisation. */
export const HOOK_CERT_PATH = '/platform/hooks/certificate/';
/** The prefix every management certificate URL's path must have after normalisation (case-sensitive). */
export const MANAGEMENT_CERT_PATH_PREFIX = '/client.api/';
/** Longest URL looked at. */
export const MAX_URL_LENGTH = 2048;

const PATH_CHARS = "-._~!$&'()*+,=:@/%";

/**
 * @typedef {{host: string, path: string, url: string}} CertificateUrl
 */

/** Parses the parts both rules share; see the module comment. */
function parse(raw) {
  if (raw === null || raw === undefined || typeof raw !== 'string' || raw.trim() === '') {
    throw fail(C.CERT_URL_MALFORMED, 'The certificate URL is empty');
  }
  if (raw.length > MAX_URL_LENGTH) {
    throw fail(C.CERT_URL_MALFORMED, `The certificate URL is longer than ${MAX_URL_LENGTH} characters`);
  }
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c <= 0x20 || c >= 0x7f) {
      throw fail(C.CERT_URL_MALFORMED, `The certificate URL contains a space, control or non-ASCII character at index ${i}; send a plain ASCII URL`);
    }
    if (c === 0x5c) {
      throw fail(C.CERT_URL_MALFORMED, "The certificate URL contains a backslash, which HTTP stacks read differently; use '/'");
    }
  }
  const colon = raw.indexOf(':');
  if (colon <= 0) {
    throw fail(C.CERT_URL_MALFORMED, `The certificate URL has no scheme: '${raw}'`);
  }
  const scheme = raw.slice(0, colon);
  if (scheme.toLowerCase() !== 'https') {
    throw fail(C.CERT_URL_SCHEME, `The certificate URL must use https, not '${scheme}'`);
  }
  if (!raw.startsWith('//', colon + 1)) {
    throw fail(C.CERT_URL_MALFORMED, 'The certificate URL must be absolute: https://host/path');
  }
  const rest = raw.slice(colon + 3);
  if (rest.includes('#')) {
    throw fail(C.CERT_URL_MALFORMED, "The certificate URL may not have a fragment ('#')");
  }
  if (rest.includes('?')) {
    throw fail(C.CERT_URL_MALFORMED, "The certificate URL may not have a query ('?')");
  }
  const slash = rest.indexOf('/');
  const authority = slash < 0 ? rest : rest.slice(0, slash);
  const rawPath = slash < 0 ? '' : rest.slice(slash);
  if (authority.includes('@')) {
    throw fail(C.CERT_URL_MALFORMED, "The certificate URL may not carry user information ('user@host')");
  }
  if (authority.startsWith('[')) {
    throw fail(C.CERT_URL_HOST, "The certificate URL's host must be a DNS name, not an IP address");
  }
  let host = authority;
  let port = null;
  const portColon = authority.lastIndexOf(':');
  if (portColon >= 0) {
    host = authority.slice(0, portColon);
    port = authority.slice(portColon + 1);
  }
  if (host === '') {
    throw fail(C.CERT_URL_MALFORMED, 'The certificate URL has no host');
  }
  host = checkHostSyntax(host);
  return { host, path: normalisePath(rawPath), port };
}

function checkPort(port) {
  if (port === null) {
    return;
  }
  if (port === '') {
    throw fail(C.CERT_URL_MALFORMED, "The certificate URL has a ':' but no port number");
  }
  if (port !== '443') {
    throw fail(C.CERT_URL_PORT, `The certificate URL may only name port 443, not '${port}'`);
  }
}

function checkHostSyntax(host) {
  if (host.includes('%')) {
    throw fail(C.CERT_URL_MALFORMED, "The certificate URL's host may not be percent-encoded");
  }
  if (host.endsWith('.')) {
    throw fail(C.CERT_URL_HOST, "The certificate URL's host may not end with a dot; send the name without it");
  }
  const lower = host.toLowerCase();
  if (lower.length > 253) {
    throw fail(C.CERT_URL_MALFORMED, "The certificate URL's host is too long");
  }
  let allNumeric = true;
  for (const label of lower.split('.')) {
    if (label === '' || label.length > 63) {
      throw fail(C.CERT_URL_MALFORMED, `The certificate URL's host has an empty or over-long label: '${host}'`);
    }
    if (label.startsWith('-') || label.endsWith('-')) {
      throw fail(C.CERT_URL_MALFORMED, `A label of the certificate URL's host starts or ends with '-': '${host}'`);
    }
    for (const c of label) {
      const digit = c >= '0' && c <= '9';
      if (!((c >= 'a' && c <= 'z') || digit || c === '-')) {
        throw fail(C.CERT_URL_MALFORMED, `The certificate URL's host has a character that is not allowed in a DNS name: '${c}'`);
      }
      if (!digit) {
        allNumeric = false;
      }
    }
  }
  if (allNumeric || /\.[0-9]+$/.test(lower)) {
    throw fail(C.CERT_URL_HOST, "The certificate URL's host must be a DNS name, not an IP address");
  }
  return lower;
}

function hex(c) {
  if (c >= '0' && c <= '9') return c.charCodeAt(0) - 48;
  if (c >= 'a' && c <= 'f') return c.charCodeAt(0) - 87;
  if (c >= 'A' && c <= 'F') return c.charCodeAt(0) - 55;
  return -1;
}

/**
 * Collapses runs of '/', then removes dot-segments (RFC 3986 5.2.4). Percent-encoded dots, slashes, backslashes,
 * '%', ';' and control or non-ASCII characters are refused: a server could decode them after the check.
 */
function normalisePath(rawPath) {
  for (const c of rawPath) {
    if (c === ';') {
      throw fail(C.CERT_URL_MALFORMED, "The certificate URL's path has a ';'; path parameters are read differently by different servers (for example '..;/')");
    }
    const alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!alnum && !PATH_CHARS.includes(c)) {
      throw fail(C.CERT_URL_MALFORMED, `The certificate URL's path has the character '${c}', which is not allowed in a URL path unless percent-encoded`);
    }
  }
  for (let i = rawPath.indexOf('%'); i >= 0; i = rawPath.indexOf('%', i + 1)) {
    if (i + 2 >= rawPath.length || hex(rawPath[i + 1]) < 0 || hex(rawPath[i + 2]) < 0) {
      throw fail(C.CERT_URL_MALFORMED, "The certificate URL's path has a '%' that is not followed by two hex digits");
    }
    const v = hex(rawPath[i + 1]) * 16 + hex(rawPath[i + 2]);
    if (v === 0x2e || v === 0x2f || v === 0x5c || v === 0x25 || v === 0x3b || v < 0x20 || v >= 0x7f) {
      throw fail(C.CERT_URL_MALFORMED, `The certificate URL's path encodes '${rawPath.slice(i, i + 3)}'; encoded dots, slashes, backslashes, '%', ';', control and non-ASCII characters are not allowed (send the plain character)`);
    }
  }
  if (rawPath === '') {
    return '/';
  }
  return removeDotSegments(rawPath.replace(/\/{2,}/g, '/'));
}

function removeDotSegments(path) {
  const out = [];
  const segments = path.slice(1).split('/');
  segments.forEach((s, i) => {
    const last = i === segments.length - 1;
    if (s === '.') {
      if (last) out.push('');
    } else if (s === '..') {
      out.pop();
      if (last) out.push('');
    } else {
      out.push(s);
    }
  });
  return `/${out.join('/')}`;
}

function result(host, path) {
  return Object.freeze({ host, path, url: `https://${host}${path}` });
}

/** Lower-cases and checks the configured platform domains, as the platform's own rule does. */
export function normalisePlatformDomains(domains) {
  const list = typeof domains === 'string' ? [domains] : domains;
  if (!Array.isArray(list) || list.length === 0) {
    throw new TypeError('At least one platform domain is required');
  }
  return Object.freeze(list.map((d) => {
    let s = String(d).trim().toLowerCase();
    if (s.startsWith('.')) s = s.slice(1);
    if (s === '' || s.endsWith('.') || !s.includes('.')) {
      throw new TypeError(`Not a platform domain: '${d}'`);
    }
    return s;
  }));
}

/**
 * The hook rule of spec 5.2 step 1: https; the host a subdomain (one or more labels) of one of the platform domains,
 * never the bare domain; the path exactly {@link HOOK_CERT_PATH} after normalisation; port 443 if given.
 *
 * @param {string | null | undefined} rawUrl the `signature-certificate-url` header as received
 * @param {string | readonly string[]} platformDomains the production and/or staging platform domains
 * @returns {CertificateUrl} the normalised URL
 * @throws {import('./errors.js').VerificationError} with a CERT_URL_* code
 */
export function checkHookCertUrl(rawUrl, platformDomains) {
  const domains = normalisePlatformDomains(platformDomains);
  const parts = parse(rawUrl);
  const sub = domains.some((d) => parts.host.length > d.length + 1 && parts.host.endsWith(`.${d}`));
  if (!sub) {
    throw fail(C.CERT_URL_HOST, `The certificate URL's host '${parts.host}' is not a subdomain of ${domains.join(' or ')}`);
  }
  if (parts.path !== HOOK_CERT_PATH) {
    throw fail(C.CERT_URL_PATH, `The certificate URL's path '${parts.path}' (after normalisation) must be exactly ${HOOK_CERT_PATH}`);
  }
  checkPort(parts.port);
  return result(parts.host, parts.path);
}

/**
 * The management rule of spec 5.1 step 1: https; host equal to the account's FQDN (any case); path starting with
 * {@link MANAGEMENT_CERT_PATH_PREFIX} after dot-segment removal (case-sensitive); port 443 if given. A client can run
 * it on its own `SignatureCertChainUrl` before sending.
 *
 * @param {string | null | undefined} rawUrl
 * @param {string} fqdn the account's FQDN as registered with the platform
 * @returns {CertificateUrl}
 */
export function checkManagementCertUrl(rawUrl, fqdn) {
  if (typeof fqdn !== 'string' || fqdn === '') {
    throw new TypeError('fqdn is required');
  }
  const want = fqdn.toLowerCase();
  const parts = parse(rawUrl);
  if (parts.host !== want) {
    throw fail(C.CERT_URL_HOST, `The certificate URL's host '${parts.host}' is not the account's FQDN '${want}'`);
  }
  if (!parts.path.startsWith(MANAGEMENT_CERT_PATH_PREFIX)) {
    throw fail(C.CERT_URL_PATH, `The certificate URL's path '${parts.path}' (after normalisation) must start with ${MANAGEMENT_CERT_PATH_PREFIX} (case-sensitive)`);
  }
  checkPort(parts.port);
  return result(parts.host, parts.path);
}
