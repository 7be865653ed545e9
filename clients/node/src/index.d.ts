/// <reference types="node" />
import type { KeyObject, X509Certificate } from 'node:crypto';
import type { IncomingMessage, ServerResponse, IncomingHttpHeaders } from 'node:http';

/** Every failure code; the names are the platform's own and never change. */
export type FailureCode =
  | 'CERT_URL_MALFORMED' | 'CERT_URL_SCHEME' | 'CERT_URL_HOST' | 'CERT_URL_PATH' | 'CERT_URL_PORT'
  | 'CERT_FETCH_FAILED' | 'CERT_MALFORMED' | 'CERT_NOT_YET_VALID' | 'CERT_EXPIRED' | 'CERT_NAME_MISMATCH'
  | 'CERT_UNTRUSTED' | 'CERT_CHAIN_INVALID' | 'CERT_KEY_UNSUPPORTED' | 'SIGNATURE_MALFORMED' | 'SIGNATURE_MISMATCH'
  | 'TIMESTAMP_MALFORMED' | 'TIMESTAMP_OUT_OF_WINDOW';
export declare const FailureCode: { readonly [K in FailureCode]: K };

/** The one error every check throws: a stable code and a plain message. */
export declare class VerificationError extends Error {
  constructor(code: FailureCode, message: string, options?: { cause?: unknown });
  readonly name: 'VerificationError';
  readonly code: FailureCode;
}

/** Returns the current time; injectable for tests. */
export type Clock = () => Date | number;
/** Downloads a certificate URL; anything it throws is CERT_FETCH_FAILED (a VerificationError passes through). */
export type Fetcher = (url: string) => Promise<Uint8Array | string>;
/** Certificates as PEM text (one or more), DER bytes, or parsed objects. */
export type CertificateInput = string | Uint8Array | X509Certificate | ReadonlyArray<string | Uint8Array | X509Certificate>;

export interface HookVerifierOptions {
  /** The production and/or staging platform domains; certificate hosts must be subdomains of one of them. */
  platformDomains: string | readonly string[];
  /** Extra trust anchors (roots) for the chain and for the download's TLS. None by default. */
  trustAnchors?: CertificateInput;
  /** Trust the system's roots (tls.rootCertificates). Default true. */
  useSystemRoots?: boolean;
  /** The clock for validity and freshness. Default: the system clock. */
  clock?: Clock;
  /** How certificates are downloaded. Default: httpsFetcher() with the limits and options below. */
  fetcher?: Fetcher;
  /** `host=address:port` overrides (text, comma separated, or a map) for the built-in fetcher; local use only. */
  resolve?: string | Record<string, string>;
  /** Largest certificate document: 64 KiB. */
  maxBytes?: number;
  connectTimeoutMs?: number;
  readTimeoutMs?: number;
  totalTimeoutMs?: number;
  /** The freshness window: 120 s. */
  toleranceSeconds?: number;
  /** Most certificate URLs cached: 16. */
  cacheSize?: number;
  /** A cached chain is downloaded again after this long: 1 h. */
  cacheMaxAgeMs?: number;
  /** After a signature mismatch, a cached chain older than this is downloaded once more: 30 s. */
  refetchAfterMs?: number;
}

/** A hook that passed every check. */
export interface VerifiedHook {
  /** The normalised certificate URL the chain came from. */
  readonly certificateUrl: string;
  /** The body's signature_timestamp. */
  readonly signatureTimestamp: Date;
  /** The validated path, signing certificate first (the root excluded). */
  readonly certificates: readonly X509Certificate[];
  /** The raw body bytes, exactly as verified. */
  readonly body: Buffer;
}

/** A verified hook as the receivers hand it on, with its JSON parsed on demand. */
export interface ReceivedHook extends VerifiedHook {
  json<T = HookBody>(): T;
}

/** The hook body of spec 2.2. */
export interface HookBody {
  user_id: string;
  conversation_number: number;
  message_body: string;
  message_id: number;
  sender: string;
  timestamp: string;
  metadata: Record<string, unknown>;
  signature_timestamp: string;
  [field: string]: unknown;
}

export declare class HookVerifier {
  constructor(options: HookVerifierOptions);
  readonly platformDomains: readonly string[];
  /** Rejects with a VerificationError naming the first check that failed; answer HTTP 400. */
  verify(hook: { signature: string | null | undefined; certificateUrl: string | null | undefined; body: Uint8Array | ArrayBuffer }): Promise<VerifiedHook>;
  /** The same, reading `signature` and `signature-certificate-url` from the headers (any case). */
  verifyRequest(headers: IncomingHttpHeaders | Headers | Record<string, string | string[] | undefined>, body: Uint8Array | ArrayBuffer): Promise<VerifiedHook>;
}

export interface HttpsFetcherOptions {
  maxBytes?: number;
  connectTimeoutMs?: number;
  readTimeoutMs?: number;
  totalTimeoutMs?: number;
  extraAnchors?: string | readonly string[];
  systemRoots?: boolean;
  resolve?: string | Record<string, string>;
  /** Let DNS answers point at private or special addresses. Default false. */
  allowPrivateAddresses?: boolean;
}
export declare function httpsFetcher(options?: HttpsFetcherOptions): Fetcher & { readonly maxBytes: number };

export interface CertificateUrl {
  readonly host: string;
  readonly path: string;
  /** The normalised URL: the one to download. */
  readonly url: string;
}
export declare const HOOK_CERT_PATH: '/platform/hooks/certificate/';
export declare const MANAGEMENT_CERT_PATH_PREFIX: '/client.api/';
/** The hook certificate-URL rule of spec 5.2; throws a VerificationError with a CERT_URL_* code. */
export declare function checkHookCertUrl(url: string | null | undefined, platformDomains: string | readonly string[]): CertificateUrl;
/** The management certificate-URL rule of spec 5.1; throws a VerificationError with a CERT_URL_* code. */
export declare function checkManagementCertUrl(url: string | null | undefined, fqdn: string): CertificateUrl;

export declare const HOOK_TOLERANCE_SECONDS: 120;
export declare const MANAGEMENT_TOLERANCE_SECONDS: 150;
/** `YYYY-MM-DDThh:mm:ssZ`, truncated to the second. */
export declare function formatTimestamp(time: Date | number): string;
/** Parses a strict `YYYY-MM-DDThh:mm:ssZ` timestamp to epoch milliseconds; throws TIMESTAMP_MALFORMED. */
export declare function parseTimestamp(value: string | null | undefined): number;

export type PrivateKeyInput = KeyObject | string | Buffer;
export interface RequestSignerOptions {
  /** The client's RSA or EC private key (PEM, DER or KeyObject). */
  privateKey: PrivateKeyInput;
  /** For a CA-signed certificate: the https URL of its PEM chain (host = the FQDN, path under /client.api/). */
  certChainUrl?: string;
  /** For a registered self-signed certificate: its certificate_uuid. */
  certUuid?: string;
  clock?: Clock;
  /**
   * Send `Signature-256` (SHA256withRSA / SHA256withECDSA over the same bytes, the platform's extension of spec 5.1)
   * beside `Signature`. Default true; false sends `Signature` alone, for a platform that does not take it.
   */
  signature256?: boolean;
}
export interface SignedRequest {
  body: Buffer;
  headers: Record<string, string>;
}
export declare class RequestSigner {
  constructor(options: RequestSignerOptions);
  readonly algorithm: 'SHA1withRSA' | 'SHA1withECDSA';
  readonly algorithm256: 'SHA256withRSA' | 'SHA256withECDSA';
  /** The Base64 `Signature` (SHA-1) for these exact bytes (a string is encoded as UTF-8). */
  sign(body: Uint8Array | string): string;
  /** The Base64 `Signature-256` (SHA-256) for these exact bytes. */
  sign256(body: Uint8Array | string): string;
  /** The headers for these exact body bytes. */
  headers(body: Uint8Array | string): Record<string, string>;
  /** `fields` plus `timestamp` as minified JSON, and its headers. */
  signJson(fields: Record<string, unknown>): SignedRequest;
}
export declare function signManagementBody(privateKey: PrivateKeyInput, data: Uint8Array | string, digest?: 'sha1' | 'sha256'): string;

export declare const MessageType: { readonly IMAGE: 1; readonly DOCUMENT: 52 };
export declare class PlatformError extends Error {
  readonly name: 'PlatformError';
  readonly status: number;
  /** The service's error_code, or HTTP_<status> when the body had none. */
  readonly errorCode: string;
  readonly errorMessage: string;
  readonly requestId: string | undefined;
}
export interface PlatformClientOptions {
  /** Base URL of the management API, for example https://api.platform.example */
  managementUrl?: string;
  /** Base URL of the upload endpoint (spec 4.5's {base_url}). */
  uploadUrl?: string;
  /** The account's FQDN, sent in signed bodies. */
  fqdn?: string;
  signer?: RequestSigner;
  fetch?: typeof globalThis.fetch;
}
export interface TokenResponse {
  access_token: string;
  token_type: string;
  expires_in: number;
  client_id: string;
}
export interface ClientRecord {
  client_id: string;
  name: string;
  created_at: string;
}
export interface UploadRequest {
  accessToken: string;
  clientId: string;
  authId: string;
  businessId: string;
  messageType: 1 | 52 | number;
  file: Uint8Array | Blob;
  fileName: string;
  contentType?: string;
  messageBody?: string;
}
/** Spec 2.3. */
export interface UploadedMessage {
  message_id: number;
  message_body: string;
  created_at: string;
  message_type: number;
  file_url: string;
}
export declare class PlatformClient {
  constructor(options?: PlatformClientOptions);
  issueToken(clientId: string): Promise<TokenResponse>;
  listClients(): Promise<{ clients: ClientRecord[] }>;
  upload(request: UploadRequest): Promise<UploadedMessage>;
}

export interface ReceiverOptions {
  /** Largest body read: 1 MiB; larger is answered 413. */
  limit?: number;
  /** Called with each refusal before the 400 is sent (for logging). */
  onRefused?: (error: VerificationError, req: IncomingMessage) => void;
}
/** A node:http handler that answers 400 to a hook that fails verification and hands a verified one to `onHook`. */
export declare function createHookHandler(
  verifier: HookVerifier,
  onHook: (hook: ReceivedHook, req: IncomingMessage, res: ServerResponse) => unknown,
  options?: ReceiverOptions,
): (req: IncomingMessage, res: ServerResponse) => Promise<void>;
/** Express middleware; sets req.hook, req.rawBody and req.body, or answers 400. Mount before any body parser. */
export declare function hookMiddleware(
  verifier: HookVerifier,
  options?: ReceiverOptions,
): (req: IncomingMessage & { hook?: ReceivedHook; rawBody?: Buffer; body?: unknown }, res: ServerResponse, next: (err?: unknown) => void) => void;

/**
 * Verifies a management-request signature as the platform does (strict Base64, RSA length, strict DER for ECDSA).
 * False for a well-formed signature that does not match; throws SIGNATURE_MALFORMED or CERT_KEY_UNSUPPORTED.
 */
export declare function verifyManagementSignature(
  algorithm: 'SHA1withRSA' | 'SHA1withECDSA' | 'SHA256withRSA' | 'SHA256withECDSA',
  publicKey: KeyObject | X509Certificate | string,
  data: Uint8Array | string,
  signature: string,
): boolean;
