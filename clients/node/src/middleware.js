/**
 * Receivers that keep the raw body: the signature is over the exact bytes, so they are read before any JSON parser
 * sees them. A hook that fails verification is answered 400 with `{"error_code", "error_message"}` (spec 4.4).
 */
import { VerificationError } from './errors.js';

/** Largest hook body read: 1 MiB. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

class BodyTooLarge extends Error {}

function readBody(req, limit) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (c) => {
      size += c.length;
      if (size > limit) {
        req.pause();
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function sendJson(res, status, obj) {
  const body = JSON.stringify(obj);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

function refuse(res, code, message) {
  sendJson(res, 400, { error_code: code, error_message: message });
}

/** Reads and verifies; returns the verified hook, or answers the request itself and returns undefined. */
async function verifyIncoming(verifier, req, res, options) {
  const limit = options.limit ?? DEFAULT_BODY_LIMIT;
  let raw;
  if (Buffer.isBuffer(req.body)) {
    raw = req.body; // already read raw (express.raw()): those are the bytes as received
  } else if (req.body !== undefined && req.readableEnded) {
    throw new TypeError('The body was parsed before the hook middleware ran; mount it before any body parser (express.json()), since the signature is over the raw bytes');
  } else {
    try {
      raw = await readBody(req, limit);
    } catch (e) {
      if (e instanceof BodyTooLarge) {
        res.setHeader('Connection', 'close');
        sendJson(res, 413, { error_code: 'BODY_TOO_LARGE', error_message: `The hook body is larger than ${limit} bytes` });
        return undefined;
      }
      throw e;
    }
  }
  try {
    return await verifier.verifyRequest(req.headers, raw);
  } catch (e) {
    if (e instanceof VerificationError) {
      options.onRefused?.(e, req);
      refuse(res, e.code, e.message);
      return undefined;
    }
    throw e;
  }
}

/**
 * A `node:http` request handler: verifies each request as a hook and calls `onHook(hook, req, res)` with the verified
 * hook (its `body` the raw bytes, `json()` the parsed object); `onHook` answers. A refused hook is answered 400.
 *
 * @param {import('./hook-verifier.js').HookVerifier} verifier
 * @param {(hook: object, req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => unknown} onHook
 * @param {{limit?: number, onRefused?: (error: VerificationError, req: object) => void}} [options]
 */
export function createHookHandler(verifier, onHook, options = {}) {
  return async (req, res) => {
    try {
      if (req.method !== 'POST') {
        res.setHeader('Allow', 'POST');
        sendJson(res, 405, { error_code: 'METHOD_NOT_ALLOWED', error_message: 'Hooks are delivered with POST' });
        return;
      }
      const hook = await verifyIncoming(verifier, req, res, options);
      if (hook === undefined) return;
      await onHook(withJson(hook), req, res);
    } catch (e) {
      if (!res.headersSent) {
        sendJson(res, 500, { error_code: 'INTERNAL_ERROR', error_message: 'The hook could not be handled' });
      } else {
        res.destroy(e);
      }
    }
  };
}

/**
 * Express middleware: mount it on the hook route before any body parser. It reads the raw body, verifies it, and on
 * success sets `req.hook` (the verified hook), `req.rawBody` (the exact bytes) and `req.body` (the parsed JSON), then
 * calls `next()`; a hook that fails verification is answered 400 and `next` is not called.
 *
 * @param {import('./hook-verifier.js').HookVerifier} verifier
 * @param {{limit?: number, onRefused?: (error: VerificationError, req: object) => void}} [options]
 */
export function hookMiddleware(verifier, options = {}) {
  return (req, res, next) => {
    verifyIncoming(verifier, req, res, options).then((hook) => {
      if (hook === undefined) return;
      const h = withJson(hook);
      req.hook = h;
      req.rawBody = h.body;
      req.body = h.json();
      next();
    }, next);
  };
}

function withJson(hook) {
  let parsed;
  return Object.freeze({
    ...hook,
    json() {
      if (parsed === undefined) parsed = JSON.parse(hook.body.toString('utf8'));
      return parsed;
    },
  });
}
