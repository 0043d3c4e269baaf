import { readFileSync } from 'node:fs';
import { percentile, percentileRatioInterval, ratio } from './measure.js';
import { seededRandom } from './workload.js';

/**
 * The steady ack p99 of the bot over the bare Bolt app's, pooled over several bench runs. One run's p99 rests on
 * its few slowest acks (the 4th of 405 at 8×), which a single GC pause or a burst of the machine's other work
 * decides: runs back to back on a quiet machine gave 0.86× to 1.90×. Pooling the acks of N runs, each with both
 * configurations in alternating order (`--only=built-1,bare`, then `--only=bare,built-1`, …), puts N times as many
 * acks under the p99 and cancels the machine's drift between the two halves of a run.
 *
 *   npx tsx bench/pool-acks.ts bench/results/<run>.json …   [--config=built-1]
 */

interface RunFile {
  startedAt: string;
  configs: { name: string; totals: { ackSamples: number[]; ack: { p99: number | null } } }[];
}

const args = process.argv.slice(2);
const name = args.find((a) => a.startsWith('--config='))?.slice('--config='.length) ?? 'built-1';
const files = args.filter((a) => !a.startsWith('--'));
if (files.length === 0) {
  process.stderr.write('usage: tsx bench/pool-acks.ts RESULT.json … [--config=built-1]\n');
  process.exit(2);
}
const bot: number[] = [];
const bare: number[] = [];
const lines: string[] = [];
for (const file of files) {
  const run = JSON.parse(readFileSync(file, 'utf8')) as RunFile;
  const mine = run.configs.find((c) => c.name === name);
  const base = run.configs.find((c) => c.name === 'bare');
  if (!mine || !base) throw new Error(`${file}: needs both ${name} and bare`);
  bot.push(...mine.totals.ackSamples);
  bare.push(...base.totals.ackSamples);
  const order = run.configs.map((c) => c.name).join(' then ');
  const r = ratio(mine.totals.ack.p99, base.totals.ack.p99);
  lines.push(
    `| ${run.startedAt} | ${order} | ${mine.totals.ack.p99?.toFixed(1)} / ${base.totals.ack.p99?.toFixed(1)} ms | ${r?.toFixed(2) ?? '–'}× |`,
  );
}
const p99Bot = percentile(bot, 99);
const p99Bare = percentile(bare, 99);
const pooled = ratio(p99Bot, p99Bare);
const interval = percentileRatioInterval(bot, bare, 99, seededRandom(99));
process.stdout.write(
  [
    `| run | order | ack p99 ${name} / bare | ratio |`,
    '|---|---|---|---|',
    ...lines,
    `| **pooled, ${files.length} runs** | ${bot.length} and ${bare.length} acks | ${p99Bot?.toFixed(1)} / ${p99Bare?.toFixed(1)} ms | **${pooled?.toFixed(2) ?? '–'}×** (95 % ${interval?.low.toFixed(2) ?? '–'}–${interval?.high.toFixed(2) ?? '–'}) |`,
    '',
  ].join('\n'),
);
