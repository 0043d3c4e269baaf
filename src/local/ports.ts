import { createServer } from 'node:net';

/** Whether `port` can be bound on `host` now (a port may still be taken a moment later; callers handle that). */
export function isPortFree(port: number, host: string): Promise<boolean> {
  if (port === 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

export function isAddressInUse(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | null)?.code === 'EADDRINUSE';
}

/**
 * Starts something on `preferred`; when that port is taken, on a free one instead. `fellBack` says which
 * happened, so start-up can tell the person.
 */
export async function startOnPortOrFree<T>(
  preferred: number,
  start: (port: number) => Promise<T>,
): Promise<{ value: T; fellBack: boolean }> {
  try {
    return { value: await start(preferred), fellBack: false };
  } catch (error) {
    if (preferred === 0 || !isAddressInUse(error)) throw error;
    return { value: await start(0), fellBack: true };
  }
}
