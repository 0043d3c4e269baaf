import { expect, it } from 'vitest';
import { errFields } from '../../src/lib/logger.js';
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

it('describes a failure by name, code and masked message, never by its stack or cause', () => {
  const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJkZW1vIn0.c2lnbmF0dXJlLXZhbHVl';
  const failure = Object.assign(new Error(`refresh refused for ${jwt}`, { cause: { password: 'p' } }), {
    code: 'ECONNRESET',
  });
  expect(errFields(failure)).toEqual({
    err: { name: 'Error', message: 'refresh refused for [redacted-jwt]', code: 'ECONNRESET' },
  });
  expect(errFields(new TypeError('bad'))).toEqual({ err: { name: 'TypeError', message: 'bad' } });
  expect(errFields('a string thrown')).toEqual({ err: { name: 'string', message: 'a string thrown' } });
});
