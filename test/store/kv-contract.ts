import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KeyValue } from '../../src/store/kv.js';

/** What a contract run needs from one implementation. */
export interface KeyValueUnderTest {
  kv: KeyValue;
  /** Every key a test writes starts with it, so runs against a shared Redis never collide. */
  prefix: string;
  /** Frees what the run holds (keys, connections, files); may be called twice. */
  cleanup(): Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The behaviour every store built on KeyValue relies on; run against Redis and the embedded store alike. */
export function runKeyValueContract(name: string, open: () => Promise<KeyValueUnderTest>): void {
  describe(`${name} key-value store (contract)`, () => {
    let subject: KeyValueUnderTest;
    let kv: KeyValue;
    let k: (name: string) => string;

    beforeEach(async () => {
      subject = await open();
      kv = subject.kv;
      k = (key) => `${subject.prefix}${key}`;
    });
    afterEach(async () => {
      await subject.cleanup();
    });

    it('reads back what it stores, and null for a missing key', async () => {
      expect(await kv.get(k('missing'))).toBeNull();
      expect(await kv.set(k('a'), 'um')).toBe(true);
      expect(await kv.get(k('a'))).toBe('um');
      expect(await kv.set(k('a'), 'dois')).toBe(true);
      expect(await kv.get(k('a'))).toBe('dois');
      const text = 'ação "çedilha" \u{1F4E6}\nlinha 2';
      await kv.set(k('unicode'), text);
      expect(await kv.get(k('unicode'))).toBe(text);
    });

    it('set onlyIfAbsent refuses an existing key and takes an absent or expired one', async () => {
      expect(await kv.set(k('lock'), 'first', { onlyIfAbsent: true })).toBe(true);
      expect(await kv.set(k('lock'), 'second', { onlyIfAbsent: true })).toBe(false);
      expect(await kv.get(k('lock'))).toBe('first');
      await kv.set(k('short'), 'x', { ttlMs: 40, onlyIfAbsent: true });
      await sleep(90);
      expect(await kv.set(k('short'), 'y', { ttlMs: 5_000, onlyIfAbsent: true })).toBe(true);
      expect(await kv.get(k('short'))).toBe('y');
    });

    it('forgets a key after its TTL, and a set without TTL makes it permanent again', async () => {
      await kv.set(k('ttl'), 'v', { ttlMs: 50 });
      expect(await kv.get(k('ttl'))).toBe('v');
      await kv.set(k('kept'), 'v', { ttlMs: 50 });
      await kv.set(k('kept'), 'w');
      await sleep(110);
      expect(await kv.get(k('ttl'))).toBeNull();
      expect(await kv.keysWithPrefix(k('ttl'))).toEqual([]);
      expect(await kv.get(k('kept'))).toBe('w');
    });

    it('del counts the keys that existed, strings and hashes alike', async () => {
      await kv.set(k('d1'), '1');
      await kv.hset(k('d2'), 'f', '1');
      expect(await kv.del(k('d1'), k('d2'), k('nothing'))).toBe(2);
      expect(await kv.get(k('d1'))).toBeNull();
      expect(await kv.hgetall(k('d2'))).toEqual({});
      expect(await kv.del()).toBe(0);
    });

    it('delIfEquals deletes only while the key holds that value', async () => {
      await kv.set(k('owner'), 'me');
      expect(await kv.delIfEquals(k('owner'), 'someone-else')).toBe(false);
      expect(await kv.get(k('owner'))).toBe('me');
      expect(await kv.delIfEquals(k('owner'), 'me')).toBe(true);
      expect(await kv.get(k('owner'))).toBeNull();
      expect(await kv.delIfEquals(k('owner'), 'me')).toBe(false);
    });

    it('replaceIfEquals writes only while the key holds the value expected', async () => {
      expect(await kv.replaceIfEquals(k('sealed'), 'old', 'new')).toBe(false);
      expect(await kv.get(k('sealed'))).toBeNull();
      await kv.set(k('sealed'), 'old');
      expect(await kv.replaceIfEquals(k('sealed'), 'other', 'new')).toBe(false);
      expect(await kv.get(k('sealed'))).toBe('old');
      expect(await kv.replaceIfEquals(k('sealed'), 'old', 'new')).toBe(true);
      expect(await kv.get(k('sealed'))).toBe('new');
      expect(await kv.replaceIfEquals(k('sealed'), 'old', 'newer')).toBe(false);
      expect(await kv.get(k('sealed'))).toBe('new');
    });

    it('setIfUnchanged writes only while the key is absent or still ends as expected, with a time to live', async () => {
      expect(await kv.setIfUnchanged(k('entry'), '{"v":1,"at":1}', { ttlMs: 60_000, tail: null })).toBe(true);
      // Absent was expected, and it is there now.
      expect(await kv.setIfUnchanged(k('entry'), '{"v":2,"at":2}', { ttlMs: 60_000, tail: null })).toBe(
        false,
      );
      expect(await kv.setIfUnchanged(k('entry'), '{"v":2,"at":2}', { ttlMs: 60_000, tail: '"at":9}' })).toBe(
        false,
      );
      expect(await kv.get(k('entry'))).toBe('{"v":1,"at":1}');
      expect(await kv.setIfUnchanged(k('entry'), '{"v":2,"at":2}', { ttlMs: 60_000, tail: '"at":1}' })).toBe(
        true,
      );
      expect(await kv.get(k('entry'))).toBe('{"v":2,"at":2}');
      // Gone meanwhile (expired): nothing to keep, so it is written.
      await kv.del(k('entry'));
      expect(await kv.setIfUnchanged(k('entry'), '{"v":3,"at":3}', { ttlMs: 50, tail: '"at":2}' })).toBe(
        true,
      );
      await sleep(200);
      expect(await kv.get(k('entry'))).toBeNull();
    });

    it('incr counts from zero one at a time, and gives the counter a new time to live each time', async () => {
      expect(await kv.incr(k('n'), { ttlMs: 60_000 })).toBe(1);
      expect(await kv.incr(k('n'), { ttlMs: 60_000 })).toBe(2);
      expect(await kv.get(k('n'))).toBe('2');
      expect(await kv.incr(k('n'), { ttlMs: 50 })).toBe(3);
      await sleep(200);
      expect(await kv.get(k('n'))).toBeNull();
      expect(await kv.incr(k('n'), { ttlMs: 60_000 })).toBe(1);
      expect(await Promise.all([1, 2, 3].map(() => kv.incr(k('n'), { ttlMs: 60_000 })))).toEqual([2, 3, 4]);
      await kv.set(k('text'), 'abc');
      await expect(kv.incr(k('text'), { ttlMs: 60_000 })).rejects.toThrow(/not an integer/);
    });

    it('expireIfEquals gives a new time to live only while the key holds that value', async () => {
      expect(await kv.expireIfEquals(k('lease'), 'me', 60_000)).toBe(false);
      expect(await kv.get(k('lease'))).toBeNull();
      // A first time to live long enough for the two calls below on a loaded machine.
      await kv.set(k('lease'), 'me', { ttlMs: 1_000 });
      expect(await kv.expireIfEquals(k('lease'), 'someone-else', 60_000)).toBe(false);
      expect(await kv.expireIfEquals(k('lease'), 'me', 60_000)).toBe(true);
      // Past the first time to live, the key is still there (its new one runs).
      await sleep(1_200);
      expect(await kv.get(k('lease'))).toBe('me');
      // And a short one makes it go.
      expect(await kv.expireIfEquals(k('lease'), 'me', 50)).toBe(true);
      await sleep(200);
      expect(await kv.get(k('lease'))).toBeNull();
    });

    it('keeps hash fields; a hash without fields is gone', async () => {
      expect(await kv.hget(k('h'), 'f')).toBeNull();
      expect(await kv.hgetall(k('h'))).toEqual({});
      await kv.hset(k('h'), 'f1', 'a');
      await kv.hset(k('h'), 'f2', 'b');
      await kv.hset(k('h'), 'f1', 'c');
      expect(await kv.hget(k('h'), 'f1')).toBe('c');
      expect(await kv.hgetall(k('h'))).toEqual({ f1: 'c', f2: 'b' });
      expect(await kv.hdel(k('h'), 'f1')).toBe(1);
      expect(await kv.hdel(k('h'), 'not-there')).toBe(0);
      expect(await kv.hgetall(k('h'))).toEqual({ f2: 'b' });
      expect(await kv.hdel(k('h'), 'f2')).toBe(1);
      expect(await kv.keysWithPrefix(k('h'))).toEqual([]);
      expect(await kv.hdel(k('h'), 'f2')).toBe(0);
    });

    it('hdel deletes several fields in one go and counts those that were there', async () => {
      await kv.hsetMany(k('hd'), { a: '1', b: '2', c: '3' });
      expect(await kv.hdel(k('hd'))).toBe(0);
      expect(await kv.hdel(k('hd'), 'a', 'x', 'c', 'a')).toBe(2);
      expect(await kv.hgetall(k('hd'))).toEqual({ b: '2' });
      expect(await kv.hdel(k('hd'), 'b', 'a')).toBe(1);
      expect(await kv.keysWithPrefix(k('hd'))).toEqual([]);
    });

    it('exists counts the keys there, of any kind; a hash or sorted set emptied is not', async () => {
      expect(await kv.exists()).toBe(0);
      expect(await kv.exists(k('e:none'))).toBe(0);
      await kv.set(k('e:s'), 'v');
      await kv.hset(k('e:h'), 'f', 'v');
      await kv.zadd(k('e:z'), 'm', 1);
      expect(await kv.exists(k('e:s'), k('e:h'), k('e:z'), k('e:none'))).toBe(3);
      await kv.hdel(k('e:h'), 'f');
      await kv.zrem(k('e:z'), 'm');
      expect(await kv.exists(k('e:h'), k('e:z'))).toBe(0);
      await kv.set(k('e:short'), 'v', { ttlMs: 40 });
      await sleep(90);
      expect(await kv.exists(k('e:short'), k('e:s'))).toBe(1);
    });

    it('hsetIfEquals writes a field only while it holds the value expected, or only while absent', async () => {
      expect(await kv.hsetIfEquals(k('hc'), 'f', 'old', 'new')).toBe(false);
      expect(await kv.keysWithPrefix(k('hc'))).toEqual([]);
      expect(await kv.hsetIfEquals(k('hc'), 'f', null, 'first')).toBe(true);
      expect(await kv.hsetIfEquals(k('hc'), 'f', null, 'second')).toBe(false);
      expect(await kv.hget(k('hc'), 'f')).toBe('first');
      expect(await kv.hsetIfEquals(k('hc'), 'f', 'other', 'new')).toBe(false);
      expect(await kv.hsetIfEquals(k('hc'), 'f', 'first', 'new')).toBe(true);
      expect(await kv.hgetall(k('hc'))).toEqual({ f: 'new' });
      await kv.hdel(k('hc'), 'f');
      // A field deleted meanwhile stays deleted.
      expect(await kv.hsetIfEquals(k('hc'), 'f', 'new', 'newer')).toBe(false);
      expect(await kv.keysWithPrefix(k('hc'))).toEqual([]);
    });

    it('setMany sets every key with its TTL, replacing what they held; nothing at all writes nothing', async () => {
      await kv.setMany({}, { ttlMs: 5_000 });
      expect(await kv.keysWithPrefix(k('sm'))).toEqual([]);
      await kv.set(k('sm:a'), 'old');
      await kv.hset(k('sm:h'), 'f', 'v');
      await kv.setMany({ [k('sm:a')]: 'um', [k('sm:b')]: 'dois', [k('sm:h')]: 'agora texto' }, { ttlMs: 60 });
      expect(await kv.get(k('sm:a'))).toBe('um');
      expect(await kv.get(k('sm:b'))).toBe('dois');
      expect(await kv.get(k('sm:h'))).toBe('agora texto');
      await sleep(130);
      expect(await kv.keysWithPrefix(k('sm'))).toEqual([]);
    });

    it('getMany reads the keys given in their order, null where absent or not a string', async () => {
      expect(await kv.getMany([])).toEqual([]);
      expect(await kv.getMany([k('gm:a')])).toEqual([null]);
      await kv.set(k('gm:a'), '1');
      await kv.set(k('gm:c'), '3');
      await kv.hset(k('gm:h'), 'f', 'v');
      expect(await kv.getMany([k('gm:c'), k('gm:b'), k('gm:h'), k('gm:a')])).toEqual(['3', null, null, '1']);
    });

    it('hgetMany reads the fields given in their order, null where absent', async () => {
      expect(await kv.hgetMany(k('hm'), ['a'])).toEqual([null]);
      expect(await kv.hgetMany(k('hm'), [])).toEqual([]);
      await kv.hsetMany(k('hm'), { a: '1', c: '3' });
      expect(await kv.hgetMany(k('hm'), ['c', 'b', 'a'])).toEqual(['3', null, '1']);
    });

    it('hsetMany sets every field in one go, keeping the others; nothing at all creates no hash', async () => {
      await kv.hsetMany(k('many'), {});
      expect(await kv.keysWithPrefix(k('many'))).toEqual([]);
      await kv.hset(k('many'), 'kept', 'k');
      await kv.hset(k('many'), '1', 'old');
      await kv.hsetMany(k('many'), { '1': 'um', '2': 'dois' });
      expect(await kv.hgetall(k('many'))).toEqual({ kept: 'k', '1': 'um', '2': 'dois' });
    });

    it('hincrby counts from zero, up and down', async () => {
      expect(await kv.hincrby(k('stats'), 'hits', 1)).toBe(1);
      expect(await kv.hincrby(k('stats'), 'hits', 5)).toBe(6);
      expect(await kv.hincrby(k('stats'), 'hits', -2)).toBe(4);
      expect(await kv.hincrby(k('stats'), 'misses', 1)).toBe(1);
      expect(await kv.hgetall(k('stats'))).toEqual({ hits: '4', misses: '1' });
      await kv.hset(k('stats'), 'text', 'abc');
      await expect(kv.hincrby(k('stats'), 'text', 1)).rejects.toThrow(/not an integer/);
    });

    it('refuses to read a hash as a string and a string as a hash', async () => {
      await kv.set(k('s'), 'v');
      await kv.hset(k('hh'), 'f', 'v');
      await expect(kv.get(k('hh'))).rejects.toThrow(/WRONGTYPE/);
      await expect(kv.hget(k('s'), 'f')).rejects.toThrow(/WRONGTYPE/);
      // set replaces whatever the key held.
      await kv.set(k('hh'), 'now a string');
      expect(await kv.get(k('hh'))).toBe('now a string');
    });

    it('lists the keys under a prefix literally, glob characters included', async () => {
      await kv.set(k('cache:T1:a'), '1');
      await kv.set(k('cache:T1:b'), '1');
      await kv.hset(k('cache:T1:h'), 'f', '1');
      await kv.set(k('cache:T2:a'), '1');
      await kv.set(k('glob*[x]?:1'), '1');
      await kv.set(k('globby:1'), '1');
      expect((await kv.keysWithPrefix(k('cache:T1:'))).sort()).toEqual(
        [k('cache:T1:a'), k('cache:T1:b'), k('cache:T1:h')].sort(),
      );
      expect(await kv.keysWithPrefix(k('glob*[x]?'))).toEqual([k('glob*[x]?:1')]);
      expect(await kv.keysWithPrefix(k('nothing:'))).toEqual([]);
    });

    it('keeps a sorted set: adds, moves (nx / xx), ranges by score in order with a limit, removes', async () => {
      const z = k('schedule');
      expect(await kv.zrangeByScore(z, Number.POSITIVE_INFINITY)).toEqual([]);
      await kv.zadd(z, 'T2', 200);
      await kv.zadd(z, 'T1', 100);
      await kv.zadd(z, 'T3', 300);
      await kv.zadd(z, 'T0', 200);
      // nx leaves a member that is there; xx does not add one that is not.
      await kv.zadd(z, 'T1', 999, 'nx');
      await kv.zadd(z, 'T9', 50, 'xx');
      await kv.zadd(z, 'T3', 150, 'xx');
      await kv.zadd(z, 'T4', 400, 'nx');
      expect(await kv.zrangeByScore(z, 200)).toEqual([
        { member: 'T1', score: 100 },
        { member: 'T3', score: 150 },
        { member: 'T0', score: 200 },
        { member: 'T2', score: 200 },
      ]);
      expect((await kv.zrangeByScore(z, 1_000, 2)).map((e) => e.member)).toEqual(['T1', 'T3']);
      expect((await kv.zrangeByScore(z, 1_000, 2, 3)).map((e) => e.member)).toEqual(['T2', 'T4']);
      await kv.zrem(z, 'T1');
      await kv.zrem(z, 'absent');
      expect((await kv.zrangeByScore(z, Number.POSITIVE_INFINITY)).map((e) => e.member)).toEqual([
        'T3',
        'T0',
        'T2',
        'T4',
      ]);
      for (const member of ['T3', 'T0', 'T2', 'T4']) await kv.zrem(z, member);
      expect(await kv.keysWithPrefix(z)).toEqual([]);
      await kv.set(k('s'), 'v');
      await expect(kv.zadd(k('s'), 'm', 1)).rejects.toThrow(/WRONGTYPE/);
    });

    it('answers ping', async () => {
      expect(await kv.ping()).toBe(true);
    });
  });
}
