// Signed management requests: list the account's clients, then get a token for one (spec 4.1, 4.2).
// Settings: BASE_URL (management API), FQDN, KEY (PEM private key file), CERT_UUID (registered self-signed
// certificate) or CERT_CHAIN_URL (CA-issued chain), CLIENT_ID (default: the first client listed). Prints the token.
import { readFileSync } from 'node:fs';
import { PlatformClient, PlatformError, RequestSigner } from '@convplatform/kit';

const env = process.env;
const signer = new RequestSigner({
  privateKey: readFileSync(env.KEY, 'utf8'),
  ...(env.CERT_CHAIN_URL ? { certChainUrl: env.CERT_CHAIN_URL } : { certUuid: env.CERT_UUID }),
});
const client = new PlatformClient({ managementUrl: env.BASE_URL ?? 'http://localhost:8081', fqdn: env.FQDN, signer });

try {
  const { clients } = await client.listClients();
  const token = await client.issueToken(env.CLIENT_ID ?? clients[0].client_id);
  console.error(`${clients.length} client(s); token for ${token.client_id}, valid ${token.expires_in} s`);
  console.log(token.access_token);
} catch (e) {
  if (!(e instanceof PlatformError)) throw e;
  console.error(`refused: ${e.status} ${e.errorCode}: ${e.errorMessage}`);
  process.exitCode = 1;
}
