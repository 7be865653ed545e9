/**
 * Just enough DER to read what node:crypto's X509Certificate does not expose: the validity dates to the second, the
 * basic constraints (CA flag and path length), the key usage bits, the extended key usage, name constraints, the
 * Subject Alternative Names by type, key identifiers and which extensions are critical. Strict DER (definite, minimal
 * lengths); anything else is a parse error.
 */

export class DerError extends Error {}

/** One TLV: tag byte, value bounds within the buffer, and where the next TLV starts. */
export function readTlv(buf, pos, limit = buf.length) {
  if (pos + 2 > limit) throw new DerError('truncated');
  const tag = buf[pos];
  if ((tag & 0x1f) === 0x1f) throw new DerError('high tag numbers are not used here');
  let len = buf[pos + 1];
  let start = pos + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4) throw new DerError('indefinite or oversized length');
    if (start + n > limit) throw new DerError('truncated length');
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + buf[start + i];
    if (buf[start] === 0 || len < 0x80) throw new DerError('length not minimal');
    start += n;
  }
  const end = start + len;
  if (end > limit) throw new DerError('value runs past its container');
  return { tag, start, end, next: end, headerStart: pos };
}

/** The TLVs directly inside a constructed value. */
export function children(buf, tlv) {
  const out = [];
  for (let p = tlv.start; p < tlv.end;) {
    const c = readTlv(buf, p, tlv.end);
    out.push(c);
    p = c.next;
  }
  return out;
}

export function expectTag(tlv, tag, what) {
  if (tlv === undefined || tlv.tag !== tag) throw new DerError(`${what}: unexpected tag`);
  return tlv;
}

export function bytesOf(buf, tlv) {
  return buf.subarray(tlv.start, tlv.end);
}

export function wholeOf(buf, tlv) {
  return buf.subarray(tlv.headerStart, tlv.end);
}

export function oidOf(buf, tlv) {
  const b = bytesOf(buf, expectTag(tlv, 0x06, 'OID'));
  if (b.length === 0) throw new DerError('empty OID');
  const parts = [];
  let v = 0n;
  for (let i = 0; i < b.length; i++) {
    if (v === 0n && b[i] === 0x80) throw new DerError('OID not minimal');
    v = (v << 7n) | BigInt(b[i] & 0x7f);
    if (!(b[i] & 0x80)) {
      parts.push(v);
      v = 0n;
    } else if (i === b.length - 1) {
      throw new DerError('OID truncated');
    }
  }
  const first = parts[0] < 80n ? parts[0] / 40n : 2n;
  const second = parts[0] - first * 40n;
  return [first, second, ...parts.slice(1)].join('.');
}

export function booleanOf(buf, tlv) {
  const b = bytesOf(buf, expectTag(tlv, 0x01, 'BOOLEAN'));
  if (b.length !== 1 || (b[0] !== 0 && b[0] !== 0xff)) throw new DerError('BOOLEAN not DER');
  return b[0] === 0xff;
}

/** A non-negative INTEGER small enough for a number. */
export function smallIntOf(buf, tlv) {
  const b = bytesOf(buf, expectTag(tlv, 0x02, 'INTEGER'));
  if (b.length === 0 || b.length > 6 || (b[0] & 0x80)) throw new DerError('INTEGER out of range');
  if (b.length > 1 && b[0] === 0 && !(b[1] & 0x80)) throw new DerError('INTEGER not minimal');
  let v = 0;
  for (const x of b) v = v * 256 + x;
  return v;
}

/** UTCTime or GeneralizedTime in the forms RFC 5280 allows, to epoch milliseconds. */
export function timeOf(buf, tlv) {
  const s = bytesOf(buf, tlv).toString('latin1');
  let m;
  let year;
  if (tlv.tag === 0x17) {
    m = /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/.exec(s);
    if (!m) throw new DerError('UTCTime not in the form YYMMDDHHMMSSZ');
    year = Number(m[1]) < 50 ? 2000 + Number(m[1]) : 1900 + Number(m[1]);
  } else if (tlv.tag === 0x18) {
    m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/.exec(s);
    if (!m) throw new DerError('GeneralizedTime not in the form YYYYMMDDHHMMSSZ');
    year = Number(m[1]);
  } else {
    throw new DerError('not a time');
  }
  const [mo, d, h, mi, sec] = m.slice(2).map(Number);
  const t = new Date(Date.UTC(2000, mo - 1, d, h, mi, sec));
  t.setUTCFullYear(year);
  if (t.getUTCMonth() !== mo - 1 || t.getUTCDate() !== d || t.getUTCHours() !== h || t.getUTCMinutes() !== mi
      || t.getUTCSeconds() !== sec) {
    throw new DerError('not a real date and time');
  }
  return t.getTime();
}
