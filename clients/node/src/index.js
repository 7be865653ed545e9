/**
 * @convplatform/kit: verify the platform's signed hooks, sign management requests, call the management and upload
 * APIs, and receive hooks with Express or node:http. No dependencies beyond Node's own modules.
 */
export { FailureCode, VerificationError } from './errors.js';
export { HookVerifier } from './hook-verifier.js';
export { httpsFetcher } from './fetcher.js';
export {
  checkHookCertUrl, checkManagementCertUrl, HOOK_CERT_PATH, MANAGEMENT_CERT_PATH_PREFIX,
} from './url.js';
export {
  formatTimestamp, parseTimestamp, HOOK_TOLERANCE_SECONDS, MANAGEMENT_TOLERANCE_SECONDS,
} from './timestamp.js';
export { RequestSigner, signManagementBody } from './signer.js';
export { verifyManagementSignature } from './signature.js';
export { PlatformClient, PlatformError, MessageType } from './client.js';
export { createHookHandler, hookMiddleware } from './middleware.js';
