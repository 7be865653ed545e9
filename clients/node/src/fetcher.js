/**
 * Downloads a certificate document over HTTPS with hard limits: one GET, TLS 1.2 or 1.3 with host name verification,
 * public addresses only (unless `resolve` names where to connect), a connect time-out, a read (idle) time-out, one
 * overall deadline from the lookup to the last byte, a byte limit enforced while reading, status 200 only, and
 * redirects never followed. Failures are said in plain words (never an error's own text, which can describe the
 * inside of a network), always with the code CERT_FETCH_FAILED.
 */
import https from 'node:https';
import tls from 'node:tls';
import dns from 'node:dns';
import net from 'node:net';
import { FailureCode as C, fail } from './errors.js';

export const DEFAULT_MAX_BYTES = 64 * 1024;
export const DEFAULT_CONNECT_TIMEOUT_MS = 2000;
export const DEFAULT_READ_TIMEOUT_MS = 5000;
export const DEFAULT_TOTAL_TIMEOUT_MS = 5000;

// Special-purpose IPv4 ranges (IANA registry) that a certificate download may never reach.
const REFUSED_V4 = new net.BlockList();
for (const [a, p] of [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16],
  ['172.16.0.0', 12], ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.31.196.0', 24], ['192.52.193.0', 24],
  ['192.88.99.0', 24], ['192.168.0.0', 16], ['192.175.48.0', 24], ['198.18.0.0', 15], ['198.51.100.0', 24],
  ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4]]) {
  REFUSED_V4.addSubnet(a, p, 'ipv4');
}
const GLOBAL_V6 = new net.BlockList();
GLOBAL_V6.addSubnet('2000::', 3, 'ipv6');
const REFUSED_V6 = new net.BlockList();
for (const [a, p] of [['2001::', 23], ['2001:db8::', 32], ['3fff::', 20], ['2620:4f:8000::', 48], ['2002::', 16]]) {
  REFUSED_V6.addSubnet(a, p, 'ipv6');
}

/** True when `address` (as dns.lookup returns it) is public unicast. */
export function isPublicAddress(address) {
  const family = net.isIP(address);
  if (family === 4) return !REFUSED_V4.check(address, 'ipv4');
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return !REFUSED_V4.check(mapped[1], 'ipv4');
    return GLOBAL_V6.check(address, 'ipv6') && !REFUSED_V6.check(address, 'ipv6');
  }
  return false;
}

/**
 * Parses `host=address:port` overrides (like curl's --resolve): a map, or text with entries separated by commas.
 * @returns {Map<string, {address: string, port: number}>}
 */
export function parseResolve(resolve) {
  const out = new Map();
  if (!resolve) return out;
  const entries = typeof resolve === 'string'
    ? resolve.split(',').map((s) => s.trim()).filter(Boolean).map((e) => {
      const eq = e.indexOf('=');
      if (eq <= 0) throw new TypeError(`Not host=address:port: '${e}'`);
      return [e.slice(0, eq), e.slice(eq + 1)];
    })
    : Object.entries(resolve instanceof Map ? Object.fromEntries(resolve) : resolve);
  for (const [host, target] of entries) {
    const m = /^\[?([0-9a-fA-F:.]+?)\]?:(\d{1,5})$/.exec(String(target).trim());
    if (!m || !net.isIP(m[1]) || Number(m[2]) < 1 || Number(m[2]) > 65535) {
      throw new TypeError(`Not host=address:port: '${host}=${target}'`);
    }
    out.set(host.trim().toLowerCase(), { address: m[1], port: Number(m[2]) });
  }
  return out;
}

function pemList(extraAnchors) {
  if (!extraAnchors) return [];
  const items = Array.isArray(extraAnchors) ? extraAnchors : [extraAnchors];
  const out = [];
  for (const item of items) {
    if (item && typeof item === 'object' && 'toString' in item && 'fingerprint256' in item) {
      out.push(item.toString());
    } else {
      const text = String(item);
      out.push(...(text.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) || []));
    }
  }
  return out;
}

/**
 * A fetcher for {@link HookVerifier}: `(url) => Promise<Buffer>`.
 *
 * @param {object} [options]
 * @param {number} [options.maxBytes] largest body accepted (64 KiB)
 * @param {number} [options.connectTimeoutMs] to resolve and connect (2 s)
 * @param {number} [options.readTimeoutMs] longest silence while reading (5 s)
 * @param {number} [options.totalTimeoutMs] from the lookup to the last byte (5 s)
 * @param {string | string[]} [options.extraAnchors] PEM roots trusted for the download's TLS besides the system's
 * @param {boolean} [options.systemRoots] trust the system's roots (tls.rootCertificates) for the TLS (on)
 * @param {string | Record<string, string>} [options.resolve] `host=address:port` overrides for local use
 * @param {boolean} [options.allowPrivateAddresses] let DNS answers point inside the network (off)
 */
export function httpsFetcher(options = {}) {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const readTimeoutMs = options.readTimeoutMs ?? DEFAULT_READ_TIMEOUT_MS;
  const totalTimeoutMs = options.totalTimeoutMs ?? DEFAULT_TOTAL_TIMEOUT_MS;
  const extra = pemList(options.extraAnchors);
  const systemRoots = options.systemRoots !== false;
  const ca = extra.length || !systemRoots ? [...(systemRoots ? tls.rootCertificates : []), ...extra] : undefined;
  const overrides = parseResolve(options.resolve);
  const allowPrivate = options.allowPrivateAddresses === true;

  const fetcher = async (rawUrl) => {
    const url = new URL(rawUrl);
    if (url.protocol !== 'https:') {
      throw fail(C.CERT_FETCH_FAILED, `Downloading ${rawUrl} failed: only https is used`);
    }
    const host = url.hostname;
    const override = overrides.get(host);
    const started = Date.now();
    const remaining = () => totalTimeoutMs - (Date.now() - started);

    let targets;
    if (override) {
      targets = [override];
    } else {
      let addresses;
      try {
        addresses = await withDeadline(dns.promises.lookup(host, { all: true, verbatim: true }),
          Math.min(connectTimeoutMs, remaining()));
      } catch (e) {
        throw fail(C.CERT_FETCH_FAILED, e === TIMED_OUT
          ? `Downloading ${rawUrl} failed: the name ${host} did not resolve in time`
          : `Downloading ${rawUrl} failed: the name ${host} does not resolve`);
      }
      if (!allowPrivate && addresses.some((a) => !isPublicAddress(a.address))) {
        throw fail(C.CERT_FETCH_FAILED, `Downloading ${rawUrl} failed: ${host} resolves to an address that is not public`);
      }
      // IPv4 first, then IPv6; each address is tried in turn until one connects, all within the one deadline.
      targets = [...addresses].sort((a, b) => a.family - b.family).map((a) => ({ address: a.address, port: 443 }));
    }
    let last;
    for (const target of targets) {
      try {
        return await download(rawUrl, url, host, target, remaining);
      } catch (e) {
        if (!(e instanceof NotConnected)) throw e;
        if (remaining() <= 0) throw e.error;
        last = e.error;
      }
    }
    throw last;
  };

  /** One GET to one address. A failure before the connection opened is a NotConnected, so the next address is tried. */
  function download(rawUrl, url, host, target, remaining) {
    return new Promise((resolve, reject) => {
      let settled = false;
      const timers = [];
      const finish = (err, value) => {
        if (settled) return;
        settled = true;
        timers.forEach(clearTimeout);
        if (err) {
          req.destroy();
          reject(err);
        } else {
          resolve(value);
        }
      };
      const req = https.request({
        host: target.address,
        port: target.port,
        servername: net.isIP(host) ? undefined : host,
        path: url.pathname,
        method: 'GET',
        agent: false,
        ca,
        minVersion: 'TLSv1.2',
        headers: {
          Host: host,
          Accept: 'application/json, application/x-pem-file, text/plain, */*',
          'Accept-Encoding': 'identity',
          Connection: 'close',
          'User-Agent': 'convplatform-kit-node/1',
        },
      });
      const left = remaining();
      if (left <= 0) {
        finish(fail(C.CERT_FETCH_FAILED, `Downloading ${rawUrl} timed out (limit ${totalTimeoutMs} ms)`));
        return;
      }
      timers.push(setTimeout(() => finish(fail(C.CERT_FETCH_FAILED,
        `Downloading ${rawUrl} timed out (limit ${totalTimeoutMs} ms)`)), left));
      let connected = false;
      const connectTimer = setTimeout(() => finish(new NotConnected(fail(C.CERT_FETCH_FAILED,
        `Connecting to ${host} for ${rawUrl} timed out (limit ${connectTimeoutMs} ms)`))), Math.min(connectTimeoutMs, left));
      timers.push(connectTimer);
      req.on('socket', (socket) => {
        socket.once('connect', () => {
          connected = true;
          clearTimeout(connectTimer);
        });
      });
      req.setTimeout(readTimeoutMs, () => finish(fail(C.CERT_FETCH_FAILED,
        `Downloading ${rawUrl} failed: the server sent nothing for ${readTimeoutMs} ms`)));
      req.on('error', (e) => {
        const error = fail(C.CERT_FETCH_FAILED, `Downloading ${rawUrl} failed: ${describe(e, host)}`);
        finish(connected ? error : new NotConnected(error));
      });
      req.on('response', (res) => {
        const status = res.statusCode;
        if (status >= 300 && status < 400) {
          finish(fail(C.CERT_FETCH_FAILED, `Downloading ${rawUrl}: the server answered ${status} (a redirect); redirects are not followed`));
          return;
        }
        if (status !== 200) {
          finish(fail(C.CERT_FETCH_FAILED, `Downloading ${rawUrl}: the server answered ${status}, not 200`));
          return;
        }
        const declared = res.headers['content-length'];
        if (declared !== undefined && Number(declared) > maxBytes) {
          finish(fail(C.CERT_FETCH_FAILED, `Downloading ${rawUrl}: the response is larger than ${maxBytes} bytes`));
          return;
        }
        const chunks = [];
        let size = 0;
        res.on('data', (chunk) => {
          size += chunk.length;
          if (size > maxBytes) {
            finish(fail(C.CERT_FETCH_FAILED, `Downloading ${rawUrl}: the response is larger than ${maxBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => finish(null, Buffer.concat(chunks)));
        res.on('aborted', () => finish(fail(C.CERT_FETCH_FAILED, `Downloading ${rawUrl} failed: the connection closed before the whole body arrived`)));
        res.on('error', (e) => finish(fail(C.CERT_FETCH_FAILED, `Downloading ${rawUrl} failed: ${describe(e, host)}`)));
      });
      req.end();
    });
  }
  Object.defineProperty(fetcher, 'maxBytes', { value: maxBytes });
  return fetcher;
}

const TIMED_OUT = Symbol('timed out');

/** A failure before the TCP connection opened: the caller may try the next address. */
class NotConnected extends Error {
  constructor(error) {
    super(error.message);
    this.error = error;
  }
}

function withDeadline(promise, ms) {
  let timer;
  return Promise.race([promise, new Promise((_, reject) => {
    timer = setTimeout(() => reject(TIMED_OUT), Math.max(1, ms));
  })]).finally(() => clearTimeout(timer));
}

function describe(e, host) {
  const code = e && e.code;
  if (code === 'ECONNREFUSED') return 'the server refused the connection';
  if (code === 'ECONNRESET' || code === 'EPIPE') return 'the server closed or reset the connection';
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return `the server's TLS certificate is not valid for ${host}`;
  if (typeof code === 'string' && /CERT|SELF_SIGNED|UNABLE_TO|ISSUER/.test(code)) {
    return "the server's TLS certificate is not trusted (the server must present a trusted certificate for the host)";
  }
  if (typeof code === 'string' && code.startsWith('ERR_SSL')) return 'the TLS handshake failed';
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return 'the server could not be reached';
  return "the server's answer could not be read";
}

