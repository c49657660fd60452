import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type HangingProcessor = {
  url: string;
  /** From now on, every question waits `ms` before it is answered (the console's outbound timeout answers first). */
  hang(ms: number): void;
  hanging(): boolean;
  counts(): { answered: number; hung: number };
  stop(): Promise<void>;
};

/**
 * The processor the console asks about a stuck claim (GET /references/<key>), as the bench's
 * answers it — "succeeded", with a receipt — except while hanging: then it holds each request
 * without a byte of answer until the hang ends, as a processor with a stalled backend does.
 */
export async function startHangingProcessor(): Promise<HangingProcessor> {
  let hangUntil = 0;
  let answered = 0;
  let hung = 0;
  const held = new Set<ServerResponse>();
  const server = createServer((request, response) => {
    const match = /^\/references\/([^/?]+)$/.exec(request.url ?? "");
    const answer = () => {
      held.delete(response);
      if (response.destroyed) return;
      response.setHeader("content-type", "application/json");
      if (!match) return void response.writeHead(404).end(JSON.stringify({ error: "not found" }));
      answered += 1;
      response.end(
        JSON.stringify({
          status: "succeeded",
          receipt: { id: `ch_soak_${match[1]!.slice(0, 12)}`, status: "succeeded" },
        }),
      );
    };
    const wait = hangUntil - Date.now();
    if (wait <= 0) return answer();
    hung += 1;
    held.add(response);
    setTimeout(answer, wait).unref();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hang(ms) {
      hangUntil = Date.now() + ms;
    },
    hanging: () => Date.now() < hangUntil,
    counts: () => ({ answered, hung }),
    async stop() {
      for (const response of held) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
