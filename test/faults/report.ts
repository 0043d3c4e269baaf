import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { onTestFinished } from 'vitest';

/** One row of the fault matrix's report: the fault, what the user saw, what was kept, and the outcome. */
export interface FaultRow {
  group: string;
  fault: string;
  userSaw: string;
  kept: string;
  /** Numbers measured along the way (ms, counts, bytes), for the report. */
  measured: Record<string, number | string>;
  outcome: 'pass' | 'fail' | 'skip';
  /** The first line of the failure, when it failed. */
  why?: string;
}

const ROOT = join(import.meta.dirname, '..', '..');
export const REPORT_FILE = join(ROOT, 'test-results', 'faults-report.json');

const rows: FaultRow[] = [];

/**
 * A row for the running test; the test fills in what the user saw and what was kept as it learns them, and the
 * outcome is taken from the test's own result when it finishes.
 */
export function row(group: string, fault: string): FaultRow {
  const entry: FaultRow = { group, fault, userSaw: '', kept: '', measured: {}, outcome: 'fail' };
  rows.push(entry);
  onTestFinished(({ task }) => {
    const state = task.result?.state;
    entry.outcome = state === 'pass' ? 'pass' : state === 'skip' ? 'skip' : 'fail';
    const error = task.result?.errors?.[0];
    if (entry.outcome === 'fail' && error) entry.why = String(error.message ?? error).split('\n')[0];
  });
  return entry;
}

/** Written after the file's tests (afterAll), read by `npm run faults` (test/faults/run.ts). */
export function writeReport(): void {
  mkdirSync(dirname(REPORT_FILE), { recursive: true });
  writeFileSync(REPORT_FILE, `${JSON.stringify({ at: new Date().toISOString(), rows }, null, 2)}\n`);
}
