// Probe: where node:http's parser (llhttp, reading the socket in C++) reports a method it refuses,
// for a request line split across writes and after a body. Prints, per case, the writes and the
// `clientError`'s `bytesParsed` and `rawPacket` (the read that failed). See bench/README.md.
//
//   node bench/probes/llhttp-method-errors.mjs
import http from "node:http";
import net from "node:net";

const H = " /a HTTP/1.1\r\nHost: x\r\n\r\n";
const POST = "POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n";
const cases = [
  ["LIST" + H],
  ["L", "IST" + H],
  ["LI", "ST" + H],
  ["LIS", "T" + H],
  ["UNLI", "ST" + H],
  ["MK", "ST" + H],
  ["FROB" + H],
  ["GETS" + H],
  ["GET" + H + "LI", "ST" + H],
  [POST + "UN" + "LIST" + H],
  [POST + "UN", "LIST" + H],
  [POST, "UNLIST" + H],
  ["UNLIST" + H],
];
const errors = [];
const server = http.createServer((req, res) => {
  req.resume();
  res.end();
});
server.on("clientError", (error, socket) => {
  errors.push(error);
  socket.destroy();
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const { port } = server.address();
for (const writes of cases) {
  errors.length = 0;
  await new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1", async () => {
      for (const part of writes) {
        socket.write(part);
        await new Promise((r) => setTimeout(r, 40));
      }
      socket.destroy();
      resolve();
    });
    socket.on("data", () => {});
    socket.on("error", () => {});
  });
  const error = errors[0];
  console.log(JSON.stringify(writes.map((w) => w.replace(H, " /a ...").replace(POST, "POST(CL 2) "))), "->", error ? `${error.code} bytesParsed ${error.bytesParsed} rawPacket ${JSON.stringify(error.rawPacket.toString("latin1").replace(H, " /a ...").replace(POST, "POST(CL 2) "))}` : "no error");
}
server.close();
