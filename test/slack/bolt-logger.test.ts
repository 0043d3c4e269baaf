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
