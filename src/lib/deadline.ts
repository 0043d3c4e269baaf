/**
 * `work`'s value, or `fallback()`'s once `ms` have passed without it (`work` goes on; its late value or failure
 * is dropped). For checks that must answer in time whatever the store or network does: a health probe, a metrics
 * scrape, the saved data of a first message.
 */
export async function orAfter<T>(work: Promise<T>, ms: number, fallback: () => T): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback()), ms);
    timer.unref?.();
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
