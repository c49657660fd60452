import { performance } from "node:perf_hooks";
import type { ApiRequest, BenchCase } from "./bench-cases";

export type ApiSideResult = { samples: number[]; responseBytes: number };

/**
 * The API side of a case: the same operation over HTTP against the production server, with a
 * bearer token, one request at a time on a kept-alive connection; a run is request sent to the
 * whole body read. Anything but a 200 stops the case with the server's answer.
 */
export async function measureApiSide(
  benchCase: BenchCase,
  server: { baseUrl: string; authorization: string },
  options: { iterations: number; warmup: number; firstInput: number },
): Promise<ApiSideResult> {
  const { iterations, warmup, firstInput } = options;
  const inputs = benchCase.fresh ? benchCase.inputs.slice(firstInput) : benchCase.inputs;
  if (inputs.length === 0 || (benchCase.fresh && inputs.length < warmup + iterations)) {
    throw new Error(`${benchCase.name}: ${inputs.length} inputs left for the API side, ${warmup + iterations} needed`);
  }
  const samples: number[] = [];
  let responseBytes = 0;
  for (let k = 0; k < warmup + iterations; k += 1) {
    const { elapsed, body } = await timeRequest(benchCase.name, server, benchCase.api(inputs[k % inputs.length]!));
    if (k >= warmup) samples.push(elapsed);
    responseBytes = Buffer.byteLength(body);
  }
  return { samples, responseBytes };
}

/** One request, sent to the whole body read; anything but a 200 throws with the server's answer. */
export async function timeRequest(
  name: string,
  server: { baseUrl: string; authorization: string },
  request: ApiRequest,
): Promise<{ elapsed: number; body: string }> {
  const started = performance.now();
  const { status, body } = await send(server, request);
  const elapsed = performance.now() - started;
  if (status !== 200)
    throw new Error(`${name}: ${request.method} ${request.path} answered ${status}: ${body.slice(0, 300)}`);
  return { elapsed, body };
}

async function send(
  server: { baseUrl: string; authorization: string },
  request: ApiRequest,
): Promise<{ status: number; body: string }> {
  const response = await fetch(`${server.baseUrl}${request.path}`, {
    method: request.method,
    headers: {
      authorization: server.authorization,
      ...(request.body !== undefined ? { "content-type": "application/json" } : {}),
    },
    body: request.body !== undefined ? JSON.stringify(request.body) : undefined,
  });
  return { status: response.status, body: await response.text() };
}
