import { createServer } from "node:net";

// Below Linux's ephemeral range (32768–60999): between this probe and the child's own listen, no outgoing
// connection can be given the port, which listen(0)'s pick could be (CI saw EADDRINUSE once, with the
// browser and node tests side by side). Random, so two test processes rarely probe the same one.
const FIRST = 20_000;
const COUNT = 12_000;

/** A port on 127.0.0.1 that nothing listens on now, for a process the test starts to bind. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = FIRST + Math.floor(Math.random() * COUNT);
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port found between ${FIRST} and ${FIRST + COUNT - 1} in 50 tries`);
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}
