/**
 * The words a record's answer uses for its tool, read from the tool's name alone
 * (charge_card → "Charged", create_shipment → "Shipment created"): the table records nothing else
 * about what a tool does. A name that does not start with a known verb gets generic words.
 */
export type ToolWording = {
  /** "Charged", "Shipment created", "The tool_x call completed". */
  done: string;
  /** "Not charged", "Shipment not created", "The tool_x call was not performed". */
  notDone: string;
  /** "the charge", "the shipment", "the call". */
  thing: string;
  /** The label of the id a success carries: "receipt" for money, else "id". */
  idLabel: string;
  money: boolean;
};

// Verbs whose object is money: the sentence names the act alone ("Charged once"), as support says it.
const MONEY: Record<string, { past: string; thing: string }> = {
  charge: { past: "charged", thing: "the charge" },
  refund: { past: "refunded", thing: "the refund" },
  pay: { past: "paid", thing: "the payment" },
  capture: { past: "captured", thing: "the capture" },
  transfer: { past: "transferred", thing: "the transfer" },
  payout: { past: "paid out", thing: "the payout" },
};

const PAST: Record<string, string> = {
  create: "created",
  send: "sent",
  make: "made",
  place: "placed",
  submit: "submitted",
  start: "started",
  issue: "issued",
  book: "booked",
  cancel: "cancelled",
  reserve: "reserved",
  schedule: "scheduled",
  post: "posted",
  publish: "published",
  ship: "shipped",
  order: "ordered",
  register: "registered",
  open: "opened",
  close: "closed",
  update: "updated",
  delete: "deleted",
};

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export function toolWording(tool: string | null): ToolWording {
  if (tool === null)
    return { done: "Completed", notDone: "Not performed", thing: "the call", idLabel: "id", money: false };
  const [verb = "", ...rest] = tool.toLowerCase().split(/[_\-.\s]+/);
  const money = MONEY[verb];
  if (money)
    return {
      done: capitalized(money.past),
      notDone: `Not ${money.past}`,
      thing: money.thing,
      idLabel: "receipt",
      money: true,
    };
  const past = PAST[verb];
  if (past && rest.length > 0) {
    const noun = rest.join(" ");
    return {
      done: `${capitalized(noun)} ${past}`,
      notDone: `${capitalized(noun)} not ${past}`,
      thing: `the ${noun}`,
      idLabel: "id",
      money: false,
    };
  }
  return {
    done: `The ${tool} call completed`,
    notDone: `The ${tool} call was not performed`,
    thing: `the ${tool} call`,
    idLabel: "id",
    money: false,
  };
}
