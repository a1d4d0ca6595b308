'use strict';
// boardgame.io 0.50.2 serving IceCream (./game.js) on loopback, for Parlour's benchmark:
//
//   node server.js --port 8123 [--storage memory|flatfile] [--dir /tmp/folder]
//
// `memory` is boardgame.io's default InMemory storage (lost on restart; it never deletes a match),
// `flatfile` its durable FlatFile storage (node-persist files in --dir). One Node process serves the
// lobby API (POST /games/icecream/create, /games/icecream/{matchID}/join) and the socket.io transport
// the boardgame.io client speaks. NODE_ENV=production, as a deployment runs it (no INFO log lines).
// Prints one JSON line {"pid", "port", "storage"} once it listens.

process.env.NODE_ENV = process.env.NODE_ENV || 'production'; // read by boardgame.io's logger as it loads
delete process.env.FLATFILE_DIR; // the storage is chosen here, not by boardgame.io's DBFromEnv

const { Server, FlatFile } = require('boardgame.io/server');
const { IceCream } = require('./game');

function option(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 && at + 1 < process.argv.length ? process.argv[at + 1] : fallback;
}

const port = Number(option('port', '0'));
const storage = option('storage', 'memory');
if (!Number.isInteger(port) || port < 0 || !['memory', 'flatfile'].includes(storage)) {
  console.error('usage: node server.js --port N [--storage memory|flatfile] [--dir FOLDER]');
  process.exit(2);
}
const dir = option('dir', null);
if (storage === 'flatfile' && !dir) {
  console.error('--storage flatfile needs --dir FOLDER');
  process.exit(2);
}

const db = storage === 'flatfile' ? new FlatFile({ dir, logging: false, ttl: false }) : undefined; // undefined: InMemory
const server = Server({ games: [IceCream], db, origins: [] }); // no browser origin: the benchmark's clients send none

// Server.run listens on every interface; the benchmark's server listens on loopback only.
const listen = server.app.listen;
server.app.listen = (listenPort, callback) => listen(listenPort, '127.0.0.1', callback);

server.run(port).then(({ appServer }) => {
  const line = { pid: process.pid, port: appServer.address().port, storage };
  process.stdout.write(JSON.stringify(line) + '\n');
});

for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(0));
