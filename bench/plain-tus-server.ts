// Baseline for `npm run bench -- upload`: stock @tus/server over the stock, unencrypted
// @tus/file-store. No auth, no sessions, no encryption.
import { Server } from '@tus/server';
import { FileStore } from '@tus/file-store';

const [dir, port] = process.argv.slice(2);
const server = new Server({ path: '/files', datastore: new FileStore({ directory: dir }) });
server.listen({ host: '127.0.0.1', port: Number(port) }, () => process.stdout.write('is up\n'));
