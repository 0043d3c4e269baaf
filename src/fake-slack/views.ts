import { newTriggerIdString, randomDigits, slackId, TRIGGER_ID_FORMAT } from './ids.js';
import { FAKE_APP } from './seed.js';
import type { FakeTeam, FakeView, FakeViewOutput, ViewVia } from './types.js';

/** Slack lets an app exchange a trigger_id once, within about 3 seconds. */
export const TRIGGER_TTL_MS = 3_000;
/** A modal stack holds at most 3 views. */
export const VIEW_STACK_LIMIT = 3;

export interface TriggerContext {
  userId?: string;
  teamId?: string;
  /** The view the interaction came from, for views.push. */
  viewId?: string;
}

export class TriggerRegistry {
  private readonly triggers = new Map<string, { at: number; used: boolean; context: TriggerContext }>();

  constructor(private readonly now: () => number) {}

  issue(context: TriggerContext = {}): string {
    const id = newTriggerIdString();
    this.triggers.set(id, { at: this.now(), used: false, context });
    return id;
  }

  /** Uses a trigger up: `invalid_trigger_id`, `exchanged_trigger_id` or `expired_trigger_id` when it can't. */
  exchange(triggerId: string): { ok: true; context: TriggerContext } | { ok: false; error: string } {
    const trigger = this.triggers.get(triggerId);
    if (!TRIGGER_ID_FORMAT.test(triggerId) || trigger === undefined)
      return { ok: false, error: 'invalid_trigger_id' };
    if (trigger.used) return { ok: false, error: 'exchanged_trigger_id' };
    if (this.now() - trigger.at > TRIGGER_TTL_MS) return { ok: false, error: 'expired_trigger_id' };
    trigger.used = true;
    return { ok: true, context: trigger.context };
  }

  clear(): void {
    this.triggers.clear();
  }
}

type ViewInput = Record<string, unknown>;

interface LiveView {
  output: FakeViewOutput;
  userId?: string;
}

/** Views Slack holds: modal stacks per user and Home tabs, and the record of every accepted call. */
export class ViewRegistry {
  readonly records: FakeView[] = [];
  private readonly live = new Map<string, LiveView>();
  private readonly stacks = new Map<string, string[]>();
  private readonly userRoot = new Map<string, string>();

  constructor(
    private readonly now: () => number,
    private readonly emit: (view: FakeView) => void,
  ) {}

  get(viewId: string): FakeViewOutput | undefined {
    return this.live.get(viewId)?.output;
  }

  /** The team's view set with this external_id (Slack: "unique for all views on a team"; other teams' are unseen). */
  findByExternalId(externalId: string, teamId: string): FakeViewOutput | undefined {
    if (externalId === '') return undefined;
    for (const { output } of this.live.values())
      if (output.external_id === externalId && output.team_id === teamId) return output;
    return undefined;
  }

  open(view: ViewInput, team: FakeTeam, userId: string | undefined, triggerId: string): FakeViewOutput {
    const id = slackId('V');
    const output = this.build(view, team, id, { root: id, previous: null });
    this.live.set(id, { output, userId });
    this.stacks.set(id, [id]);
    if (userId !== undefined) this.userRoot.set(userId, id);
    this.record('views.open', output, team.id, userId, triggerId);
    return output;
  }

  /** The stack a push lands on: the interaction's view, else the user's newest modal. */
  stackFor(context: TriggerContext): string[] | undefined {
    const from = context.viewId === undefined ? undefined : this.get(context.viewId);
    const root =
      from?.root_view_id ?? (context.userId === undefined ? undefined : this.userRoot.get(context.userId));
    return root === undefined ? undefined : this.stacks.get(root);
  }

  push(view: ViewInput, team: FakeTeam, userId: string | undefined, stack: string[], triggerId: string) {
    const id = slackId('V');
    const output = this.build(view, team, id, { root: stack[0] ?? id, previous: stack.at(-1) ?? null });
    stack.push(id);
    this.live.set(id, { output, userId });
    this.record('views.push', output, team.id, userId, triggerId);
    return output;
  }

  update(current: FakeViewOutput, view: ViewInput, team: FakeTeam): FakeViewOutput {
    const live = this.live.get(current.id);
    // An update that does not name an external_id keeps the one the view had.
    const output = this.build(
      { external_id: current.external_id, ...view },
      team,
      current.id,
      { root: current.root_view_id, previous: current.previous_view_id },
      current,
    );
    this.live.set(current.id, { output, userId: live?.userId });
    this.record('views.update', output, team.id, live?.userId, undefined);
    return output;
  }

  /** The Home tab `userId` has in that team, if one was published. */
  home(teamId: string, userId: string): FakeViewOutput | undefined {
    return this.live.get(`home:${teamId}:${userId}`)?.output;
  }

  publish(view: ViewInput, team: FakeTeam, userId: string): FakeViewOutput {
    const homeKey = `home:${team.id}:${userId}`;
    const existing = this.live.get(homeKey)?.output;
    const output = this.build(
      view,
      team,
      existing?.id ?? slackId('V'),
      { root: null, previous: null },
      existing,
    );
    this.live.set(homeKey, { output, userId });
    this.live.set(output.id, { output, userId });
    this.record('views.publish', output, team.id, userId, undefined);
    return output;
  }

  clear(): void {
    this.records.length = 0;
    this.live.clear();
    this.stacks.clear();
    this.userRoot.clear();
  }

  private build(
    view: ViewInput,
    team: FakeTeam,
    id: string,
    links: { root: string | null; previous: string | null },
    replacing?: FakeViewOutput,
  ): FakeViewOutput {
    const text = (key: string): string => (typeof view[key] === 'string' ? (view[key] as string) : '');
    // As Slack: every publish or update gives the view a new hash, even one that shows the same as before.
    let hash: string;
    do hash = `${Math.floor(this.now() / 1000)}.${randomDigits(8)}`;
    while (hash === replacing?.hash);
    return {
      id,
      team_id: team.id,
      type: text('type'),
      blocks: Array.isArray(view.blocks) ? view.blocks : [],
      private_metadata: text('private_metadata'),
      callback_id: text('callback_id'),
      state: { values: {} },
      hash,
      title: view.title ?? null,
      clear_on_close: view.clear_on_close === true,
      notify_on_close: view.notify_on_close === true,
      close: view.close ?? null,
      submit: view.submit ?? null,
      previous_view_id: links.previous,
      root_view_id: links.root,
      app_id: FAKE_APP.appId,
      external_id: text('external_id'),
      app_installed_team_id: team.id,
      bot_id: team.botId,
    };
  }

  private record(
    via: ViewVia,
    view: FakeViewOutput,
    teamId: string,
    userId: string | undefined,
    triggerId: string | undefined,
  ) {
    const record: FakeView = {
      id: this.records.length + 1,
      viewId: view.id,
      triggerId,
      view,
      userId,
      teamId,
      via,
      at: this.now(),
    };
    this.records.push(record);
    this.emit(record);
  }
}
