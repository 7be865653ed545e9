// Upload a file as a user (spec 4.5) and print the logged message's id.
// Settings: UPLOAD_URL, TOKEN, CLIENT_ID, AUTH_ID, BUSINESS_ID, FILE (.jpg, .jpeg, .png, .gif: an image; else a
// document), MESSAGE_BODY (optional text for the bot or agent).
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { MessageType, PlatformClient, PlatformError } from '@convplatform/kit';

const env = process.env;
const image = /\.(jpe?g|png|gif)$/i.test(env.FILE);
const client = new PlatformClient({ uploadUrl: env.UPLOAD_URL ?? 'http://localhost:8083' });

try {
  const message = await client.upload({
    accessToken: env.TOKEN, clientId: env.CLIENT_ID, authId: env.AUTH_ID, businessId: env.BUSINESS_ID,
    messageType: image ? MessageType.IMAGE : MessageType.DOCUMENT, messageBody: env.MESSAGE_BODY,
    file: readFileSync(env.FILE), fileName: basename(env.FILE),
  });
  console.log(message.message_id);
} catch (e) {
  if (!(e instanceof PlatformError)) throw e;
  console.error(`refused: ${e.status} ${e.errorCode}: ${e.errorMessage}`);
  process.exitCode = 1;
}
