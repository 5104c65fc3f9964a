/** Maintenance that runs at start and then at an interval, without keeping the process alive. */
export function runPeriodically(
  what: string,
  intervalMs: number,
  task: () => Promise<unknown>,
  log: (message: string, error: unknown) => void,
): () => void {
  const run = () => {
    task().catch((error) => log(`${what} failed`, error));
  };
  run();
  const timer = setInterval(run, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
