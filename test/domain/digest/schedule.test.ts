import { describe, expect, it } from 'vitest';
import {
  isWeekend,
  localDayOf,
  upstreamWallTime,
  zonedInstant,
} from '../../../src/domain/digest/schedule.js';
import { dueToday } from '../../../src/domain/digest/scheduler.js';
import type { Subscription } from '../../../src/store/subscription-store.js';

const NY = 'America/New_York';
const iso = (ms: number) => new Date(ms).toISOString();

describe('zonedInstant', () => {
  it('a plain wall time in São Paulo', () => {
    expect(iso(zonedInstant('2026-11-23', 8, 0, 'America/Sao_Paulo'))).toBe('2026-11-23T11:00:00.000Z');
  });

  it('spring forward in New York: 02:30 does not exist and becomes 03:00 EDT', () => {
    expect(iso(zonedInstant('2026-03-08', 2, 30, NY))).toBe('2026-03-08T07:00:00.000Z');
    expect(iso(zonedInstant('2026-03-08', 1, 30, NY))).toBe('2026-03-08T06:30:00.000Z');
    expect(iso(zonedInstant('2026-03-08', 3, 0, NY))).toBe('2026-03-08T07:00:00.000Z');
    expect(iso(zonedInstant('2026-03-09', 2, 30, NY))).toBe('2026-03-09T06:30:00.000Z');
  });

  it('fall back in New York: 01:30 happens twice and the first one counts', () => {
    expect(iso(zonedInstant('2026-11-01', 1, 30, NY))).toBe('2026-11-01T05:30:00.000Z');
    expect(iso(zonedInstant('2026-11-01', 2, 30, NY))).toBe('2026-11-01T07:30:00.000Z');
    expect(iso(zonedInstant('2026-11-01', 0, 30, NY))).toBe('2026-11-01T04:30:00.000Z');
  });

  it('other zones and offsets (Europe/Berlin, Asia/Kolkata)', () => {
    expect(iso(zonedInstant('2026-03-29', 2, 30, 'Europe/Berlin'))).toBe('2026-03-29T01:00:00.000Z');
    expect(iso(zonedInstant('2026-10-25', 2, 30, 'Europe/Berlin'))).toBe('2026-10-25T00:30:00.000Z');
    expect(iso(zonedInstant('2026-11-23', 8, 0, 'Asia/Kolkata'))).toBe('2026-11-23T02:30:00.000Z');
  });
});

describe('local days', () => {
  it('the day is the local one', () => {
    expect(localDayOf(Date.UTC(2026, 10, 1, 5, 30), NY)).toBe('2026-11-01');
    expect(localDayOf(Date.UTC(2026, 10, 24, 2, 0), 'America/Sao_Paulo')).toBe('2026-11-23');
  });

  it('weekends', () => {
    expect(isWeekend('2026-11-21')).toBe(true);
    expect(isWeekend('2026-11-22')).toBe(true);
    expect(isWeekend('2026-11-23')).toBe(false);
    expect(isWeekend('2026-11-27')).toBe(false);
  });

  it('upstream wall time drops the seconds and has no zone', () => {
    expect(upstreamWallTime(Date.UTC(2026, 10, 23, 11, 5, 33), 'America/Sao_Paulo')).toBe(
      '2026-11-23T08:05:00',
    );
  });
});

describe('dueToday', () => {
  const sub = (overrides: Partial<Subscription> = {}): Subscription => ({
    workspaceId: 'T1',
    channelId: 'C1',
    hour: 8,
    minute: 0,
    timeZone: 'America/Sao_Paulo',
    weekdaysOnly: false,
    stockroomId: null,
    subscribedBy: 'U1',
    createdAt: 0,
    updatedAt: 0,
    paused: null,
    lastPostedDay: null,
    lastPostedAt: null,
    lastDigestAt: null,
    ...overrides,
  });

  it('due from the time on, for the rest of the local day', () => {
    expect(dueToday(sub(), Date.UTC(2026, 10, 23, 10, 59))).toBeNull();
    expect(dueToday(sub(), Date.UTC(2026, 10, 23, 11, 0))).toEqual({
      day: '2026-11-23',
      at: Date.UTC(2026, 10, 23, 11, 0),
    });
    expect(dueToday(sub(), Date.UTC(2026, 10, 24, 2, 59))?.day).toBe('2026-11-23');
    expect(dueToday(sub(), Date.UTC(2026, 10, 24, 3, 0))).toBeNull();
  });

  it('not on weekends when weekdays only; not today when subscribed after the time', () => {
    expect(dueToday(sub({ weekdaysOnly: true }), Date.UTC(2026, 10, 21, 12))).toBeNull();
    const noon = Date.UTC(2026, 10, 23, 12);
    expect(dueToday(sub({ createdAt: noon, updatedAt: noon }), Date.UTC(2026, 10, 23, 13))).toBeNull();
  });

  it('changed after the time, made before it: today is still owed (an edit keeps the day)', () => {
    const changed = sub({ createdAt: Date.UTC(2026, 10, 20), updatedAt: Date.UTC(2026, 10, 23, 12) });
    expect(dueToday(changed, Date.UTC(2026, 10, 23, 13))?.day).toBe('2026-11-23');
  });
});
