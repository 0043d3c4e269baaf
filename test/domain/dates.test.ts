import { addDays } from 'date-fns';
import { describe, expect, it } from 'vitest';
import { endOfLocalDay, firstDayOfMonthsEnding, startOfLocalDay } from '../../src/domain/dates.js';
import { validateRequestQuery } from '../../src/upstream/queries.js';

const TZ = 'America/Sao_Paulo';

describe('firstDayOfMonthsEnding', () => {
  it('15/03/2026 and 12 months: 16/03/2025', () => {
    expect(firstDayOfMonthsEnding({ year: 2026, month: 3, day: 15 }, 12)).toEqual({
      year: 2025,
      month: 3,
      day: 16,
    });
  });

  it('gives a period the request list accepts for every day of 2023 to 2029, leap days and month ends included', () => {
    const refused: string[] = [];
    for (let day = new Date(Date.UTC(2023, 0, 1, 12)); day.getUTCFullYear() < 2030; day = addDays(day, 1)) {
      const to = { year: day.getUTCFullYear(), month: day.getUTCMonth() + 1, day: day.getUTCDate() };
      const from = firstDayOfMonthsEnding(to, 12);
      try {
        validateRequestQuery(
          { dataInicial: startOfLocalDay(from), dataFinal: endOfLocalDay(to) },
          new Date(Date.UTC(2031, 0, 1)),
          TZ,
        );
      } catch {
        refused.push(endOfLocalDay(to));
      }
    }
    expect(refused).toEqual([]);
  });

  it('starts no later than a year and a day before the end (the 12 months, not fewer)', () => {
    expect(firstDayOfMonthsEnding({ year: 2025, month: 2, day: 28 }, 12)).toEqual({
      year: 2024,
      month: 3,
      day: 1,
    });
    expect(firstDayOfMonthsEnding({ year: 2024, month: 2, day: 29 }, 12)).toEqual({
      year: 2023,
      month: 3,
      day: 1,
    });
  });
});
