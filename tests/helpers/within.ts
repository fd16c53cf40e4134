/** Polls `check` every 5 ms until it holds; resolves with how long that took, or throws after `ms`. */
export async function within(ms: number, check: () => Promise<boolean>): Promise<number> {
  const started = performance.now();
  while (!(await check())) {
    if (performance.now() - started > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return performance.now() - started;
}
