import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { errFields, type Logger } from '../lib/logger.js';
import type { KeyValue } from './kv.js';

/**
 * The store of local mode: the KeyValue contract kept in memory and saved to one JSON file, so links, tokens and
 * subscriptions survive a restart. It is for ONE process: two processes on the same file would overwrite each
 * other's writes (replicas need Redis).
 *
 * Writes are debounced (a burst of changes is one write) and atomic (a temp file renamed over the old one, so a
 * crash leaves either the old or the new file, never half of one); `close()` writes what is pending. Expiry times
 * are wall-clock epoch ms, so a TTL keeps running while the process is down and expired keys are gone on reopen.
 */

type Entry =
  | { kind: 'string'; value: string; expiresAt: number | null }
  | { kind: 'hash'; fields: Record<string, string>; expiresAt: number | null }
  | { kind: 'zset'; members: Record<string, number>; expiresAt: number | null };

interface FileShape {
  version: 1;
  savedAt: number;
  entries: [string, Entry][];
}

export interface EmbeddedKeyValueOptions {
  /** The JSON file; its folder is created when missing. */
  file: string;
  /** Delay between a change and the write that saves it (default 250 ms). */
  flushDelayMs?: number;
  /** How often expired keys are swept from memory (default 60 s). */
  sweepIntervalMs?: number;
  /** Wall clock in ms (default Date.now). */
  now?: () => number;
  logger?: Logger;
}

export class StoreTypeError extends Error {
  override readonly name = 'StoreTypeError';
  readonly code = 'WRONGTYPE';
  constructor(key: string, want: Entry['kind']) {
    super(`WRONGTYPE key ${key} does not hold a ${want}`);
  }
}

export class EmbeddedKeyValue implements KeyValue {
  private readonly entries = new Map<string, Entry>();
  private readonly now: () => number;
  private readonly flushDelayMs: number;
  private flushTimer: NodeJS.Timeout | null = null;
  private readonly sweepTimer: NodeJS.Timeout;
  private dirty = false;
  /** The write in progress; the next one starts after it. */
  private writing: Promise<void> = Promise.resolve();
  private closed = false;
  private tempSequence = 0;

  private constructor(private readonly options: EmbeddedKeyValueOptions) {
    this.now = options.now ?? Date.now;
    this.flushDelayMs = options.flushDelayMs ?? 250;
    this.sweepTimer = setInterval(() => this.sweep(), options.sweepIntervalMs ?? 60_000);
    this.sweepTimer.unref();
  }

  /** Opens the store, reading the file when it exists. A file that cannot be read is set aside, not lost. */
  static async open(options: EmbeddedKeyValueOptions): Promise<EmbeddedKeyValue> {
    await mkdir(dirname(options.file), { recursive: true });
    const store = new EmbeddedKeyValue(options);
    await store.load();
    return store;
  }

  get file(): string {
    return this.options.file;
  }

  async get(key: string): Promise<string | null> {
    const entry = this.live(key);
    if (entry === undefined) return null;
    if (entry.kind !== 'string') throw new StoreTypeError(key, 'string');
    return entry.value;
  }

  async getMany(keys: readonly string[]): Promise<(string | null)[]> {
    // As MGET: a key that holds a hash or a sorted set reads as absent, never an error.
    return keys.map((key) => {
      const entry = this.live(key);
      return entry?.kind === 'string' ? entry.value : null;
    });
  }

  async set(
    key: string,
    value: string,
    options: { ttlMs?: number; onlyIfAbsent?: boolean } = {},
  ): Promise<boolean> {
    if (options.onlyIfAbsent && this.live(key) !== undefined) return false;
    const expiresAt =
      options.ttlMs === undefined ? null : this.now() + Math.max(1, Math.round(options.ttlMs));
    this.entries.set(key, { kind: 'string', value, expiresAt });
    this.changed();
    return true;
  }

  async setMany(entries: Record<string, string>, options: { ttlMs: number }): Promise<void> {
    const pairs = Object.entries(entries);
    if (pairs.length === 0) return;
    const expiresAt = this.now() + Math.max(1, Math.round(options.ttlMs));
    for (const [key, value] of pairs) this.entries.set(key, { kind: 'string', value, expiresAt });
    this.changed();
  }

  async del(...keys: string[]): Promise<number> {
    let deleted = 0;
    for (const key of new Set(keys)) {
      if (this.live(key) !== undefined) deleted += 1;
      this.entries.delete(key);
    }
    if (deleted > 0) this.changed();
    return deleted;
  }

  async exists(...keys: string[]): Promise<number> {
    // Like Redis, a key named twice counts twice.
    return keys.filter((key) => this.live(key) !== undefined).length;
  }

  async delIfEquals(key: string, value: string): Promise<boolean> {
    const entry = this.live(key);
    if (entry?.kind !== 'string' || entry.value !== value) return false;
    this.entries.delete(key);
    this.changed();
    return true;
  }

  async replaceIfEquals(key: string, expected: string, value: string): Promise<boolean> {
    const entry = this.live(key);
    if (entry?.kind !== 'string' || entry.value !== expected) return false;
    entry.value = value;
    this.changed();
    return true;
  }

  async incr(key: string, options: { ttlMs: number }): Promise<number> {
    const entry = this.live(key);
    if (entry !== undefined && entry.kind !== 'string') throw new StoreTypeError(key, 'string');
    const current = entry?.value ?? '0';
    if (!/^-?\d+$/.test(current)) throw new Error('ERR value is not an integer or out of range');
    const next = Number(current) + 1;
    this.entries.set(key, {
      kind: 'string',
      value: String(next),
      expiresAt: this.now() + Math.max(1, Math.round(options.ttlMs)),
    });
    this.changed();
    return next;
  }

  async setIfUnchanged(
    key: string,
    value: string,
    options: { ttlMs: number; tail: string | null },
  ): Promise<boolean> {
    const current = this.live(key);
    const unchanged =
      current === undefined ||
      (options.tail !== null &&
        options.tail !== '' &&
        current.kind === 'string' &&
        current.value.endsWith(options.tail));
    if (!unchanged) return false;
    return this.set(key, value, { ttlMs: options.ttlMs });
  }

  async expireIfEquals(key: string, value: string, ttlMs: number): Promise<boolean> {
    const entry = this.live(key);
    if (entry?.kind !== 'string' || entry.value !== value) return false;
    entry.expiresAt = this.now() + Math.max(1, Math.round(ttlMs));
    this.changed();
    return true;
  }

  async hget(key: string, field: string): Promise<string | null> {
    return this.hash(key)?.fields[field] ?? null;
  }

  async hgetMany(key: string, fields: readonly string[]): Promise<(string | null)[]> {
    const hash = this.hash(key)?.fields;
    return fields.map((field) => hash?.[field] ?? null);
  }

  async hset(key: string, field: string, value: string): Promise<void> {
    this.hashForWrite(key).fields[field] = value;
    this.changed();
  }

  async hsetIfEquals(key: string, field: string, expected: string | null, value: string): Promise<boolean> {
    const fields = this.hash(key)?.fields;
    const current = fields !== undefined && Object.hasOwn(fields, field) ? (fields[field] ?? null) : null;
    if (current !== expected) return false;
    this.hashForWrite(key).fields[field] = value;
    this.changed();
    return true;
  }

  async hsetMany(key: string, fields: Record<string, string>): Promise<void> {
    const entries = Object.entries(fields);
    if (entries.length === 0) return;
    const hash = this.hashForWrite(key).fields;
    for (const [field, value] of entries) hash[field] = value;
    this.changed();
  }

  async hdel(key: string, ...fields: string[]): Promise<number> {
    const entry = this.hash(key);
    if (entry === undefined) return 0;
    let deleted = 0;
    for (const field of new Set(fields)) {
      if (!Object.hasOwn(entry.fields, field)) continue;
      delete entry.fields[field];
      deleted += 1;
    }
    if (deleted === 0) return 0;
    // Like Redis, a hash without fields does not exist.
    if (Object.keys(entry.fields).length === 0) this.entries.delete(key);
    this.changed();
    return deleted;
  }

  async hgetall(key: string): Promise<Record<string, string>> {
    return { ...(this.hash(key)?.fields ?? {}) };
  }

  async hincrby(key: string, field: string, by: number): Promise<number> {
    const entry = this.hashForWrite(key);
    const current = entry.fields[field] ?? '0';
    if (!/^-?\d+$/.test(current)) throw new Error('ERR hash value is not an integer');
    const next = Number(current) + by;
    entry.fields[field] = String(next);
    this.changed();
    return next;
  }

  async zadd(key: string, member: string, score: number, mode?: 'nx' | 'xx'): Promise<void> {
    const present = Object.hasOwn(this.zset(key)?.members ?? {}, member);
    if ((mode === 'nx' && present) || (mode === 'xx' && !present)) return;
    let entry = this.zset(key);
    if (entry === undefined) {
      entry = { kind: 'zset', members: {}, expiresAt: null };
      this.entries.set(key, entry);
    }
    entry.members[member] = score;
    this.changed();
  }

  async zrem(key: string, member: string): Promise<void> {
    const entry = this.zset(key);
    if (entry === undefined || !Object.hasOwn(entry.members, member)) return;
    delete entry.members[member];
    // Like Redis, a sorted set without members does not exist.
    if (Object.keys(entry.members).length === 0) this.entries.delete(key);
    this.changed();
  }

  async zrangeByScore(
    key: string,
    max: number,
    limit?: number,
    offset = 0,
  ): Promise<{ member: string; score: number }[]> {
    // Redis orders equal scores by member, bytewise.
    return Object.entries(this.zset(key)?.members ?? {})
      .filter(([, score]) => score <= max)
      .sort(([a, x], [b, y]) => x - y || (a < b ? -1 : a > b ? 1 : 0))
      .slice(offset, offset + (limit ?? Number.POSITIVE_INFINITY))
      .map(([member, score]) => ({ member, score }));
  }

  async keysWithPrefix(prefix: string): Promise<string[]> {
    const found: string[] = [];
    for (const key of this.entries.keys()) {
      if (key.startsWith(prefix) && this.live(key) !== undefined) found.push(key);
    }
    return found;
  }

  async ping(): Promise<boolean> {
    return !this.closed;
  }

  /** Writes pending changes now. */
  async flush(): Promise<void> {
    if (this.flushTimer) {
      clearTimeout(this.flushTimer);
      this.flushTimer = null;
    }
    if (!this.dirty) return this.writing;
    this.dirty = false;
    const snapshot = this.serialize();
    const write = this.writing.then(() => this.writeFile(snapshot));
    this.writing = write.catch((error: unknown) => {
      // Kept in memory and tried again with the next change.
      this.dirty = true;
      this.options.logger?.error(
        { ...errFields(error), file: this.options.file },
        'embedded store: could not write its file',
      );
    });
    return this.writing;
  }

  /** Writes what is pending and stops the timers. Later calls are refused by ping(); data calls still work. */
  async close(): Promise<void> {
    clearInterval(this.sweepTimer);
    await this.flush();
    this.closed = true;
  }

  private live(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt !== null && entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      this.changed();
      return undefined;
    }
    return entry;
  }

  private hash(key: string): Extract<Entry, { kind: 'hash' }> | undefined {
    const entry = this.live(key);
    if (entry === undefined) return undefined;
    if (entry.kind !== 'hash') throw new StoreTypeError(key, 'hash');
    return entry;
  }

  private zset(key: string): Extract<Entry, { kind: 'zset' }> | undefined {
    const entry = this.live(key);
    if (entry === undefined) return undefined;
    if (entry.kind !== 'zset') throw new StoreTypeError(key, 'zset');
    return entry;
  }

  /** The hash at key, created when missing; an existing hash keeps its TTL (as HSET does). */
  private hashForWrite(key: string): Extract<Entry, { kind: 'hash' }> {
    const existing = this.hash(key);
    if (existing) return existing;
    const created: Entry = { kind: 'hash', fields: {}, expiresAt: null };
    this.entries.set(key, created);
    return created;
  }

  private sweep(): void {
    for (const key of [...this.entries.keys()]) this.live(key);
  }

  private changed(): void {
    this.dirty = true;
    if (this.flushTimer || this.closed) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = null;
      void this.flush();
    }, this.flushDelayMs);
    this.flushTimer.unref();
  }

  private serialize(): string {
    const now = this.now();
    const entries: [string, Entry][] = [];
    for (const [key, entry] of this.entries) {
      if (entry.expiresAt === null || entry.expiresAt > now) entries.push([key, entry]);
    }
    const shape: FileShape = { version: 1, savedAt: now, entries };
    return JSON.stringify(shape);
  }

  private async writeFile(contents: string): Promise<void> {
    this.tempSequence += 1;
    const temp = `${this.options.file}.${process.pid}.${this.tempSequence}.tmp`;
    try {
      // 0600: the file holds sealed credentials and tokens; nobody else on the machine needs to read it.
      await writeFile(temp, contents, { mode: 0o600 });
      await rename(temp, this.options.file);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  }

  private async load(): Promise<void> {
    let raw: string;
    try {
      raw = await readFile(this.options.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    let shape: FileShape;
    try {
      shape = parseFile(raw);
    } catch (error) {
      const aside = `${this.options.file}.unreadable-${this.now()}`;
      await rename(this.options.file, aside);
      this.options.logger?.warn(
        {
          file: this.options.file,
          setAside: aside,
          ...errFields(error),
        },
        'embedded store: unreadable file set aside; starting empty',
      );
      return;
    }
    const now = this.now();
    for (const [key, entry] of shape.entries) {
      if (entry.expiresAt === null || entry.expiresAt > now) this.entries.set(key, entry);
    }
  }
}

function parseFile(raw: string): FileShape {
  const parsed = JSON.parse(raw) as Partial<FileShape> | null;
  if (parsed?.version !== 1 || !Array.isArray(parsed.entries)) throw new Error('not an embedded store file');
  for (const item of parsed.entries) {
    const entry = Array.isArray(item) ? (item[1] as Partial<Entry> | undefined) : undefined;
    const validKind =
      (entry?.kind === 'string' && typeof entry.value === 'string') ||
      (entry?.kind === 'hash' && typeof entry.fields === 'object' && entry.fields !== null) ||
      (entry?.kind === 'zset' && typeof entry.members === 'object' && entry.members !== null);
    if (typeof item[0] !== 'string' || !validKind) throw new Error('malformed entry');
    if (entry?.expiresAt !== null && typeof entry?.expiresAt !== 'number')
      throw new Error('malformed expiry');
  }
  return parsed as FileShape;
}
