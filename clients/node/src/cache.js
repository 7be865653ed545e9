/**
 * A bounded cache of validated chains keyed by normalised certificate URL: least recently used entries are dropped
 * beyond the size limit, entries are loaded again after their maximum age, at most one load per URL runs at a time
 * (other callers share it), and failures are not cached. Validity is re-checked by the caller on every use.
 */
import { FailureCode as C, fail } from './errors.js';
import { nowMillis } from './timestamp.js';

const iso = (ms) => new Date(ms).toISOString().replace('.000Z', 'Z');

/** Throws CERT_NOT_YET_VALID or CERT_EXPIRED unless every certificate of the validated chain is valid at `at`. */
export function checkValidAt(chain, instant) {
  const at = Math.floor(instant / 1000) * 1000; // certificate dates are whole seconds (as the Java verifier reads them)
  if (at < chain.notBefore) {
    throw fail(C.CERT_NOT_YET_VALID, `A certificate of the chain is valid only from ${iso(chain.notBefore)} (now ${iso(at)})`);
  }
  if (at > chain.notAfter) {
    throw fail(C.CERT_EXPIRED, `A certificate of the chain expired at ${iso(chain.notAfter)} (now ${iso(at)})`);
  }
}

export class ChainCache {
  #max;
  #maxAgeMs;
  #clock;
  #entries = new Map();
  #inFlight = new Map();

  constructor({ maxEntries, maxAgeMs, clock }) {
    if (!(maxEntries >= 1)) throw new RangeError('The cache size must be at least 1');
    this.#max = maxEntries;
    this.#maxAgeMs = maxAgeMs;
    this.#clock = clock;
  }

  get size() {
    return this.#entries.size;
  }

  #now() {
    return nowMillis(this.#clock);
  }

  #touch(key) {
    const e = this.#entries.get(key);
    if (e !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, e);
    }
    return e;
  }

  #put(key, entry) {
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    while (this.#entries.size > this.#max) {
      this.#entries.delete(this.#entries.keys().next().value);
    }
  }

  /** The cached entry for `key`, loading it when absent or too old. */
  async get(key, loader) {
    const e = this.#touch(key);
    if (e !== undefined && this.#now() <= e.loadedAt + this.#maxAgeMs) return e;
    return this.#load(key, loader, e);
  }

  /**
   * The entry for `key`, valid now: an entry no longer (or not yet) valid is loaded once more, since the certificate
   * at that URL may have been renewed, and refused when it still is not valid.
   */
  async getValid(key, loader) {
    const entry = await this.get(key, loader);
    try {
      checkValidAt(entry.chain, this.#now());
      return entry;
    } catch {
      const again = await this.refresh(key, entry, 0, loader);
      checkValidAt(again.chain, this.#now());
      return again;
    }
  }

  /**
   * Loads `key` again unless another caller already replaced `stale`, or `stale` is younger than `minAgeMs` (then it
   * is returned as it is): used once after a signature mismatch, so a rotated certificate is picked up without letting
   * bad requests trigger one download each.
   */
  async refresh(key, stale, minAgeMs, loader) {
    const current = this.#entries.get(key);
    if (current !== undefined && current !== stale) return current;
    if (stale && this.#now() < (stale.triedAt ?? stale.loadedAt) + minAgeMs) return stale;
    try {
      return await this.#load(key, loader, stale);
    } catch (e) {
      if (stale && !this.#entries.has(key)) {
        // Keep what we had but count the attempt, so a failing certificate server is not asked once per request;
        // its age still counts from its download, so failed refreshes do not keep a withdrawn chain alive.
        this.#put(key, { chain: stale.chain, loadedAt: stale.loadedAt, triedAt: this.#now() });
      }
      throw e;
    }
  }

  invalidate(key) {
    this.#entries.delete(key);
  }

  async #load(key, loader, previous) {
    const running = this.#inFlight.get(key);
    if (running) return running;
    const promise = (async () => {
      const current = this.#entries.get(key);
      if (current !== undefined && current !== previous && this.#now() <= current.loadedAt + this.#maxAgeMs) {
        return current;
      }
      try {
        const chain = await loader(key);
        const fresh = { chain, loadedAt: this.#now() };
        this.#put(key, fresh);
        return fresh;
      } catch (e) {
        if (previous !== undefined && this.#entries.get(key) === previous) this.#entries.delete(key);
        throw e;
      }
    })();
    this.#inFlight.set(key, promise);
    try {
      return await promise;
    } finally {
      if (this.#inFlight.get(key) === promise) this.#inFlight.delete(key);
    }
  }
}
