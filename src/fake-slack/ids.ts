import { randomBytes, randomInt } from 'node:crypto';

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** A Slack-style id: a prefix letter and uppercase letters and digits (`V04AB12CD3`). */
export function slackId(prefix: string, length = 10): string {
  let id = prefix;
  while (id.length < length) id += ID_ALPHABET[randomInt(ID_ALPHABET.length)];
  return id;
}

export function randomHex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

/** Digits only, like the numeric parts of trigger ids and tokens. */
export function randomDigits(length: number): string {
  let digits = String(randomInt(1, 10));
  while (digits.length < length) digits += String(randomInt(10));
  return digits;
}

/**
 * Message timestamps as Slack makes them: `seconds.micros`, unique and increasing within a workspace
 * (here: within the fake), even when the clock stands still.
 */
export class TsClock {
  private lastMicros = 0;

  constructor(private readonly now: () => number) {}

  next(): string {
    this.lastMicros = Math.max(Math.floor(this.now() * 1000), this.lastMicros + 1);
    const seconds = Math.floor(this.lastMicros / 1_000_000);
    const micros = this.lastMicros % 1_000_000;
    return `${seconds}.${String(micros).padStart(6, '0')}`;
  }
}

/** `132456.7890123.abcdef...`, the format views.open checks before anything else. */
export const TRIGGER_ID_FORMAT = /^\d+\.\d+\.[0-9a-f]+$/;

export function newTriggerIdString(): string {
  return `${randomDigits(13)}.${randomDigits(12)}.${randomHex(16)}`;
}
