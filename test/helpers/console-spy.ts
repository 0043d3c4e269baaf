import { vi } from 'vitest';

/** What reaches the console or stderr until restore(): nothing should, the log is JSON on stdout. */
export function consoleAndStderr(): { written: string[]; restore(): void } {
  const written: string[] = [];
  const methods = ['log', 'info', 'warn', 'error', 'debug'] as const;
  const spies = methods.map((method) =>
    vi.spyOn(console, method).mockImplementation((...parts: unknown[]) => {
      written.push(`console.${method}: ${parts.map(String).join(' ')}`);
    }),
  );
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: unknown) => {
    written.push(`stderr: ${String(chunk)}`);
    return true;
  });
  return {
    written,
    restore() {
      for (const spy of spies) spy.mockRestore();
      stderr.mockRestore();
    },
  };
}
