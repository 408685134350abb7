/**
 * Calls `step` `total` times at `perSecond`, as an agent acting at that rate would: each turn of the
 * event loop makes the calls that are due, then yields for a millisecond. Resolves to the elapsed ms.
 */
export async function runPaced(
  total: number,
  perSecond: number,
  step: (index: number) => void,
): Promise<number> {
  const started = performance.now();
  let index = 0;
  while (index < total) {
    const due = Math.min(total, Math.floor(((performance.now() - started) * perSecond) / 1000) + 1);
    for (; index < due; index++) step(index);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  return performance.now() - started;
}
