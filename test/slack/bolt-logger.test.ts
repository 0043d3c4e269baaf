import { SocketModeReceiver } from '@slack/bolt';
import { expect, it } from 'vitest';
import { BlockIds, InputActionIds, ViewIds } from '../../src/render/ids.js';
import { boltLogger } from '../../src/slack/slack-logger.js';
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
  // A JSON string with an escaped quote inside, and a secret inside a JSON string of JSON.
  bolt.debug(`body: ${JSON.stringify({ password: 'aspas"no-meio-1' })}`);
  bolt.debug(`body: ${JSON.stringify(JSON.stringify({ senha: 'embrulhada-2' }))}`);
  const text = lines.join('\n');
  for (const secret of [
    'no-meio-1',
    'embrulhada-2',
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

it("the link modal's password never reaches the log, in a debug line's text or in a logged object, however deep", () => {
  const { logger, lines } = captureLogger('debug');
  const bolt = boltLogger(logger);
  const password = 'Segredo#2025-estoque';
  const submission = {
    envelope_id: 'e1',
    type: 'interactive',
    payload: {
      type: 'view_submission',
      view: {
        callback_id: ViewIds.linkModal,
        state: {
          values: {
            [BlockIds.linkLogin]: {
              [InputActionIds.login]: { type: 'plain_text_input', value: 'ana@empresa.com' },
            },
            [BlockIds.linkPassword]: {
              [InputActionIds.password]: { type: 'plain_text_input', value: password },
            },
          },
        },
      },
    },
  };
  // @slack/socket-mode's debug line of every frame it receives, as text.
  bolt.debug(`Received a message on the WebSocket: ${JSON.stringify(submission)}`);
  // The same, spaced, and escaped inside a JSON string.
  bolt.debug(`frame: ${JSON.stringify(submission, null, 2)}`);
  bolt.debug(`frame: ${JSON.stringify(JSON.stringify(submission))}`);
  // And handed over as an object.
  bolt.debug('frame', submission);
  const text = lines.join('\n');
  expect(text).not.toContain(password);
  // The rest of the frame stays readable.
  expect(text).toContain('ana@empresa.com');
  expect(text).toContain(ViewIds.linkModal);
});

it("@slack/socket-mode's own debug line of a received frame carries no password", async () => {
  const { logger, lines } = captureLogger('debug');
  // Bolt's Socket Mode receiver hands its logger to the @slack/socket-mode client it makes.
  const { client } = new SocketModeReceiver({ appToken: 'xapp-1-A1-1-abc', logger: boltLogger(logger) });
  const password = 'Outro-Segredo#77';
  const envelope = {
    envelope_id: 'e1',
    type: 'interactive',
    accepts_response_payload: true,
    payload: {
      type: 'view_submission',
      team: { id: 'T1' },
      user: { id: 'U1' },
      view: {
        callback_id: ViewIds.linkModal,
        state: {
          values: {
            [BlockIds.linkPassword]: {
              [InputActionIds.password]: { type: 'plain_text_input', value: password },
            },
          },
        },
      },
    },
  };
  // The handler the client runs for each WebSocket message (not public API: a rename fails this test loudly).
  const receiver = client as unknown as {
    onWebSocketMessage(data: string, isBinary: boolean): Promise<void>;
  };
  expect(typeof receiver.onWebSocketMessage).toBe('function');
  await receiver.onWebSocketMessage(JSON.stringify(envelope), false);
  expect(lines.some((line) => line.includes('Received a message on the WebSocket'))).toBe(true);
  expect(lines.join('\n')).not.toContain(password);
});

it('a line below the level is dropped before anything of it is read or masked', () => {
  const { logger, lines } = captureLogger('info');
  const bolt = boltLogger(logger);
  let read = false;
  bolt.debug('frame', {
    get payload() {
      read = true;
      return 'x';
    },
  });
  expect(read).toBe(false);
  expect(lines).toEqual([]);
});
