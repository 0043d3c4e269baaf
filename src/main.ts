import { type Config, ConfigError, type Environment, loadConfig, readEnvironment } from './config.js';
import { systemClock } from './lib/clock.js';
import { errFields, makeLogger, maskSecretsInText, stdoutDestination } from './lib/logger.js';
import { isSupportedNode, SUPPORTED_NODE } from './lib/runtime.js';
import { stopSignalTracker } from './lib/stop-signals.js';
import { logUnhandledRejections } from './lib/unhandled-rejections.js';
import {
  drainDelayMs,
  EXIT,
  type Replica,
  StartupError,
  startReplica,
  stopDeadlineMs,
  stopGraceMs,
} from './redis-bot.js';

async function main(): Promise<void> {
  let config: Config;
  let environment: Environment;
  try {
    environment = readEnvironment();
    config = loadConfig(environment.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(EXIT.config);
    }
    throw error;
  }
  const logger = makeLogger({ level: config.LOG_LEVEL, destination: stdoutDestination() });
  // A backstop: a library's promise that fails unawaited is logged, not the end of the process.
  logUnhandledRejections(process, logger);
  if (!isSupportedNode(process.versions.node)) {
    // package.json's engines say so only to npm, as a warning at install time: the process says it too.
    logger.warn(
      { node: process.versions.node, supported: SUPPORTED_NODE },
      'this Node.js version is not supported: use Node.js 24 (LTS) or 22.12+',
    );
  }
  if (environment.dotEnvFile) {
    logger.info(
      { file: environment.dotEnvFile, variables: environment.fromFile },
      'configuração lida de .env',
    );
  }
  // A second SIGINT or SIGTERM while stopping (Ctrl-C twice, a supervisor that will not wait): no more waiting, and
  // the exit code a shell gives a process killed by that signal.
  const exitOnSecondSignal = (signal: string): never => {
    const code = signal === 'SIGINT' ? 130 : signal === 'SIGTERM' ? 143 : 1;
    logger.warn({ signal, exitCode: code }, 'second signal while stopping: exiting now');
    process.exit(code);
  };
  // One Ctrl-C on `npm start` delivers SIGINT twice (the terminal's and npm's forwarded one): the echo is ignored.
  const signalVerdict = stopSignalTracker(systemClock);
  const onStopSignal = (signal: string, stop: (signal: string) => void) => {
    const verdict = signalVerdict(signal);
    if (verdict === 'ignore') {
      logger.debug({ signal }, 'same signal again at once (npm forwards Ctrl-C): ignored');
      return;
    }
    if (verdict === 'exit-now') exitOnSecondSignal(signal);
    stop(signal);
  };
  if (config.mode === 'local') {
    const { startLocalMode } = await import('./local/local-mode.js');
    const local = await startLocalMode(config, logger);
    const stopLocal = (signal: string) => {
      logger.info({ signal }, 'stopping local mode');
      local.close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    };
    process.on('SIGTERM', () => onStopSignal('SIGTERM', stopLocal));
    process.on('SIGINT', () => onStopSignal('SIGINT', stopLocal));
    return;
  }

  // A signal while starting (waiting for Redis, for instance) ends the process; once started, a graceful stop.
  let replica: Replica | null = null;
  let stopping = false;
  let exitCode = 0;
  const stop = (signal: string, crashed = false) => {
    if (crashed) exitCode = 1;
    if (stopping) {
      if (!crashed) exitOnSecondSignal(signal);
      return;
    }
    stopping = true;
    if (!replica) {
      logger.info({ signal }, 'stopping before start-up finished');
      process.exit(exitCode);
    }
    logger.info(
      {
        signal,
        graceMs: stopGraceMs(config, { crashed }),
        drainMs: crashed ? 0 : drainDelayMs(config),
      },
      'stopping: /healthz answers 503, requests are taken for drainMs more, answers in flight may finish',
    );
    // Never past the grace and the restart notices, whatever hangs: the orchestrator's SIGKILL would come next.
    setTimeout(() => process.exit(1), stopDeadlineMs(config, { crashed })).unref();
    replica.stop({ crashed }).then(
      () => {
        logger.info('stopped');
        process.exit(exitCode);
      },
      (error: unknown) => {
        logger.error(errFields(error), 'stop failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => onStopSignal('SIGTERM', stop));
  process.on('SIGINT', () => onStopSignal('SIGINT', stop));
  // A throw nobody caught leaves the process in a state nobody knows: the users whose answers are in flight get the
  // restart notice after a short grace, then exit 1 for the orchestrator to restart it. (Rejections nobody handled
  // have their own handler.)
  process.on('uncaughtException', (error: unknown) => {
    logger.fatal({ ...errFields(error), frames: stackFrames(error) }, 'uncaught exception: stopping');
    stop('uncaughtException', true);
  });
  try {
    replica = await startReplica(config, logger);
  } catch (error) {
    if (error instanceof StartupError) {
      logger.fatal({ code: error.code, exitCode: error.exitCode }, 'not started');
      process.stderr.write(`estoque-bot not started: ${error.message}\n`);
      process.exit(error.exitCode);
    }
    throw error;
  }
}

/** Where a throw came from: the stack's frames only (the message is in `err`), masked as the message is. */
function stackFrames(error: unknown): string[] {
  if (!(error instanceof Error) || !error.stack) return [];
  return error.stack
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.startsWith('at '))
    .slice(0, 20)
    .map(maskSecretsInText);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `estoque-bot failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
