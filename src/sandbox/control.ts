import { z } from 'zod';
import { CompanyMotion, MAX_CHANGES_PER_ADVANCE } from './advance.js';
import { type AdvanceRequest, CHANGE_KINDS, type SandboxChange } from './changes.js';
import type { SandboxData } from './model.js';

/** Advances of the sandbox's data on request, and the log of every change made, numbered from 1. */

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
  })
  .strict();

export const DEFAULT_EMPRESA = 1;

export class SandboxControl {
  private readonly motions = new Map<number, CompanyMotion>();
  private readonly log: SandboxChange[] = [];
  private readonly served: Set<number>;
  private readonly loginCompany: Map<string, number>;

  constructor(
    private readonly data: SandboxData,
    private readonly seed: number,
    private readonly now: () => number,
  ) {
    this.served = new Set(data.empresaIds);
    this.loginCompany = new Map(data.accounts.map((a) => [a.login, a.empresa]));
  }

  /** Every change made so far, in order. */
  get changes(): readonly SandboxChange[] {
    return this.log;
  }

  /** Validates the request, then makes the changes and logs them. */
  advance(request: AdvanceRequest = {}): SandboxChange[] {
    const parsed = ADVANCE_SCHEMA.safeParse(request);
    if (!parsed.success) {
      const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`);
      throw new SandboxControlError(400, problems.join('; '));
    }
    const { login, empresaId, changes = 1, kinds = CHANGE_KINDS } = parsed.data;
    const empresa = this.companyOf(login, empresaId);
    const company = this.data.company(empresa);
    if (!company) throw new SandboxControlError(404, `company ${empresa} is not served`);
    let motion = this.motions.get(empresa);
    if (!motion) {
      motion = new CompanyMotion(company, this.seed);
      this.motions.set(empresa, motion);
    }
    const made = motion.advance(changes, [...new Set(kinds)], this.now());
    return made.map((change) => {
      const logged = { seq: this.log.length + 1, ...change } as SandboxChange;
      this.log.push(logged);
      return logged;
    });
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
