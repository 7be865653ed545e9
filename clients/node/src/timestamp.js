/**
 * The freshness check of spec 5.1 step 4 and 5.2 step 5: a strict `YYYY-MM-DDThh:mm:ssZ` timestamp within N seconds
 * of the clock in either direction. Exactly N seconds is accepted, N + 1 refused; the clock is truncated to whole
 * seconds first, since the format has none.
 */
import { FailureCode as C, fail } from './errors.js';

/** Spec 5.2 and section 8: hook requests. */
export const HOOK_TOLERANCE_SECONDS = 120;
/** Spec 5.1 and section 8: management requests. */
export const MANAGEMENT_TOLERANCE_SECONDS = 150;

const SHAPE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z$/;

/** Now, from a clock returning a Date or epoch milliseconds, in whole milliseconds. */
export function nowMillis(clock) {
  const t = clock();
  const ms = t instanceof Date ? t.getTime() : Number(t);
  if (!Number.isFinite(ms)) {
    throw new TypeError('The clock returned no valid time');
  }
  return ms;
}

/**
 * Parses a strict `YYYY-MM-DDThh:mm:ssZ` timestamp (UTC, whole seconds, capital T and Z, a real date and time).
 * @returns {number} epoch milliseconds
 */
export function parseTimestamp(value) {
  if (value === null || value === undefined || value === '') {
    throw fail(C.TIMESTAMP_MALFORMED, 'The timestamp is missing');
  }
  const m = typeof value === 'string' ? SHAPE.exec(value) : null;
  if (!m) {
    const shown = String(value).length <= 40 ? String(value) : `${String(value).slice(0, 40)}...`;
    throw fail(C.TIMESTAMP_MALFORMED, `The timestamp '${shown}' is not of the form YYYY-MM-DDThh:mm:ssZ (UTC, whole seconds, capital T and Z)`);
  }
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number);
  const back = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
  back.setUTCFullYear(y); // Date.UTC maps years 0-99 to 1900-1999
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d
      || back.getUTCHours() !== h || back.getUTCMinutes() !== mi || back.getUTCSeconds() !== s) {
    throw fail(C.TIMESTAMP_MALFORMED, `The timestamp '${value}' is not a real date and time`);
  }
  return back.getTime();
}

/** Formats a time as `YYYY-MM-DDThh:mm:ssZ`, truncated to the second. */
export function formatTimestamp(time) {
  const ms = time instanceof Date ? time.getTime() : Number(time);
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * Checks that `value` parses and lies within `toleranceSeconds` of the clock, exact to the millisecond: exactly the
 * tolerance is accepted, the tolerance and 1 ms is refused (the clock keeps its milliseconds; it used to be rounded
 * down to whole seconds, which let up to 0.999 s more through).
 * @returns {number} the timestamp in epoch milliseconds
 */
export function checkTimestamp(value, clock, toleranceSeconds) {
  const ts = parseTimestamp(value);
  const now = Math.floor(nowMillis(clock));
  const skewMs = Math.abs(now - ts);
  if (skewMs > toleranceSeconds * 1000) {
    const direction = ts < now ? 'in the past' : 'in the future';
    const skew = skewMs % 1000 === 0 ? String(skewMs / 1000) : (skewMs / 1000).toFixed(3);
    throw fail(C.TIMESTAMP_OUT_OF_WINDOW, `The timestamp ${value} is ${skew} s ${direction}; at most ${toleranceSeconds} s either way is accepted (receiver time ${formatTimestamp(now)}); check the clocks (NTP)`);
  }
  return ts;
}
