/**
 * A parsed X.509 certificate: node:crypto's X509Certificate (signatures, keys, host names) plus the fields read with
 * the DER reader that it does not expose.
 */
import crypto from 'node:crypto';
import {
  DerError, readTlv, children, expectTag, bytesOf, wholeOf, oidOf, booleanOf, smallIntOf, timeOf,
} from './der.js';
import { FailureCode as C, fail } from './errors.js';

export const OID = Object.freeze({
  SUBJECT_KEY_ID: '2.5.29.14',
  KEY_USAGE: '2.5.29.15',
  SUBJECT_ALT_NAME: '2.5.29.17',
  BASIC_CONSTRAINTS: '2.5.29.19',
  NAME_CONSTRAINTS: '2.5.29.30',
  AUTHORITY_KEY_ID: '2.5.29.35',
  EXT_KEY_USAGE: '2.5.29.37',
});

/** Signature algorithms no certificate of a path may use (as the JDK's disabled algorithms: MD2, MD5). */
const WEAK_SIGNATURE_ALGORITHMS = new Set(['1.2.840.113549.1.1.2', '1.2.840.113549.1.1.4']);

/** Key usage bit numbers (RFC 5280 4.2.1.3). */
export const KU = Object.freeze({ DIGITAL_SIGNATURE: 0, KEY_CERT_SIGN: 5 });

/**
 * GeneralName [tag] -> type number (RFC 5280): 0 otherName, 1 rfc822Name, 2 dNSName, 3 x400Address, 4 directoryName,
 * 5 ediPartyName, 6 uniformResourceIdentifier, 7 iPAddress, 8 registeredID.
 */
function generalName(buf, tlv) {
  const type = tlv.tag & 0x1f;
  if ((tlv.tag & 0xc0) !== 0x80 || type > 8) throw new DerError('not a GeneralName');
  if (type === 2 || type === 1 || type === 6) {
    if (tlv.tag & 0x20) throw new DerError('a string name must be primitive');
    return { type, value: bytesOf(buf, tlv).toString('latin1'), ascii: isIa5(bytesOf(buf, tlv)) };
  }
  if (type === 4) {
    const inner = Buffer.from(bytesOf(buf, tlv));
    return { type, bytes: inner, name: parseName(inner) };
  }
  return { type, bytes: Buffer.from(bytesOf(buf, tlv)) };
}

const EMAIL_ADDRESS = '1.2.840.113549.1.9.1';

function decodeString(buf, tlv) {
  const b = bytesOf(buf, tlv);
  switch (tlv.tag) {
    case 0x0c: return b.toString('utf8');
    case 0x12: case 0x13: case 0x14: case 0x16: case 0x1a: return b.toString('latin1');
    case 0x1e: return Buffer.from(b).swap16().toString('utf16le');
    case 0x1c: return String.fromCodePoint(...Array.from({ length: b.length / 4 }, (_, i) => b.readUInt32BE(i * 4)));
    default: return `#${wholeOf(buf, tlv).toString('hex')}`;
  }
}

/**
 * A distinguished name as relative distinguished names, each a sorted list of `type=value` strings with the value
 * compared as RFC 5280 7.1 asks in practice: case-folded, trimmed, inner white space collapsed.
 * @returns {{rdns: string[][], emails: string[]}}
 */
export function parseName(buf, tlv = readTlv(buf, 0)) {
  const rdns = [];
  const emails = [];
  for (const rdn of children(buf, expectTag(tlv, 0x30, 'Name'))) {
    const atvs = children(buf, expectTag(rdn, 0x31, 'RelativeDistinguishedName')).map((atv) => {
      const [type, value, ...rest] = children(buf, expectTag(atv, 0x30, 'AttributeTypeAndValue'));
      if (!value || rest.length) throw new DerError('AttributeTypeAndValue');
      const oid = oidOf(buf, type);
      const text = decodeString(buf, value);
      if (oid === EMAIL_ADDRESS) emails.push(text);
      return `${oid}=${text.trim().replace(/\s+/g, ' ').toLowerCase()}`;
    });
    rdns.push(atvs.sort());
  }
  return { rdns, emails };
}

function isIa5(b) {
  for (const x of b) if (x > 0x7f) return false;
  return true;
}

function parseExtensionValue(oid, buf, tlv, cert) {
  switch (oid) {
    case OID.BASIC_CONSTRAINTS: {
      const seq = children(buf, expectTag(tlv, 0x30, 'basicConstraints'));
      let i = 0;
      let ca = false;
      let pathLen = null;
      if (seq[i] && seq[i].tag === 0x01) ca = booleanOf(buf, seq[i++]);
      if (seq[i] && seq[i].tag === 0x02) pathLen = smallIntOf(buf, seq[i++]);
      if (i !== seq.length) throw new DerError('basicConstraints has extra fields');
      cert.basicConstraints = { ca, pathLen };
      break;
    }
    case OID.KEY_USAGE: {
      const b = bytesOf(buf, expectTag(tlv, 0x03, 'keyUsage'));
      if (b.length < 1 || b[0] > 7 || (b.length === 1 && b[0] !== 0)) throw new DerError('keyUsage is not a BIT STRING');
      const bits = [];
      for (let i = 0; i < (b.length - 1) * 8 - b[0]; i++) bits.push(Boolean(b[1 + (i >> 3)] & (0x80 >> (i & 7))));
      cert.keyUsage = bits;
      break;
    }
    case OID.SUBJECT_ALT_NAME: {
      const names = children(buf, expectTag(tlv, 0x30, 'subjectAltName')).map((n) => generalName(buf, n));
      cert.subjectAltNames = names;
      break;
    }
    case OID.SUBJECT_KEY_ID:
      cert.subjectKeyId = Buffer.from(bytesOf(buf, expectTag(tlv, 0x04, 'subjectKeyIdentifier')));
      break;
    case OID.AUTHORITY_KEY_ID: {
      const kid = children(buf, expectTag(tlv, 0x30, 'authorityKeyIdentifier')).find((c) => c.tag === 0x80);
      cert.authorityKeyId = kid ? Buffer.from(bytesOf(buf, kid)) : null;
      break;
    }
    case OID.EXT_KEY_USAGE:
      try {
        cert.extKeyUsage = children(buf, expectTag(tlv, 0x30, 'extKeyUsage')).map((o) => oidOf(buf, o));
      } catch {
        cert.extKeyUsageUnreadable = true;
      }
      break;
    case OID.NAME_CONSTRAINTS:
      try {
        const nc = { permitted: null, excluded: null };
        for (const part of children(buf, expectTag(tlv, 0x30, 'nameConstraints'))) {
          if (part.tag !== 0xa0 && part.tag !== 0xa1) throw new DerError('nameConstraints: unexpected field');
          const subtrees = children(buf, part).map((st) => {
            const fields = children(buf, expectTag(st, 0x30, 'GeneralSubtree'));
            if (fields.length === 0) throw new DerError('empty GeneralSubtree');
            const base = generalName(buf, fields[0]);
            base.minimumNonZero = fields.slice(1).some((f) => f.tag === 0x80 && bytesOf(buf, f).some((x) => x !== 0));
            base.hasMaximum = fields.slice(1).some((f) => f.tag === 0x81);
            return base;
          });
          if (part.tag === 0xa0) nc.permitted = subtrees;
          else nc.excluded = subtrees;
        }
        cert.nameConstraints = nc;
      } catch {
        cert.nameConstraintsUnreadable = true;
      }
      break;
    default:
  }
}

/**
 * Parses one DER certificate.
 * @param {Buffer} der
 * @param {string} which how messages name this certificate ("Block 2")
 */
export function parseCertificate(der, which = 'The certificate') {
  let x509;
  try {
    x509 = new crypto.X509Certificate(der);
  } catch (e) {
    throw fail(C.CERT_MALFORMED, `${which} is not a valid X.509 certificate`, e);
  }
  const cert = {
    x509,
    der: Buffer.from(der),
    fingerprint: x509.fingerprint256,
    basicConstraints: null,
    keyUsage: null,
    subjectAltNames: null,
    subjectKeyId: null,
    authorityKeyId: null,
    extKeyUsage: null,
    extKeyUsageUnreadable: false,
    nameConstraints: null,
    nameConstraintsUnreadable: false,
    critical: new Set(),
    extensions: new Set(),
  };
  try {
    const outer = readTlv(der, 0);
    expectTag(outer, 0x30, 'Certificate');
    if (outer.end !== der.length) throw new DerError('bytes after the certificate');
    const [tbs, sigAlg, sigValue, ...extra] = children(der, outer);
    if (extra.length || !sigValue || sigValue.tag !== 0x03) throw new DerError('Certificate structure');
    const f = children(der, expectTag(tbs, 0x30, 'TBSCertificate'));
    let i = 0;
    if (f[i] && f[i].tag === 0xa0) i++;
    expectTag(f[i++], 0x02, 'serialNumber');
    const innerAlg = expectTag(f[i++], 0x30, 'signature');
    if (!wholeOf(der, innerAlg).equals(wholeOf(der, expectTag(sigAlg, 0x30, 'signatureAlgorithm')))) {
      throw new DerError('the two signature algorithm fields differ');
    }
    cert.signatureAlgorithm = oidOf(der, children(der, sigAlg)[0]);
    cert.issuerDer = Buffer.from(wholeOf(der, expectTag(f[i++], 0x30, 'issuer')));
    const validity = children(der, expectTag(f[i++], 0x30, 'validity'));
    if (validity.length !== 2) throw new DerError('validity');
    cert.notBefore = timeOf(der, validity[0]);
    cert.notAfter = timeOf(der, validity[1]);
    const subject = expectTag(f[i++], 0x30, 'subject');
    cert.subjectDer = Buffer.from(wholeOf(der, subject));
    cert.subjectEmpty = subject.end === subject.start;
    cert.subjectName = parseName(der, subject);
    expectTag(f[i++], 0x30, 'subjectPublicKeyInfo');
    while (f[i] && (f[i].tag === 0x81 || f[i].tag === 0xa1 || f[i].tag === 0x82 || f[i].tag === 0xa2)) i++;
    if (f[i]) {
      const exts = children(der, expectTag(f[i++], 0xa3, 'extensions'));
      if (exts.length !== 1) throw new DerError('extensions');
      for (const ext of children(der, expectTag(exts[0], 0x30, 'Extensions'))) {
        const parts = children(der, expectTag(ext, 0x30, 'Extension'));
        const oid = oidOf(der, parts[0]);
        let j = 1;
        let critical = false;
        if (parts[j] && parts[j].tag === 0x01) critical = booleanOf(der, parts[j++]);
        const value = expectTag(parts[j++], 0x04, 'extnValue');
        if (j !== parts.length) throw new DerError('Extension has extra fields');
        if (cert.extensions.has(oid)) throw new DerError(`duplicate extension ${oid}`);
        cert.extensions.add(oid);
        if (critical) cert.critical.add(oid);
        const inner = readTlv(der, value.start, value.end);
        if (inner.end !== value.end) throw new DerError(`extension ${oid} has bytes after its value`);
        parseExtensionValue(oid, der, inner, cert);
      }
    }
    if (i !== f.length) throw new DerError('TBSCertificate has extra fields');
  } catch (e) {
    if (e instanceof DerError) {
      throw fail(C.CERT_MALFORMED, `${which} is not a valid X.509 certificate (${e.message})`, e);
    }
    throw e;
  }
  cert.publicKey = x509.publicKey;
  cert.weakSignature = WEAK_SIGNATURE_ALGORITHMS.has(cert.signatureAlgorithm);
  cert.isCa = cert.basicConstraints !== null && cert.basicConstraints.ca;
  cert.subjectText = shortName(x509.subject);
  cert.selfIssued = namesEqual(cert.subjectDer, cert.issuerDer, x509.subject, x509.issuer);
  return Object.freeze(cert);
}

/** Two distinguished names are the same: identical DER, or the same text when compared without case. */
export function namesEqual(derA, derB, textA, textB) {
  return derA.equals(derB) || (textA !== undefined && textA.toLowerCase() === textB.toLowerCase());
}

export function subjectIssued(issuer, cert) {
  return namesEqual(issuer.subjectDer, cert.issuerDer, issuer.x509.subject, cert.x509.issuer);
}

function shortName(subject) {
  const s = subject.replace(/\n/g, ', ');
  return s.length <= 200 ? s : `${s.slice(0, 200)}...`;
}

/** The DNS names among the SANs (as sent), or [] without the extension. */
export function dnsNames(cert) {
  return (cert.subjectAltNames || []).filter((n) => n.type === 2).map((n) => n.value);
}
