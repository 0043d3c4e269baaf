/**
 * The playground page's script: plain browser JavaScript, served as is (no build step). It keeps no secret and
 * reaches the bot only through the playground routes. Every text that came from the bot (and from upstream data
 * through it) reaches the page as DOM text nodes, never as HTML.
 *
 * Its parts are String.raw templates in TypeScript modules, so that they ship with `tsc` output and need no
 * asset copying: they must contain no backquote and no dollar-brace sequence (test/local/playground.test.ts
 * checks that the whole parses).
 */
import { SCRIPT_BLOCKS } from './script-blocks.js';
import { SCRIPT_HOME } from './script-home.js';
import { SCRIPT_MODALS } from './script-modals.js';
import { SCRIPT_PAGE } from './script-page.js';
import { SCRIPT_TEXT } from './script-text.js';

/** The parts share one function scope, so they read as one script in the browser. */
export const PLAYGROUND_SCRIPT = [
  '(function () {',
  "  'use strict';",
  SCRIPT_TEXT,
  SCRIPT_BLOCKS,
  SCRIPT_MODALS,
  SCRIPT_PAGE,
  SCRIPT_HOME,
  '  setUpComposer();',
  '  setUpShortcuts();',
  '  connect();',
  '})();',
  '',
].join('\n');
