// The small rules on their own: URL rules, timestamps, strict JSON, PEM, and host-name matching.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  checkHookCertUrl, checkManagementCertUrl, formatTimestamp, parseTimestamp, VerificationError,
} from '../src/index.js';
import { checkTimestamp } from '../src/timestamp.js';
import { topLevelString } from '../src/json.js';
import { pemBlocks } from '../src/pem.js';
import { dnsMatches } from '../src/chain.js';
import { pem } from './helpers/pki.js';

const code = (fn) => {
  try {
    fn();
    return 'OK';
  } catch (e) {
    if (e instanceof VerificationError) return e.code;
    throw e;
  }
};

describe('checkHookCertUrl', () => {
  const D = ['platform.example'];
  const cases = [
    ['https://hooks.platform.example/platform/hooks/certificate/', 'OK'],
    ['https://a.b.platform.example/platform/hooks/certificate/', 'OK'],
    ['https://hooks.platform.example/platform/./hooks/certificate/', 'OK'],
    ['https://hooks.platform.example///platform//hooks/certificate/', 'OK'],
    ['ftp://hooks.platform.example/platform/hooks/certificate/', 'CERT_URL_SCHEME'],
    ['hooks.platform.example/platform/hooks/certificate/', 'CERT_URL_MALFORMED'],
    ['https:hooks.platform.example/platform/hooks/certificate/', 'CERT_URL_MALFORMED'],
    ['https://user@hooks.platform.example/platform/hooks/certificate/', 'CERT_URL_MALFORMED'],
    ['https://hooks.platform.example/platform/hooks/certificate/#x', 'CERT_URL_MALFORMED'],
    ['https://hooks.platform.example\\platform/hooks/certificate/', 'CERT_URL_MALFORMED'],
    ['https://hooks.platform.example/platform/hooks/certificate/ ', 'CERT_URL_MALFORMED'],
    ['https://hooks.platform.example/platform/hooks/certificate/;x', 'CERT_URL_MALFORMED'],
    ['https://hooks.platform.example/platform/hooks/%2e%2e/certificate/', 'CERT_URL_MALFORMED'],
    ['https://hooks.platform.example/platform/hooks/%2fcertificate/', 'CERT_URL_MALFORMED'],
    ['https://hooks.platform.example/platform/hooks/%zz/', 'CERT_URL_MALFORMED'],
    ['https://hooks.platform.example/platform/hooks/certificate/%41', 'CERT_URL_PATH'],
    ['https://hooks.plat%66orm.example/platform/hooks/certificate/', 'CERT_URL_MALFORMED'],
    ['https://hooks_x.platform.example/platform/hooks/certificate/', 'CERT_URL_MALFORMED'],
    ['https://-hooks.platform.example/platform/hooks/certificate/', 'CERT_URL_MALFORMED'],
    ['https://hooks..platform.example/platform/hooks/certificate/', 'CERT_URL_MALFORMED'],
    ['https://hooks.platform.example./platform/hooks/certificate/', 'CERT_URL_HOST'],
    ['https://[::1]/platform/hooks/certificate/', 'CERT_URL_HOST'],
    ['https://127.0.0.1/platform/hooks/certificate/', 'CERT_URL_HOST'],
    ['https://platform.example/platform/hooks/certificate/', 'CERT_URL_HOST'],
    ['https://evilplatform.example/platform/hooks/certificate/', 'CERT_URL_HOST'],
    ['https://hooks.platform.example/platform/hooks/certificate/../certificate/', 'OK'],
    ['https://hooks.platform.example/platform/hooks/../certificate/', 'CERT_URL_PATH'],
    ['https://hooks.platform.example', 'CERT_URL_PATH'],
    ['https://hooks.platform.example:/platform/hooks/certificate/', 'CERT_URL_MALFORMED'],
    ['https://hooks.platform.example:0443/platform/hooks/certificate/', 'CERT_URL_PORT'],
    ['https://evil.example:8443/x', 'CERT_URL_HOST'],
    [`https://hooks.platform.example/${'a'.repeat(2100)}`, 'CERT_URL_MALFORMED'],
  ];
  for (const [url, expected] of cases) {
    test(`${url.slice(0, 90)} -> ${expected}`, () => assert.equal(code(() => checkHookCertUrl(url, D)), expected));
  }

  test('returns the normalised URL', () => {
    assert.deepEqual({ ...checkHookCertUrl('HTTPS://Hooks.Platform.Example:443//platform/hooks/x/../certificate/', D) }, {
      host: 'hooks.platform.example', path: '/platform/hooks/certificate/', url: 'https://hooks.platform.example/platform/hooks/certificate/',
    });
  });
});

describe('checkManagementCertUrl', () => {
  const F = 'Client.Example.com';
  for (const [url, expected] of [
    ['https://client.example.com/client.api/chain.pem', 'OK'],
    ['https://CLIENT.example.com:443/client.api/../client.api/a', 'OK'],
    ['https://client.example.com/Client.api/chain.pem', 'CERT_URL_PATH'],
    ['https://www.client.example.com/client.api/chain.pem', 'CERT_URL_HOST'],
    ['https://client.example.com:444/client.api/chain.pem', 'CERT_URL_PORT'],
    ['http://client.example.com/client.api/chain.pem', 'CERT_URL_SCHEME'],
  ]) {
    test(`${url} -> ${expected}`, () => assert.equal(code(() => checkManagementCertUrl(url, F)), expected));
  }
});

describe('timestamps', () => {
  test('strict YYYY-MM-DDThh:mm:ssZ', () => {
    assert.equal(parseTimestamp('2026-06-01T12:00:00Z'), Date.UTC(2026, 5, 1, 12));
    assert.equal(parseTimestamp('2024-02-29T23:59:59Z'), Date.UTC(2024, 1, 29, 23, 59, 59));
    for (const bad of ['2023-02-29T00:00:00Z', '2026-13-01T00:00:00Z', '2026-06-01T12:60:00Z', '2026-06-01T12:00:60Z',
      '2026-6-01T12:00:00Z', ' 2026-06-01T12:00:00Z', '2026-06-01T12:00:00Z\n', '', null, undefined]) {
      assert.equal(code(() => parseTimestamp(bad)), 'TIMESTAMP_MALFORMED', String(bad));
    }
  });

  test('format truncates to the second', () => {
    assert.equal(formatTimestamp(new Date('2026-06-01T12:00:00.999Z')), '2026-06-01T12:00:00Z');
    assert.equal(formatTimestamp(Date.UTC(2026, 0, 2, 3, 4, 5)), '2026-01-02T03:04:05Z');
  });

  test('the window is inclusive and exact to the millisecond (issue 39)', () => {
    const at = (ms) => () => Date.UTC(2026, 5, 1, 12, 2, 0) + ms;
    assert.equal(code(() => checkTimestamp('2026-06-01T12:00:00Z', at(0), 120)), 'OK');
    assert.equal(code(() => checkTimestamp('2026-06-01T12:00:00Z', at(1), 120)), 'TIMESTAMP_OUT_OF_WINDOW');
    assert.equal(code(() => checkTimestamp('2026-06-01T12:00:00Z', at(999), 120)), 'TIMESTAMP_OUT_OF_WINDOW');
    assert.equal(code(() => checkTimestamp('2026-06-01T12:04:00Z', at(0), 120)), 'OK');
    assert.equal(code(() => checkTimestamp('2026-06-01T12:04:00Z', at(-1), 120)), 'TIMESTAMP_OUT_OF_WINDOW');
    assert.equal(code(() => checkTimestamp('2026-06-01T12:04:00Z', at(999), 120)), 'OK');
    assert.equal(code(() => checkTimestamp('2026-06-01T11:59:30Z', at(0), 150)), 'OK');
    assert.equal(code(() => checkTimestamp('2026-06-01T11:59:30Z', at(1), 150)), 'TIMESTAMP_OUT_OF_WINDOW');
    assert.throws(() => checkTimestamp('2026-06-01T12:00:00Z', at(1), 120), /is 120\.001 s in the past; at most 120 s/);
  });
});

describe('strict JSON', () => {
  const read = (text) => topLevelString(Buffer.from(text), 'f');
  test('reads a top-level string', () => {
    assert.equal(read('{"f": "v"}'), 'v');
    assert.equal(read(' {"a": {"f": 1}, "f": "\\u00e9\\n"} \n'), 'é\n');
    assert.equal(read('{"a": [1, 2.5e3, -0, true, false, null, {"b": []}]}'), undefined);
  });
  test('refuses what is not one strict object', () => {
    for (const bad of ['', '[]', '"f"', '{"f": "v"', '{"f": "v"} x', "{'f': 'v'}", '{"f": "v",}', '{"f": 01}',
      '{"f": NaN}', '{"a": 1, "a": 2}', '{"o": {"a": 1, "a": 2}}', '{"f": "a\tb"}', '{"f": "\\x"}', '{f: 1}', '{"f": 1}']) {
      assert.throws(() => read(bad), /./, bad);
    }
  });
  test('refuses bytes that are not UTF-8', () => {
    assert.throws(() => topLevelString(Buffer.from([0x7b, 0x22, 0x66, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]), 'f'));
  });
});

describe('PEM', () => {
  test('reads certificates, with white space around them', () => {
    assert.equal(pemBlocks(`\n\n${pem('leaf')}\r\n${pem('inter')}  \n`).length, 2);
  });
  test('refuses text around the blocks, other block types and empty input', () => {
    assert.equal(code(() => pemBlocks(`# comment\n${pem('leaf')}`)), 'CERT_MALFORMED');
    assert.equal(code(() => pemBlocks(`${pem('leaf')}trailer`)), 'CERT_MALFORMED');
    assert.equal(code(() => pemBlocks('-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n')), 'CERT_MALFORMED');
    assert.equal(code(() => pemBlocks('')), 'CERT_MALFORMED');
    assert.equal(code(() => pemBlocks(pem('leaf'), 100)), 'CERT_MALFORMED');
  });
});

describe('host names (RFC 6125)', () => {
  for (const [pattern, name, expected] of [
    ['hooks.platform.test', 'HOOKS.platform.test', true],
    ['hooks.platform.test.', 'hooks.platform.test', true],
    ['*.platform.test', 'hooks.platform.test', true],
    ['*.platform.test', 'a.hooks.platform.test', false],
    ['*.platform.test', 'platform.test', false],
    ['*.test', 'platform.test', false],
    ['h*.platform.test', 'hooks.platform.test', false],
    ['hooks.*.test', 'hooks.platform.test', false],
    ['*.platform.test', 'xn--bcher-kva.platform.test', false],
    ['hooks_x.platform.test', 'hooks_x.platform.test', false],
  ]) {
    test(`${pattern} ~ ${name}: ${expected}`, () => assert.equal(dnsMatches(pattern, name), expected));
  }
});
