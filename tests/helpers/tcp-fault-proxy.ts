import net from "node:net";

export type FaultMode = "pass" | "refuse" | "blackhole";

export type TcpFaultProxy = {
  port: number;
  /** Connections accepted since start (black-holed ones included). */
  accepted(): number;
  /** Forward again; black-holed connections are dropped, stalled ones resume. */
  pass(): Promise<void>;
  /** Stop listening (new connections: ECONNREFUSED) and reset every open connection. */
  refuse(): Promise<void>;
  /** Accept and never answer; open connections stop carrying bytes either way (a hung server or network). */
  blackhole(): Promise<void>;
  /** A database restart as a client sees it: every connection reset, refused for `downMs`, then forwarding. */
  restart(downMs?: number): Promise<void>;
  close(): Promise<void>;
};

type Pair = { client: net.Socket; upstream: net.Socket | null; held: Buffer[][] };

/**
 * A real TCP proxy in front of a PostgreSQL server that can pass, refuse, black-hole and restart,
 * so a console can be faulted without touching the server others share.
 */
export async function startTcpFaultProxy(target: { host: string; port: number }, port = 0): Promise<TcpFaultProxy> {
  let mode: FaultMode = "pass";
  let accepted = 0;
  const pairs = new Set<Pair>();

  const onConnection = (client: net.Socket) => {
    accepted += 1;
    const pair: Pair = { client, upstream: null, held: [[], []] };
    pairs.add(pair);
    const forget = () => {
      pairs.delete(pair);
      client.destroy();
      pair.upstream?.destroy();
    };
    client.on("error", forget);
    client.on("close", forget);
    if (mode === "blackhole") {
      // Accepted, read and never answered: the client's connect timeout is all that ends it.
      client.on("data", () => {});
      return;
    }
    const upstream = net.connect(target.port, target.host);
    pair.upstream = upstream;
    upstream.on("error", forget);
    upstream.on("close", forget);
    // While black-holed, bytes are held, not lost: a connection that outlives the stall resumes intact.
    client.on("data", (chunk: Buffer) => (mode === "blackhole" ? pair.held[0]!.push(chunk) : upstream.write(chunk)));
    upstream.on("data", (chunk: Buffer) => (mode === "blackhole" ? pair.held[1]!.push(chunk) : client.write(chunk)));
  };

  let server = net.createServer(onConnection);
  const listen = (p: number) =>
    new Promise<number>((resolve, reject) => {
      server = net.createServer(onConnection);
      server.once("error", reject);
      server.listen(p, "127.0.0.1", () => resolve((server.address() as net.AddressInfo).port));
    });
  const stopListening = () =>
    new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
  const resetAll = () => {
    for (const pair of [...pairs]) {
      pair.client.resetAndDestroy();
      pair.upstream?.resetAndDestroy();
      pairs.delete(pair);
    }
  };
  const boundPort = await listen(port);

  const proxy: TcpFaultProxy = {
    port: boundPort,
    accepted: () => accepted,
    async pass() {
      if (!server.listening) await listen(boundPort);
      mode = "pass";
      for (const pair of [...pairs]) {
        if (!pair.upstream) {
          pair.client.destroy(); // black-holed before it reached the server: nothing to resume
          pairs.delete(pair);
          continue;
        }
        for (const chunk of pair.held[0]!.splice(0)) pair.upstream.write(chunk);
        for (const chunk of pair.held[1]!.splice(0)) pair.client.write(chunk);
      }
    },
    async refuse() {
      mode = "refuse";
      await Promise.all([stopListening(), Promise.resolve(resetAll())]);
    },
    async blackhole() {
      if (!server.listening) await listen(boundPort);
      mode = "blackhole";
    },
    async restart(downMs = 1_000) {
      await proxy.refuse();
      await new Promise((r) => setTimeout(r, downMs));
      await proxy.pass();
    },
    async close() {
      resetAll();
      await stopListening();
    },
  };
  return proxy;
}
