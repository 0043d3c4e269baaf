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

it("names the upstream's trace id of a failure, when it carries one, bounded", () => {
  const failure = Object.assign(new Error('GET /v1/materiais answered 403'), {
    code: 'upstream_forbidden',
    traceId: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00',
  });
  expect(errFields(failure)).toEqual({
    err: {
      name: 'Error',
      message: 'GET /v1/materiais answered 403',
      code: 'upstream_forbidden',
      traceId: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00',
    },
  });
  const long = Object.assign(new Error('x'), { traceId: 'a'.repeat(1000) });
  expect(errFields(long).err.traceId).toHaveLength(128);
  expect(errFields(Object.assign(new Error('x'), { traceId: 7 })).err).not.toHaveProperty('traceId');
});
