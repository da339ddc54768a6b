/**
 * How many turns the event loop gave other work while `work` ran: a chain of setImmediate
 * callbacks counts them. Work that never yields lets the chain run at most once.
 */
export async function withLoopTurns<T>(work: () => Promise<T>): Promise<{ result: T; turns: number }> {
  let turns = 0;
  let done = false;
  const tick = (): void => {
    turns += 1;
    if (!done) setImmediate(tick);
  };
  setImmediate(tick);
  try {
    const result = await work();
    return { result, turns };
  } finally {
    done = true;
  }
}
