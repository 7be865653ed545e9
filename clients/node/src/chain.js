/**
 * Chain validation at an instant, rule for rule as the platform's own validator (crypto-common ChainValidator and
 * PathRules) where node:crypto and the DER reader can see the rule; README.md lists what differs.
 *
 * Signing certificate: within its validity window; the required DNS name among its DNS Subject Alternative Names
 * (RFC 6125, the subject common name never consulted); key usage digitalSignature when it has a key usage, and no
 * keyCertSign unless it is a CA; no name constraints; an extended key usage, when present, that lists TLS server or
 * client authentication or anyExtendedKeyUsage; not a CA; Subject Alternative Names not critical unless the subject
 * is empty. Path: built from the certificates sent (in the order sent, shortest first, at most 8 candidate paths and
 * 100 search steps), each candidate checked in full: every certificate within its validity window; each signature
 * verified with its issuer's key (MD2 and MD5 refused); every issuing certificate a CA whose key usage, when present,
 * allows keyCertSign and whose path length constraint holds; no critical extension that is not understood; CA keys
 * RSA of at least 2048 bits (a multiple of 8) or EC on P-256, P-384 or P-521; the name constraints of every CA and of
 * the root (DNS names with wildcard SANs, IP addresses, directory names, e-mail addresses, URIs); and the root that ends the path valid, a CA, allowed to sign certificates,
 * with a strong key and no critical extension that is not understood.
 */
import { FailureCode as C, fail, VerificationError } from './errors.js';
import { parseCertificate, subjectIssued, dnsNames, KU, OID } from './cert.js';

export const MAX_CHAIN_LENGTH = 10;
const MAX_PATH_ATTEMPTS = 8;
const MAX_SEARCH_STEPS = 100;
const MAX_NAME_COMPARISONS = 250_000;

export const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';
export const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
export const ANY_EXTENDED_KEY_USAGE = '2.5.29.37.0';
const SIGNING_PURPOSES = new Set([SERVER_AUTH, CLIENT_AUTH, ANY_EXTENDED_KEY_USAGE]);
const PURPOSE_NAMES = {
  [SERVER_AUTH]: 'serverAuth',
  [CLIENT_AUTH]: 'clientAuth',
  '1.3.6.1.5.5.7.3.3': 'codeSigning',
  '1.3.6.1.5.5.7.3.4': 'emailProtection',
  '1.3.6.1.5.5.7.3.8': 'timeStamping',
  '1.3.6.1.5.5.7.3.9': 'OCSPSigning',
  [ANY_EXTENDED_KEY_USAGE]: 'anyExtendedKeyUsage',
};

/** Extensions a certificate may mark critical: the ones RFC 5280 defines for certificates. */
const KNOWN_CRITICAL = new Set(['2.5.29.14', '2.5.29.15', '2.5.29.17', '2.5.29.18', '2.5.29.19', '2.5.29.30',
  '2.5.29.32', '2.5.29.33', '2.5.29.35', '2.5.29.36', '2.5.29.37', '2.5.29.54']);
const NIST_CURVES = new Set(['prime256v1', 'secp384r1', 'secp521r1']);

const iso = (ms) => new Date(ms).toISOString().replace('.000Z', 'Z');

// ---------------------------------------------------------------------------------------------------------------
// Host names (RFC 6125), as the platform's HostnameMatcher

function isLdhName(name) {
  return name.split('.').every((l) => l.length >= 1 && l.length <= 63 && !l.startsWith('-') && !l.endsWith('-')
    && /^[a-z0-9-]+$/.test(l));
}

const stripDot = (s) => (s.endsWith('.') ? s.slice(0, -1) : s);

/** RFC 6125 DNS-ID matching of one SAN pattern against one reference name. */
export function dnsMatches(pattern, name) {
  const p = stripDot(pattern.toLowerCase());
  const n = stripDot(name.toLowerCase());
  if (p === '' || n === '' || !/^[\x21-\x7e]+$/.test(p) || !/^[\x21-\x7e]+$/.test(n)) return false;
  if (!isLdhName(p.startsWith('*.') ? p.slice(2) : p)) return false;
  if (!p.includes('*')) return p === n;
  if (!p.startsWith('*.') || p.indexOf('*', 1) >= 0) return false;
  const suffix = p.slice(1);
  if ((suffix.match(/\./g) || []).length < 2) return false;
  if (!n.endsWith(suffix)) return false;
  const first = n.slice(0, n.length - suffix.length);
  return first !== '' && !first.includes('.') && !first.startsWith('xn--');
}

/**
 * True when `name` is among the certificate's DNS SANs: by node:crypto's checkHost (DNS SANs only, whole-label
 * wildcards) and by the platform's stricter rules (no wildcard over an A-label or a public suffix).
 */
export function hostMatches(cert, name) {
  let viaNode;
  try {
    viaNode = cert.x509.checkHost(name, {
      subject: 'never', wildcards: true, partialWildcards: false, multiLabelWildcards: false,
      singleLabelSubdomains: false,
    });
  } catch {
    return false;
  }
  return viaNode !== undefined && dnsNames(cert).some((san) => dnsMatches(san, name));
}

// ---------------------------------------------------------------------------------------------------------------
// Trust anchors

/**
 * Parses trust anchors: PEM text (one or more certificates), DER buffers, X509Certificate objects, or arrays of them.
 * @returns {object[]} parsed certificates
 */
export function parseAnchors(input) {
  const out = [];
  const add = (item) => {
    if (item === null || item === undefined) return;
    if (Array.isArray(item)) {
      item.forEach(add);
    } else if (typeof item === 'string' || (Buffer.isBuffer(item) && item.includes('-----BEGIN'))) {
      const text = String(item);
      const blocks = text.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g);
      if (!blocks) throw new TypeError('No PEM CERTIFICATE block in the trust anchors');
      for (const b of blocks) {
        const der = Buffer.from(b.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, ''), 'base64');
        out.push(parseCertificate(der, 'A trust anchor'));
      }
    } else if (item && typeof item === 'object' && 'raw' in item && 'fingerprint256' in item) {
      out.push(parseCertificate(item.raw, 'A trust anchor'));
    } else if (item instanceof Uint8Array) {
      out.push(parseCertificate(Buffer.from(item), 'A trust anchor'));
    } else {
      throw new TypeError('Trust anchors are PEM text, DER bytes or X509Certificate objects');
    }
  };
  add(input);
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Rules

function checkWindow(cert, at, which) {
  if (at < cert.notBefore) {
    throw fail(C.CERT_NOT_YET_VALID, `${which} is valid only from ${iso(cert.notBefore)} (now ${iso(at)})`);
  }
  if (at > cert.notAfter) {
    throw fail(C.CERT_EXPIRED, `${which} expired at ${iso(cert.notAfter)} (now ${iso(at)})`);
  }
}

function checkLeafUsage(leaf) {
  const ku = leaf.keyUsage;
  if (ku !== null && !ku[KU.DIGITAL_SIGNATURE]) {
    throw fail(C.CERT_CHAIN_INVALID, "The signing certificate's key usage does not include digitalSignature");
  }
  if (ku !== null && ku[KU.KEY_CERT_SIGN] && !leaf.isCa) {
    throw fail(C.CERT_CHAIN_INVALID, 'The signing certificate asserts keyCertSign without being a CA (RFC 5280 4.2.1.3)');
  }
  if (leaf.extensions.has(OID.NAME_CONSTRAINTS)) {
    throw fail(C.CERT_CHAIN_INVALID, 'The signing certificate has a name constraints extension, which only a CA certificate may carry (RFC 5280 4.2.1.10)');
  }
  if (leaf.extKeyUsageUnreadable) {
    throw fail(C.CERT_CHAIN_INVALID, "The signing certificate's extended key usage cannot be read");
  }
  const purposes = leaf.extKeyUsage;
  if (purposes === null) return;
  if (purposes.length === 0) {
    throw fail(C.CERT_CHAIN_INVALID, "The signing certificate's extended key usage extension lists no purpose (RFC 5280 4.2.1.12 requires at least one)");
  }
  if (!purposes.some((p) => SIGNING_PURPOSES.has(p))) {
    const names = (list) => `[${list.map((o) => PURPOSE_NAMES[o] || o).join(', ')}]`;
    throw fail(C.CERT_CHAIN_INVALID, `The signing certificate's extended key usage ${names(purposes)} allows none of ${names([...SIGNING_PURPOSES].sort())}; use a certificate issued for TLS server or client authentication`);
  }
}

/** Null when a CA key is acceptable, else what is wrong with it. */
export function caKeyProblem(key) {
  const allowed = '; CA keys must be RSA of at least 2048 bits (a multiple of 8) or EC on P-256, P-384 or P-521';
  if (key.asymmetricKeyType === 'rsa') {
    const bits = key.asymmetricKeyDetails.modulusLength;
    return bits >= 2048 && bits % 8 === 0 ? null : `RSA of ${bits} bits${allowed}`;
  }
  if (key.asymmetricKeyType === 'ec') {
    const curve = key.asymmetricKeyDetails.namedCurve;
    return NIST_CURVES.has(curve) ? null : `EC on ${curve}, not P-256, P-384 or P-521${allowed}`;
  }
  return `${key.asymmetricKeyType}${allowed}`;
}

function checkAnchor(root, at) {
  const name = `The trusted root ${root.subjectText}`;
  if (at < root.notBefore) {
    throw fail(C.CERT_NOT_YET_VALID, `${name} is valid only from ${iso(root.notBefore)} (now ${iso(at)})`);
  }
  if (at > root.notAfter) {
    throw fail(C.CERT_EXPIRED, `${name} expired at ${iso(root.notAfter)} (now ${iso(at)})`);
  }
  if (!root.isCa) {
    throw fail(C.CERT_CHAIN_INVALID, `${name} is not a CA certificate (no basicConstraints with CA=true)`);
  }
  if (root.keyUsage !== null && !root.keyUsage[KU.KEY_CERT_SIGN]) {
    throw fail(C.CERT_CHAIN_INVALID, `${name} has a key usage that does not allow certificate signing (keyCertSign)`);
  }
  for (const oid of root.critical) {
    if (!KNOWN_CRITICAL.has(oid)) {
      throw fail(C.CERT_CHAIN_INVALID, `${name} has a critical extension that is not understood (${oid})`);
    }
  }
  const problem = caKeyProblem(root.publicKey);
  if (problem !== null) {
    throw fail(C.CERT_CHAIN_INVALID, `${name}'s key is ${problem}`);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Name constraints (RFC 5280 4.2.1.10): DNS names, IP addresses, directory names, e-mail addresses and URIs; other
// name types cannot be evaluated, so a certificate carrying a name of such a constrained type is refused.

const within = (name, c) => name === c || name.endsWith(`.${c}`);
/** `host` is strictly below `domain` (a constraint written with a leading dot). */
const below = (host, domain) => host.length > domain.length && host.endsWith(`.${domain}`);
const TYPE_NAMES = ['otherName', 'rfc822Name', 'dNSName', 'x400Address', 'directoryName', 'ediPartyName',
  'uniformResourceIdentifier', 'iPAddress', 'registeredID'];

/** A distinguished name lies in a subtree when the subtree's RDNs are its first RDNs. */
function dnWithin(name, subtree) {
  return subtree.rdns.length > 0 && subtree.rdns.length <= name.rdns.length
    && subtree.rdns.every((rdn, i) => rdn.length === name.rdns[i].length && rdn.every((a, j) => a === name.rdns[i][j]));
}

/** An e-mail constraint: a mailbox (exact), `.domain` (any host below it), or a host (exact). */
function emailWithin(address, constraint) {
  const at = address.lastIndexOf('@');
  if (at <= 0) return false;
  const host = address.slice(at + 1).toLowerCase();
  const c = constraint.toLowerCase();
  if (c.includes('@')) return address.toLowerCase() === c;
  return c.startsWith('.') ? below(host, c.slice(1)) : host === c;
}

/** A URI constraint: `.domain` (any host below it) or a host (exact), against the URI's host. */
function uriWithin(uri, constraint) {
  const m = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/?#]*@)?(\[[^\]]*\]|[^:/?#]*)/i.exec(uri);
  if (!m || m[1] === '') return false;
  const host = m[1].toLowerCase();
  const c = constraint.toLowerCase();
  return c.startsWith('.') ? below(host, c.slice(1)) : host === c;
}

class NameConstraints {
  constructor() {
    // Per constraining CA, its permitted subtrees of a type; a name must lie in one subtree of each list.
    this.permitted = { 1: [], 2: [], 4: [], 6: [], 7: [] };
    this.excluded = { 1: [], 2: [], 4: [], 6: [], 7: [] };
    this.unsupported = new Set();
    this.count = 0;
    this.comparisons = 0;
  }

  add(ca, which) {
    if (ca.nameConstraintsUnreadable) {
      throw fail(C.CERT_CHAIN_INVALID, `${which}: the name constraints extension is malformed`);
    }
    const nc = ca.nameConstraints;
    if (!nc) return;
    if (!nc.permitted?.length && !nc.excluded?.length) {
      throw fail(C.CERT_CHAIN_INVALID, `${which} has an empty name constraints extension (RFC 5280 4.2.1.10 requires permitted or excluded subtrees)`);
    }
    const take = (subtrees, into, perCa) => {
      const mine = { 1: [], 2: [], 4: [], 6: [], 7: [] };
      for (const st of subtrees || []) {
        if (st.minimumNonZero || st.hasMaximum) {
          throw fail(C.CERT_CHAIN_INVALID, `${which}: a name constraint has a minimum or maximum, which RFC 5280 forbids`);
        }
        if (st.type === 2) {
          const v = st.value.toLowerCase();
          if (!st.ascii || !isLdhName(v)) {
            throw fail(C.CERT_CHAIN_INVALID, `${which}: the DNS name constraint '${st.value}' is not a plain host name`);
          }
          mine[2].push(v);
        } else if (st.type === 7) {
          if (st.bytes.length !== 8 && st.bytes.length !== 32) {
            throw fail(C.CERT_CHAIN_INVALID, `${which}: an IP address name constraint is not an address and mask`);
          }
          mine[7].push(st.bytes);
        } else if (st.type === 1 || st.type === 6) {
          if (!st.ascii) throw fail(C.CERT_CHAIN_INVALID, `${which}: a name constraint is not ASCII`);
          mine[st.type].push(st.value);
        } else if (st.type === 4) {
          mine[4].push(st.name);
        } else {
          this.unsupported.add(st.type);
        }
      }
      for (const t of Object.keys(mine)) {
        if (perCa) {
          if (mine[t].length) into[t].push(mine[t]);
        } else {
          into[t].push(...mine[t]);
        }
      }
    };
    take(nc.permitted, this.permitted, true);
    take(nc.excluded, this.excluded, false);
    this.count += (nc.permitted?.length ?? 0) + (nc.excluded?.length ?? 0);
  }

  /** One name of type `type` against the permitted and excluded subtrees of that type. */
  #check(type, name, shown, withinFn, which) {
    for (const list of this.permitted[type]) {
      if (!list.some((c) => withinFn(name, c))) {
        throw fail(C.CERT_CHAIN_INVALID, `${which}: ${shown} is not within the permitted name constraints`);
      }
    }
    if (this.excluded[type].some((c) => withinFn(name, c))) {
      throw fail(C.CERT_CHAIN_INVALID, `${which}: ${shown} falls within an excluded name constraint`);
    }
  }

  check(cert, which) {
    if (this.count === 0) return;
    const sans = cert.subjectAltNames || [];
    // As the platform (and Go's crypto/x509): a bound on name-versus-constraint comparisons against quadratic work.
    this.comparisons += (sans.length + 1) * this.count;
    if (this.comparisons > MAX_NAME_COMPARISONS) {
      throw fail(C.CERT_CHAIN_INVALID, `${which}: too many names and name constraints to check (over ${MAX_NAME_COMPARISONS} comparisons)`);
    }
    if (!cert.subjectEmpty) {
      this.#check(4, cert.subjectName, 'the subject name', dnWithin, which);
      for (const email of cert.subjectName.emails) {
        this.#check(1, email, `the subject e-mail address '${email}'`, emailWithin, which);
      }
    }
    for (const n of sans) {
      if (n.type === 2) this.checkDns(n, which);
      else if (n.type === 7) this.checkIp(n.bytes, which);
      else if (n.type === 4) this.#check(4, n.name, 'a directory name', dnWithin, which);
      else if (n.type === 1) this.#check(1, n.value, `the e-mail address '${n.value}'`, emailWithin, which);
      else if (n.type === 6) this.#check(6, n.value, `the URI '${n.value}'`, uriWithin, which);
      else if (this.unsupported.has(n.type)) {
        throw fail(C.CERT_CHAIN_INVALID, `${which}: a Subject Alternative Name of type ${TYPE_NAMES[n.type]} is under a name constraint that cannot be evaluated`);
      }
    }
  }

  checkDns(n, which) {
    if (this.permitted[2].length === 0 && this.excluded[2].length === 0) return;
    const raw = n.value;
    const name = stripDot(raw.toLowerCase());
    const wildcard = name.startsWith('*.');
    const base = wildcard ? name.slice(2) : name;
    if (!n.ascii || !isLdhName(base)) {
      throw fail(C.CERT_CHAIN_INVALID, `${which}: the DNS name '${raw}' is not a valid host name, so the name constraints cannot be applied`);
    }
    for (const permitted of this.permitted[2]) {
      if (!permitted.some((c) => within(base, c))) {
        throw fail(C.CERT_CHAIN_INVALID, `${which}: the DNS name '${raw}' is not within the permitted name constraints`);
      }
    }
    for (const c of this.excluded[2]) {
      const hit = within(base, c)
        || (wildcard && c.endsWith(`.${base}`) && !c.slice(0, c.length - base.length - 1).includes('.'));
      if (hit) {
        throw fail(C.CERT_CHAIN_INVALID, `${which}: the DNS name '${raw}' falls within the excluded name constraint '${c}'`);
      }
    }
  }

  checkIp(address, which) {
    if (this.permitted[7].length === 0 && this.excluded[7].length === 0) return;
    if (address.length !== 4 && address.length !== 16) {
      throw fail(C.CERT_CHAIN_INVALID, `${which}: an IP address Subject Alternative Name has ${address.length} bytes`);
    }
    const ipWithin = (subtree) => subtree.length === address.length * 2
      && address.every((b, i) => (b & subtree[address.length + i]) === (subtree[i] & subtree[address.length + i]));
    for (const permitted of this.permitted[7]) {
      if (!permitted.some(ipWithin)) {
        throw fail(C.CERT_CHAIN_INVALID, `${which}: an IP address is not within the permitted name constraints`);
      }
    }
    if (this.excluded[7].some(ipWithin)) {
      throw fail(C.CERT_CHAIN_INVALID, `${which}: an IP address falls within an excluded name constraint`);
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The path

/** One full check of a candidate path (signing certificate first) ending at `anchor`. */
function checkPath(path, anchor, at) {
  checkAnchor(anchor, at);
  const names = new NameConstraints();
  names.add(anchor, `The trusted root ${anchor.subjectText}`);
  let maxPathLength = path.length;
  let issuer = anchor;
  for (let i = path.length - 1; i >= 0; i--) {
    const cert = path[i];
    const which = `In certificate ${i + 1} of the chain (${cert.subjectText})`;
    const signing = i === 0;
    if (cert.weakSignature) {
      throw fail(C.CERT_CHAIN_INVALID, `${which}: the certificate is signed with a disallowed weak algorithm`);
    }
    if (!cert.x509.verify(issuer.publicKey)) {
      throw fail(C.CERT_CHAIN_INVALID, `${which}: the certificate's signature does not verify with its issuer's key`);
    }
    for (const oid of cert.critical) {
      if (!KNOWN_CRITICAL.has(oid)) {
        throw fail(C.CERT_CHAIN_INVALID, `${which}: the certificate has a critical extension that is not understood (${oid})`);
      }
    }
    if (!signing) {
      if (!cert.isCa) {
        throw fail(C.CERT_CHAIN_INVALID, `${which}: an issuing certificate is not a CA (basicConstraints CA flag missing)`);
      }
      if (!cert.selfIssued) {
        if (maxPathLength <= 0) {
          throw fail(C.CERT_CHAIN_INVALID, `${which}: the path is longer than a CA's pathLenConstraint allows`);
        }
        maxPathLength--;
      }
      const pl = cert.basicConstraints.pathLen;
      if (pl !== null && pl < maxPathLength) maxPathLength = pl;
      if (cert.keyUsage !== null && !cert.keyUsage[KU.KEY_CERT_SIGN]) {
        throw fail(C.CERT_CHAIN_INVALID, `${which}: a CA certificate's key usage does not allow certificate signing`);
      }
      const problem = caKeyProblem(cert.publicKey);
      if (problem !== null) {
        throw fail(C.CERT_CHAIN_INVALID, `${which}: the CA key is ${problem}`);
      }
    }
    if (signing || !cert.selfIssued) {
      names.check(cert, which);
    }
    if (!signing) {
      names.add(cert, which);
    }
    issuer = cert;
  }
}

/**
 * Validates a chain (signing certificate first; the root may be included or left out) against `anchors` at `at`.
 *
 * @param {object[]} chain parsed certificates, as sent
 * @param {string | null} requiredName the DNS name that must be among the signing certificate's SANs
 * @param {number} atMillis the moment of use
 * @param {object[]} anchors parsed trust anchors
 * @returns {{path: object[], anchor: object, notBefore: number, notAfter: number}}
 */
export function validateChain(chain, requiredName, atMillis, anchors) {
  if (!chain || chain.length === 0) throw fail(C.CERT_CHAIN_INVALID, 'The certificate chain is empty');
  if (chain.length > MAX_CHAIN_LENGTH) {
    throw fail(C.CERT_CHAIN_INVALID, `The chain has ${chain.length} certificates; at most ${MAX_CHAIN_LENGTH} are accepted`);
  }
  const at = Math.floor(atMillis / 1000) * 1000; // X.509 times have whole seconds; Not After is inclusive
  const leaf = chain[0];
  checkWindow(leaf, at, 'The signing certificate');
  if (requiredName !== null && !hostMatches(leaf, requiredName)) {
    throw fail(C.CERT_NAME_MISMATCH, `The signing certificate's Subject Alternative Names [${dnsNames(leaf).join(', ')}] do not include '${requiredName}'`);
  }
  checkLeafUsage(leaf);
  if (leaf.isCa) {
    throw fail(C.CERT_CHAIN_INVALID, 'The signing certificate is a CA certificate (basicConstraints CA=true); sign with an end-entity certificate issued by the CA');
  }
  if (leaf.critical.has(OID.SUBJECT_ALT_NAME) && !leaf.subjectEmpty) {
    throw fail(C.CERT_CHAIN_INVALID, 'The signing certificate marks its Subject Alternative Names critical although its subject is not empty (CA/B Forum Baseline Requirements 7.1.2.7.12)');
  }
  const anchorPrints = new Set(anchors.map((a) => a.fingerprint));
  const pool = chain.slice(1).filter((c) => !anchorPrints.has(c.fingerprint) && c.fingerprint !== leaf.fingerprint);
  const path = [leaf];
  let attempts = 0;
  let steps = 0;
  let firstFailure = null;

  const issuingAnchors = (cert) => anchors.filter((a) => subjectIssued(a, cert));
  const keyIdsAgree = (issuer, cert) => !cert.authorityKeyId || !issuer.subjectKeyId
    || cert.authorityKeyId.equals(issuer.subjectKeyId);

  const tryPath = () => {
    const candidates = issuingAnchors(path[path.length - 1]);
    for (let i = 1; i < path.length; i++) checkWindow(path[i], at, `Certificate ${i + 1} of the chain`);
    // Of several roots with the issuer's name, the one whose key verifies decides; else the last one's refusal.
    let last = null;
    for (const anchor of candidates) {
      try {
        checkPath(path, anchor, at);
        return { path: [...path], anchor };
      } catch (e) {
        if (!(e instanceof VerificationError)) throw e;
        last = e;
      }
    }
    throw last;
  };

  const extend = () => {
    const current = path[path.length - 1];
    if (attempts < MAX_PATH_ATTEMPTS && issuingAnchors(current).length > 0) {
      attempts++;
      try {
        return tryPath();
      } catch (e) {
        if (!(e instanceof VerificationError)) throw e;
        if (firstFailure === null) firstFailure = e;
      }
    }
    if (path.length >= MAX_CHAIN_LENGTH) return null;
    for (const agreeing of [true, false]) {
      for (const next of pool) {
        if (attempts >= MAX_PATH_ATTEMPTS || steps > MAX_SEARCH_STEPS) return null;
        if (!subjectIssued(next, current) || keyIdsAgree(next, current) !== agreeing || path.includes(next)) continue;
        steps++;
        path.push(next);
        const found = extend();
        path.pop();
        if (found) return found;
      }
    }
    return null;
  };

  const found = extend();
  if (found) {
    // the window a cached chain is used in: every certificate its trust rests on, the anchor's dates included
    const trusted = found.anchor ? [...found.path, found.anchor] : found.path;
    return {
      path: found.path,
      anchor: found.anchor,
      notBefore: Math.max(...trusted.map((c) => c.notBefore)),
      notAfter: Math.min(...trusted.map((c) => c.notAfter)),
    };
  }
  if (firstFailure) throw firstFailure;
  if (attempts === 0 && steps > MAX_SEARCH_STEPS) {
    throw fail(C.CERT_UNTRUSTED, `No path to a trusted root was found within ${MAX_SEARCH_STEPS} steps through the certificates sent`);
  }
  throw fail(C.CERT_UNTRUSTED, "The chain does not end at a trusted root: the last certificate's issuer is not trusted (send the intermediates, signing certificate first)");
}
