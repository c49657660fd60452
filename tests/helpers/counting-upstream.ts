import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

export type CountingUpstream = {
  url: string;
  /** Charges taken, in order: the counter is the assertion. */
  charges: { idempotencyKey: string | undefined; body: unknown }[];
  close(): Promise<void>;
};

async function readBody(request: IncomingMessage): Promise<string> {
  let text = "";
  for await (const chunk of request) text += String(chunk);
  return text;
}

/**
 * A payment processor stand-in, a real HTTP server on loopback: `POST /charges` sleeps, counts the
 * charge it takes and answers a receipt.
 */
export async function startCountingUpstream(options: { delayMs: number }): Promise<CountingUpstream> {
  const charges: CountingUpstream["charges"] = [];
  const server = createServer(async (request, response) => {
    const text = await readBody(request);
    if (request.method !== "POST" || request.url !== "/charges") {
      response.writeHead(404).end();
      return;
    }
    const key = request.headers["idempotency-key"];
    const idempotencyKey = typeof key === "string" ? key : undefined;
    const body: unknown = JSON.parse(text);
    charges.push({ idempotencyKey, body });
    await new Promise((resolve) => setTimeout(resolve, options.delayMs));
    const receipt = { id: `ch_${charges.length}`, status: "succeeded", reference: idempotencyKey, charged: body };
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(receipt));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    charges,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
