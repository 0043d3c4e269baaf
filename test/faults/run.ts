/**
 * `npm run faults`: runs the fault matrix (test/faults/fault-matrix.test.ts, against the built bot) and prints its
 * report: each fault, what the user saw, what was kept, pass or fail, and the figures measured. Exits with
 * vitest's code, so a failing case fails the script.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { type FaultRow, REPORT_FILE } from './report.js';

const ROOT = join(import.meta.dirname, '..', '..');

function runMatrix(): Promise<number> {
  const vitest = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
  const child = spawn(
    process.execPath,
    [vitest, 'run', 'test/faults/fault-matrix.test.ts', ...process.argv.slice(2)],
    { cwd: ROOT, stdio: 'inherit' },
  );
  return new Promise((resolve) => child.once('exit', (code) => resolve(code ?? 1)));
}

function wrap(text: string, width: number): string[] {
  const words = text.split(/\s+/).filter(Boolean);
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    if (line !== '' && line.length + word.length + 1 > width) {
      lines.push(line);
      line = '';
    }
    line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(line);
  return lines.length > 0 ? lines : [''];
}

export function formatReport(rows: FaultRow[]): string {
  const out: string[] = [];
  let group = '';
  for (const r of rows) {
    if (r.group !== group) {
      group = r.group;
      out.push('', `== ${group}`);
    }
    const mark = r.outcome === 'pass' ? 'PASS' : r.outcome === 'skip' ? 'SKIP' : 'FAIL';
    out.push(`[${mark}] ${r.fault}`);
    const field = (label: string, text: string) => {
      const [first, ...rest] = wrap(text, 100);
      out.push(`       ${label.padEnd(10)}${first}`);
      for (const more of rest) out.push(`       ${''.padEnd(10)}${more}`);
    };
    field('user saw', r.userSaw || '(not reached)');
    field('kept', r.kept || '(not reached)');
    const measured = Object.entries(r.measured).map(([k, v]) => `${k}=${v}`);
    if (measured.length > 0) field('measured', measured.join(', '));
    if (r.why) field('why', r.why);
  }
  const passed = rows.filter((r) => r.outcome === 'pass').length;
  out.push('', `${passed} of ${rows.length} cases pass.`);
  return out.join('\n');
}

async function main(): Promise<void> {
  rmSync(REPORT_FILE, { force: true });
  const code = await runMatrix();
  if (!existsSync(REPORT_FILE)) {
    process.stderr.write(`\nNo report was written (${REPORT_FILE}): the matrix did not run to its end.\n`);
    process.exit(code === 0 ? 1 : code);
  }
  const { rows } = JSON.parse(readFileSync(REPORT_FILE, 'utf8')) as { rows: FaultRow[] };
  process.stdout.write(`\nFault matrix\n${formatReport(rows)}\n(report: ${REPORT_FILE})\n`);
  process.exit(code);
}

void main();
