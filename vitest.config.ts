import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Integration tests bind ports and share one Redis (with random prefixes); files run in parallel workers.
    pool: 'forks',
    tags: [
      {
        name: 'slow',
        description:
          'Builds or starts the program from outside (seconds each): `npm test` leaves them out; CI runs them.',
      },
    ],
  },
});
