import { optionalString, requiredString } from "./body-fields";
import { newId, newTrackingNumber } from "./ids";
import { HttpError, errorReply } from "./json-http";
import { runMutation } from "./mutation";
import type { Outcome } from "./reference-ledger";
import { startUpstream } from "./upstream-server";
import type { DemoUpstream, DemoUpstreamOptions } from "./upstream-types";

/** An address containing this word is refused (422 address_undeliverable, recorded as "failed"). */
export const UNDELIVERABLE_MARKER = "undeliverable";

export interface Shipment {
  id: string;
  status: "created";
  tracking_number: string;
  order_id: string;
  address: string | Record<string, unknown>;
  service_level: string;
  reference: string | null;
  created_at: string;
}

interface ShipmentRequest {
  order_id: string;
  address: string | Record<string, unknown>;
  service_level: string;
  reference: string | undefined;
}

function parseAddress(body: Record<string, unknown>): string | Record<string, unknown> {
  const { address } = body;
  if (typeof address === "object" && address !== null && !Array.isArray(address) && Object.keys(address).length > 0) {
    return address as Record<string, unknown>;
  }
  return requiredString(body, "address", 1000);
}

function parseShipment(body: Record<string, unknown>): ShipmentRequest {
  return {
    order_id: requiredString(body, "order_id"),
    address: parseAddress(body),
    service_level: requiredString(body, "service_level", 40),
    reference: optionalString(body, "reference", 255),
  };
}

/**
 * The demo shipping carrier. Honours `reference` when given, but — like many real carrier APIs —
 * creates a new shipment on every POST without one: the non-idempotent create_shipment upstream.
 */
export function startDemoCarrier(options: DemoUpstreamOptions = {}): Promise<DemoUpstream> {
  const shipments: Shipment[] = [];

  function ship(request: ShipmentRequest, at: Date): Outcome {
    const reference = request.reference ?? null;
    if (JSON.stringify(request.address).toLowerCase().includes(UNDELIVERABLE_MARKER)) {
      const refusal = errorReply(422, "address_undeliverable", "the carrier does not deliver to this address");
      return { status: "failed", reply: refusal, receipt: { ...(refusal.body as object), reference } };
    }
    const created: Shipment = {
      id: newId("shp"),
      status: "created",
      tracking_number: newTrackingNumber(),
      order_id: request.order_id,
      address: request.address,
      service_level: request.service_level,
      reference,
      created_at: at.toISOString(),
    };
    shipments.push(created);
    return { status: "succeeded", reply: { status: 201, body: created }, receipt: created };
  }

  return startUpstream(
    {
      name: "demo carrier",
      resetState: () => {
        shipments.length = 0;
      },
      routes: [
        {
          method: "POST",
          path: "/shipments",
          kind: "mutation",
          handle: (context) =>
            runMutation(context, {
              parse: parseShipment,
              reference: (r) => r.reference,
              perform: (r, _ref, at) => ship(r, at),
            }),
        },
        {
          method: "GET",
          path: "/shipments",
          kind: "query",
          handle: ({ query }) => {
            // Without order_id every shipment is listed: duplicates across orders are visible too.
            const orderId = query.get("order_id");
            if (orderId === "") throw new HttpError(400, "invalid_request", "order_id: expected a non-empty value");
            const found = orderId === null ? shipments : shipments.filter((s) => s.order_id === orderId);
            return { status: 200, body: { shipments: found } };
          },
        },
      ],
    },
    options,
  );
}
