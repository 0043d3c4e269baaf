import { errFields, type Logger } from './logger.js';

/**
 * A promise that failed with nobody awaiting it is logged at error level (`unhandled promise rejection`, the error
 * as `errFields` gives it: name, message with secrets masked, code; never a stack) and the process goes on. Node
 * would end the process instead (its default since Node 15), taking every request in flight with it, for what is
 * the failure of one piece of fire-and-forget work: Bolt's HTTP receiver handles each request in such a promise,
 * and a body it could not read stopped the bot that way until 2026-11-27. A thrown exception nobody catches
 * (`uncaughtException`) still ends the process (main.ts stops it as SIGTERM does, then exits 1): after one, its
 * state cannot be trusted.
 */
export function logUnhandledRejections(target: NodeJS.EventEmitter, logger: Logger): void {
  target.on('unhandledRejection', (reason: unknown) => {
    logger.error(
      { component: 'process', ...errFields(reason) },
      'unhandled promise rejection; the process goes on',
    );
  });
}
