// A mockttp 4 server answering GET <path> with a fixed body (bench/peers.ts starts it as a child
// process): node mockttp-peer.mjs <port> <path> <body file> <content-type>. Prints "ready" once it listens.
import { readFileSync } from "node:fs";
import { getLocal } from "mockttp";

const [port, path, bodyFile, contentType] = process.argv.slice(2);
const server = getLocal();
await server.start(Number(port));
await server.forGet(path).thenReply(200, readFileSync(bodyFile), { "content-type": contentType });
console.log("ready");
