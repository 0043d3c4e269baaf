import { z } from 'zod';
import { CompanyMotion, MAX_CHANGES_PER_ADVANCE } from './advance.js';
import { type AdvanceRequest, CHANGE_KINDS, type ChangeKind, type SandboxChange } from './changes.js';
import type { SandboxData } from './model.js';
import { Random } from './random.js';

/**
 * The sandbox-only controls that move data along: advances on request (in-process or over the admin route),
 * optionally on a timer, and the log of every change made, numbered from 1.
 */

export class SandboxControlError extends Error {
  override readonly name = 'SandboxControlError';
  constructor(
    readonly status: 400 | 404,
    message: string,
  ) {
    super(message);
  }
}

export const ADVANCE_SCHEMA = z
  .object({
    login: z.string().min(1).max(200).optional(),
    empresaId: z.number().int().positive().max(2_147_483_647).optional(),
    changes: z.number().int().min(1).max(MAX_CHANGES_PER_ADVANCE).optional(),
    kinds: z.array(z.enum(CHANGE_KINDS)).min(1).max(CHANGE_KINDS.length).optional(),
    requestIds: z
      .array(z.number().int().positive().max(2_147_483_647))
      .max(MAX_CHANGES_PER_ADVANCE)
      .optional(),
  })
  .strict();

export interface AutoAdvance {
  /** Companies the timer picks from (default every company served). */
  empresaIds?: number[];
  /** Changes per tick (default 1). */
  changes?: number;
  kinds?: ChangeKind[];
}

export const DEFAULT_EMPRESA = 1;
/** Most changes one read of the log returns. */
export const CHANGES_PAGE = 1000;

export class SandboxControl {
  private readonly motions = new Map<number, CompanyMotion>();
  private readonly log: SandboxChange[] = [];
  private readonly served: Set<number>;
  private readonly loginCompany: Map<string, number>;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly data: SandboxData,
    private readonly seed: number,
    private readonly now: () => number,
    private readonly onAdvance?: (request: AdvanceRequest, at: number) => void,
  ) {
    this.served = new Set(data.empresaIds);
    this.loginCompany = new Map(data.accounts.map((a) => [a.login, a.empresa]));
  }

  /** Every change made so far, in order. */
  get changes(): readonly SandboxChange[] {
    return this.log;
  }

  /** Validates the request as the admin route does, then makes the changes and logs them. */
  advance(request: AdvanceRequest = {}): SandboxChange[] {
    const parsed = ADVANCE_SCHEMA.safeParse(request);
    if (!parsed.success) {
      const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`);
      throw new SandboxControlError(400, problems.join('; '));
    }
    const { login, empresaId, changes = 1, kinds = CHANGE_KINDS, requestIds = [] } = parsed.data;
    const empresa = this.companyOf(login, empresaId);
    const company = this.data.company(empresa);
    if (!company) throw new SandboxControlError(404, `company ${empresa} is not served`);
    let motion = this.motions.get(empresa);
    if (!motion) {
      motion = new CompanyMotion(company, this.seed);
      this.motions.set(empresa, motion);
    }
    const at = this.now();
    const made = motion.advance(changes, [...new Set(kinds)], at, requestIds);
    this.onAdvance?.(request, at);
    return made.map((change) => {
      const logged = { seq: this.log.length + 1, ...change } as SandboxChange;
      this.log.push(logged);
      return logged;
    });
  }

  /** Logged changes after `since` (a seq), at most CHANGES_PAGE, optionally of one company. */
  changesSince(since: number, empresa?: number): SandboxChange[] {
    const out: SandboxChange[] = [];
    for (let i = Math.max(0, since); i < this.log.length && out.length < CHANGES_PAGE; i++) {
      const change = this.log[i];
      if (change && (empresa === undefined || change.empresa === empresa)) out.push(change);
    }
    return out;
  }

  /** Advances a seeded choice of company every `everyMs`, until stop(). */
  start(everyMs: number, auto: AutoAdvance = {}): void {
    if (!Number.isFinite(everyMs) || everyMs < 1) throw new RangeError('advanceEveryMs must be at least 1');
    const pool = auto.empresaIds ?? [...this.served];
    const unknown = pool.filter((e) => !this.served.has(e));
    if (pool.length === 0 || unknown.length > 0) {
      throw new RangeError(`autoAdvance.empresaIds must name served companies (not ${unknown.join(', ')})`);
    }
    const pick = new Random(this.seed ^ 0x7a11_7e55);
    this.stop();
    this.timer = setInterval(() => {
      const empresaId = pick.pick(pool);
      try {
        this.advance({ empresaId, changes: auto.changes ?? 1, ...(auto.kinds && { kinds: auto.kinds }) });
      } catch (error) {
        process.stderr.write(`sandbox: automatic advance of company ${empresaId} failed: ${String(error)}\n`);
      }
    }, everyMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private companyOf(login: string | undefined, empresaId: number | undefined): number {
    const byLogin = login === undefined ? undefined : this.loginCompany.get(login);
    if (login !== undefined && byLogin === undefined) {
      throw new SandboxControlError(404, `login ${login} is not a sandbox login`);
    }
    if (empresaId !== undefined && !this.served.has(empresaId)) {
      throw new SandboxControlError(404, `company ${empresaId} is not served`);
    }
    if (byLogin !== undefined && empresaId !== undefined && byLogin !== empresaId) {
      throw new SandboxControlError(400, `login ${login} belongs to company ${byLogin}, not ${empresaId}`);
    }
    return empresaId ?? byLogin ?? DEFAULT_EMPRESA;
  }
}
