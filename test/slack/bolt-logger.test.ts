import { expect, it } from 'vitest';
import { boltLogger } from '../../src/slack/app.js';
import { captureLogger } from '../helpers/upstream-stack.js';

it("Bolt's own lines: text as msg, an Error as err, objects as JSON fields; never [object Object] or a stack", () => {
  const { logger, lines } = captureLogger('debug');
  const bolt = boltLogger(logger);
  const error = Object.assign(new Error('An API error occurred: invalid_auth'), {
    code: 'slack_webapi_platform_error',
  });
  bolt.error('Failed to start', error, { team: 'T1', token: 'xoxb-secret' });
  bolt.warn('unhandled', { type: 'block_actions' });
  const [first, second] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  expect(first).toMatchObject({
    level: 50,
    component: 'bolt',
    msg: 'Failed to start',
    err: {
      name: 'Error',
      message: 'An API error occurred: invalid_auth',
      code: 'slack_webapi_platform_error',
    },
    data: { team: 'T1', token: '[redacted]' },
  });
  expect(second).toMatchObject({ level: 40, msg: 'unhandled', data: { type: 'block_actions' } });
  const text = lines.join('\n');
  expect(text).not.toContain('[object Object]');
  expect(text).not.toContain('xoxb-secret');
  expect(text).not.toMatch(/\n\s+at /);
});

it('secrets inside the text of a Bolt line (the Web client’s debug request bodies) are masked', () => {
  const { logger, lines } = captureLogger('debug');
  const bolt = boltLogger(logger);
  bolt.debug(
    'http request body: {"code":"7354.2233.abcd","client_id":"123.456","client_secret":"topsecret-client-secret-XYZ"}',
  );
  bolt.debug('http request body: client_secret=form-secret-1&code=form-code-2&client_id=123.456');
  bolt.debug('http request result: {"ok":true,"access_token":"xoxb-1-2-abc","refresh_token":"xoxe-1-def"}');
  const text = lines.join('\n');
  for (const secret of [
    'topsecret-client-secret-XYZ',
    '7354.2233.abcd',
    'form-secret-1',
    'form-code-2',
    'xoxb-1-2-abc',
    'xoxe-1-def',
  ])
    expect(text).not.toContain(secret);
  // What is not secret stays readable.
  expect(text).toContain('123.456');
});
