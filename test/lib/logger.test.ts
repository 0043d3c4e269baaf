import { expect, it } from 'vitest';
import { captureLogger } from '../helpers/upstream-stack.js';

it('redacts secrets wherever they sit in a logged object', () => {
  const { logger, lines } = captureLogger('info');
  logger.info(
    {
      password: 'p4ss-word',
      token: 'eyJhbGciOi.token-value',
      nested: { refreshToken: 'refresh-secret', jti: 'jti-secret', Password: 'P2' },
      deep: { a: { authorization: 'Bearer abc.def.ghi' } },
      headers: { authorization: 'Bearer xyz' },
      login: 'demo',
    },
    'something happened',
  );
  const text = lines.join('');
  for (const secret of [
    'p4ss-word',
    'token-value',
    'refresh-secret',
    'jti-secret',
    'P2',
    'abc.def.ghi',
    'xyz',
  ]) {
    expect(text).not.toContain(secret);
  }
  expect(text).toContain('"login":"demo"');
  expect(text).toContain('[redacted]');
});
