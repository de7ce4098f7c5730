// Serves the Firestore emulator on loopback and prints `listening 127.0.0.1:<port>` once it
// accepts connections. Usage: node server.js [port]  (0 or nothing: any free port)
"use strict";
const { FirestoreServer } = require("@firestore-emulator/server");
const { ServerCredentials } = require("@grpc/grpc-js");

const requested = Number(process.argv[2] ?? 0);
const emulator = new FirestoreServer();
// FirestoreServer.start binds every interface and hides the port it got; bind loopback here.
emulator.server.bindAsync(`127.0.0.1:${requested}`, ServerCredentials.createInsecure(), (err, port) => {
  if (err) {
    console.error(`the emulator could not listen: ${err.message}`);
    process.exit(1);
  }
  console.log(`listening 127.0.0.1:${port}`);
});
for (const signal of ["SIGTERM", "SIGINT"]) {
  process.on(signal, () => {
    emulator.stop();
    process.exit(0);
  });
}
