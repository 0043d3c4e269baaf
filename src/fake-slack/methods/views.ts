import { argJson, argString } from '../http.js';
import { viewIssues } from '../limits.js';
import type { ApiArgs } from '../types.js';
import { VIEW_STACK_LIMIT } from '../views.js';
import {
  type AuthedContext,
  fail,
  failWithIssues,
  type MethodResult,
  type MethodSpec,
  ok,
  recordIssues,
} from './common.js';

type ViewInput = Record<string, unknown>;

const missing = (field: string): MethodResult =>
  fail('invalid_arguments', {
    response_metadata: { messages: [`[ERROR] missing required field: ${field}`] },
  });

/** The `view` argument, checked against Slack's limits (violations are recorded). */
function readView(ctx: AuthedContext, method: string): { view: ViewInput } | MethodResult {
  const parsed = argJson(ctx.args, 'view');
  if (!parsed.ok)
    return fail('invalid_arguments', { response_metadata: { messages: ['[ERROR] invalid JSON'] } });
  if (parsed.value === undefined) return missing('view');
  const issues = viewIssues(parsed.value);
  if (issues.length > 0) {
    recordIssues(ctx.state, method, issues);
    return failWithIssues('invalid_arguments', issues);
  }
  return { view: parsed.value as ViewInput };
}

function triggerArg(args: ApiArgs): string | undefined {
  return argString(args, 'trigger_id') ?? argString(args, 'interactivity_pointer');
}

function duplicateExternalId(ctx: AuthedContext, view: ViewInput, self?: string): boolean {
  const externalId = typeof view.external_id === 'string' ? view.external_id : '';
  const existing = ctx.state.views.findByExternalId(externalId, ctx.caller.team.id);
  return existing !== undefined && existing.id !== self;
}

function open(ctx: AuthedContext): MethodResult {
  const read = readView(ctx, 'views.open');
  if (!('view' in read)) return read;
  const triggerId = triggerArg(ctx.args);
  if (triggerId === undefined) return missing('trigger_id');
  if (duplicateExternalId(ctx, read.view)) return fail('duplicate_external_id');
  const exchanged = ctx.state.triggers.exchange(triggerId);
  if (!exchanged.ok) return fail(exchanged.error);
  const view = ctx.state.views.open(read.view, ctx.caller.team, exchanged.context.userId, triggerId);
  return ok({ view });
}

function push(ctx: AuthedContext): MethodResult {
  const read = readView(ctx, 'views.push');
  if (!('view' in read)) return read;
  const triggerId = triggerArg(ctx.args);
  if (triggerId === undefined) return missing('trigger_id');
  if (duplicateExternalId(ctx, read.view)) return fail('duplicate_external_id');
  const exchanged = ctx.state.triggers.exchange(triggerId);
  if (!exchanged.ok) return fail(exchanged.error);
  const stack = ctx.state.views.stackFor(exchanged.context);
  if (stack === undefined) return fail('not_found');
  if (stack.length >= VIEW_STACK_LIMIT) return fail('push_limit_reached');
  const view = ctx.state.views.push(read.view, ctx.caller.team, exchanged.context.userId, stack, triggerId);
  return ok({ view });
}

function update(ctx: AuthedContext): MethodResult {
  const read = readView(ctx, 'views.update');
  if (!('view' in read)) return read;
  const viewId = argString(ctx.args, 'view_id');
  const externalId = argString(ctx.args, 'external_id');
  if (viewId === undefined && externalId === undefined) return missing('view_id');
  const current =
    viewId !== undefined
      ? ctx.state.views.get(viewId)
      : ctx.state.views.findByExternalId(externalId ?? '', ctx.caller.team.id);
  if (current === undefined || current.team_id !== ctx.caller.team.id) return fail('not_found');
  const hash = argString(ctx.args, 'hash');
  if (hash !== undefined && hash !== current.hash) return fail('hash_conflict');
  if (duplicateExternalId(ctx, read.view, current.id)) return fail('duplicate_external_id');
  return ok({ view: ctx.state.views.update(current, read.view, ctx.caller.team) });
}

function publish(ctx: AuthedContext): MethodResult {
  const read = readView(ctx, 'views.publish');
  if (!('view' in read)) return read;
  const userId = argString(ctx.args, 'user_id');
  if (userId === undefined) return missing('user_id');
  if (ctx.state.workspace.visibleUser(ctx.caller, userId) === undefined) return fail('user_not_found');
  if (read.view.type !== 'home') return fail('invalid_arguments');
  // As Slack: a hash that is not the one of the Home the user has now (none published: no hash matches) is refused,
  // so a publish built before another one landed cannot overwrite it; no hash, nothing checked.
  const hash = argString(ctx.args, 'hash');
  if (hash !== undefined && hash !== ctx.state.views.home(ctx.caller.team.id, userId)?.hash)
    return fail('hash_conflict');
  return ok({ view: ctx.state.views.publish(read.view, ctx.caller.team, userId) });
}

export const viewMethods: Record<string, MethodSpec> = {
  'views.open': { kind: 'authed', run: open },
  'views.push': { kind: 'authed', run: push },
  'views.update': { kind: 'authed', run: update },
  'views.publish': { kind: 'authed', run: publish },
};
