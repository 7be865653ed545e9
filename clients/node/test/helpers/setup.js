// A verifier over the test PKI with a fetcher that serves documents from a map and counts downloads.
import { HookVerifier, formatTimestamp } from '../../src/index.js';
import {
  CERT_URL, PLATFORM_DOMAIN, T0, certDocument, hookBody, pem, signHook,
} from './pki.js';

export function setup({ served, now = T0 + 60_000, ...options } = {}) {
  const state = {
    now,
    fetched: [],
    served: served ?? { [CERT_URL]: certDocument('leaf', 'inter') },
  };
  state.verifier = new HookVerifier({
    platformDomains: PLATFORM_DOMAIN,
    trustAnchors: pem('root'),
    useSystemRoots: false,
    clock: () => state.now,
    fetcher: async (url) => {
      state.fetched.push(url);
      if (!Object.hasOwn(state.served, url)) throw new Error(`nothing is served at ${url}`);
      return state.served[url];
    },
    ...options,
  });
  return state;
}

/** A hook signed now by `signer`, with its headers. */
export function hook(state, { signer = 'leaf', url = CERT_URL, at = state.now, extra } = {}) {
  const body = hookBody(formatTimestamp(at), extra);
  return { signature: signHook(signer, body), certificateUrl: url, body };
}
