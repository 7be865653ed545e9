// Real servers on 127.0.0.1 for the download and receiver tests.
import https from 'node:https';
import { once } from 'node:events';
import { pem, keyPem } from './pki.js';

/** An HTTPS server presenting the test PKI's certificate for hooks.platform.test; `routes` maps a path to a handler. */
export async function certificateServer(routes) {
  const server = https.createServer({ key: keyPem('server'), cert: pem('server') }, (req, res) => {
    const route = routes[req.url];
    if (!route) {
      res.writeHead(404).end('not here');
      return;
    }
    route(req, res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  return {
    port,
    close: () => new Promise((r) => {
      server.closeAllConnections();
      server.close(r);
    }),
  };
}
