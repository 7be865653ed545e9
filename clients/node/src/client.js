/**
 * A client for the platform's signed management API (spec 4.1 token, 4.2 client list) and the upload endpoint
 * (spec 4.5), on the global fetch and FormData of Node 20. Every refusal is a {@link PlatformError} carrying the
 * service's `error_code` and `error_message`.
 */
import { RequestSigner } from './signer.js';

export const TOKEN_PATH = '/platform/management/token/issue/';
export const CLIENTS_PATH = '/platform/management/clients/';
export const UPLOAD_PATH = '/v1.0/log_file_from_user/';
/** message_type of spec 4.5. */
export const MessageType = Object.freeze({ IMAGE: 1, DOCUMENT: 52 });

export class PlatformError extends Error {
  /**
   * @param {number} status the HTTP status
   * @param {string} errorCode the service's error_code (or HTTP_<status> when the body had none)
   * @param {string} errorMessage the service's error_message
   * @param {string | undefined} requestId the X-Request-Id of the answer, for the platform's logs
   */
  constructor(status, errorCode, errorMessage, requestId) {
    super(`${status} ${errorCode}: ${errorMessage}`);
    this.name = 'PlatformError';
    this.status = status;
    this.errorCode = errorCode;
    this.errorMessage = errorMessage;
    this.requestId = requestId;
  }
}

function base(url, what) {
  if (!url) throw new TypeError(`${what} is required for this call`);
  return String(url).replace(/\/+$/, '');
}

async function answer(res) {
  const text = await res.text();
  let json;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (res.ok && json !== undefined) return json;
  const requestId = res.headers.get('x-request-id') ?? undefined;
  if (res.ok) {
    throw new PlatformError(res.status, 'MALFORMED_RESPONSE', 'The answer is not JSON', requestId);
  }
  const code = json && typeof json.error_code === 'string' ? json.error_code : `HTTP_${res.status}`;
  const message = json && typeof json.error_message === 'string' ? json.error_message : text.slice(0, 500);
  throw new PlatformError(res.status, code, message, requestId);
}

export class PlatformClient {
  #management;
  #upload;
  #signer;
  #fqdn;
  #fetch;

  /**
   * @param {import('./index.js').PlatformClientOptions} options
   */
  constructor(options = {}) {
    this.#management = options.managementUrl;
    this.#upload = options.uploadUrl;
    this.#fqdn = options.fqdn;
    this.#fetch = options.fetch ?? globalThis.fetch;
    if (options.signer instanceof RequestSigner || options.signer === undefined) {
      this.#signer = options.signer;
    } else {
      throw new TypeError('signer must be a RequestSigner');
    }
  }

  async #signed(path, fields) {
    if (!this.#signer) throw new TypeError('A signer is required for signed management requests');
    if (!this.#fqdn) throw new TypeError('fqdn is required for signed management requests');
    const { body, headers } = this.#signer.signJson({ ...fields, fqdn: this.#fqdn });
    const res = await this.#fetch(`${base(this.#management, 'managementUrl')}${path}`, {
      method: 'POST', headers, body, redirect: 'manual',
    });
    return answer(res);
  }

  /**
   * Issues a token for a client (spec 4.1).
   * @param {string} clientId
   * @returns {Promise<{access_token: string, token_type: string, expires_in: number, client_id: string}>}
   */
  async issueToken(clientId) {
    if (typeof clientId !== 'string' || clientId === '') throw new TypeError('clientId is required');
    return this.#signed(TOKEN_PATH, { client_id: clientId });
  }

  /**
   * Lists the account's clients (spec 4.2).
   * @returns {Promise<{clients: {client_id: string, name: string, created_at: string}[]}>}
   */
  async listClients() {
    return this.#signed(CLIENTS_PATH, {});
  }

  /**
   * Uploads a user's file (spec 4.5): multipart/form-data with the Bearer token and the client-id header.
   * @param {import('./index.js').UploadRequest} request
   */
  async upload(request) {
    const { accessToken, clientId, authId, businessId, messageType, file, fileName, contentType, messageBody } = request;
    for (const [name, v] of Object.entries({ accessToken, clientId, authId, businessId, fileName })) {
      if (typeof v !== 'string' || v === '') throw new TypeError(`${name} is required`);
    }
    if (messageType === undefined) throw new TypeError('messageType is required');
    const form = new FormData();
    form.append('auth_id', authId);
    form.append('business_id', businessId);
    form.append('message_type', String(messageType));
    if (messageBody !== undefined) form.append('message_body', messageBody);
    const blob = file instanceof Blob ? file : new Blob([file], { type: contentType ?? 'application/octet-stream' });
    form.append('file', blob, fileName);
    const res = await this.#fetch(`${base(this.#upload, 'uploadUrl')}${UPLOAD_PATH}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${accessToken}`, 'client-id': clientId },
      body: form,
      redirect: 'manual',
    });
    return answer(res);
  }
}
