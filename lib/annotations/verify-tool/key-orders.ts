/**
 * The same arguments in different top-level key orders, one object per call: a host may
 * re-serialise a call it repeats, so a server that keys on the bytes it received (not on canonical
 * JSON) writes a second row for the "same" call. Call 0 keeps the order given; the next ones are
 * the reverse, then rotations, so with two or more keys no two neighbouring calls share an order.
 */
export function reorderedArguments(
  args: Record<string, unknown>,
  count: number,
): { keyOrder: string[]; value: Record<string, unknown> }[] {
  const keys = Object.keys(args);
  const orders: string[][] = [];
  for (let i = 0; i < count; i++) {
    if (i === 0 || keys.length < 2) orders.push(keys);
    else if (i === 1) orders.push([...keys].reverse());
    else {
      const shift = (i - 1) % keys.length;
      const rotated = [...keys.slice(shift), ...keys.slice(0, shift)];
      orders.push(i % 2 === 0 ? rotated : rotated.reverse());
    }
  }
  return orders.map((keyOrder) => ({
    keyOrder,
    value: Object.fromEntries(keyOrder.map((key) => [key, args[key]])),
  }));
}
