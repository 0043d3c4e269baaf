/** Statuses a test may stage. */
/** 200 only with a `body`: a well-formed answer whose content is wrong (a `null` list…). */
export type FaultStatus = 200 | 400 | 401 | 403 | 404 | 429 | 500 | 502 | 503 | 504;

export interface FaultSpec {
  /** Which requests: an exact path (`/v1/almoxarifados`, trailing slash ignored) or a RegExp tested on path + query. Default: any. */
  path?: string | RegExp;
  /** Only this HTTP method (default: any). */
  method?: string;
  /** Answer this status. Without it (and without dropConnection) the request is served normally after delayMs. */
  status?: FaultStatus;
  /** How many matching requests the fault hits (default 1). */
  times?: number;
  /** Wait this long before answering (or before dropping the connection). */
  delayMs?: number;
  /** In-process tests: wait until this settles before answering (the test decides when the answer comes). */
  release?: Promise<unknown>;
  /** Body to send; default ErrorCommandResult for 500, ProblemDetails otherwise. A string is sent as is. */
  body?: unknown;
  /** Content type of the body (default application/json for 500, application/problem+json otherwise). */
  contentType?: string;
  /** Extra response headers (for example a Retry-After the real service does not document). */
  headers?: Record<string, string>;
  /** Destroy the socket without answering. */
  dropConnection?: boolean;
  /**
   * Answer 200 with a JSON array of about this many bytes, streamed in chunks as the client reads them (the
   * sandbox never holds it whole): `row` repeated (default a filler object). Without `declareLength` it is sent
   * chunked, so only reading it tells its size.
   */
  huge?: { bytes: number; row?: unknown; declareLength?: boolean };
}

export interface SandboxFaults {
  /** Queues a fault; the first queued fault that matches a request is applied to it. */
  next(spec: FaultSpec): void;
  /** Removes every queued fault. */
  clear(): void;
  /** Matching requests still to be hit by queued faults. */
  readonly pending: number;
}

interface QueuedFault {
  spec: FaultSpec;
  remaining: number;
}

function trimSlash(path: string): string {
  return path.length > 1 ? path.replace(/\/+$/, '') : path;
}

export class FaultQueue implements SandboxFaults {
  private queue: QueuedFault[] = [];

  next(spec: FaultSpec): void {
    const times = spec.times ?? 1;
    if (!Number.isInteger(times) || times < 1) throw new RangeError('fault times must be a positive integer');
    if (
      spec.status === undefined &&
      !spec.dropConnection &&
      spec.delayMs === undefined &&
      spec.release === undefined &&
      spec.huge === undefined
    ) {
      throw new TypeError('a fault needs a status, dropConnection, delayMs or huge');
    }
    this.queue.push({ spec: { ...spec }, remaining: times });
  }

  clear(): void {
    this.queue = [];
  }

  get pending(): number {
    return this.queue.reduce((sum, f) => sum + f.remaining, 0);
  }

  /** The fault for this request, consuming one of its hits; undefined when none matches. */
  take(method: string, pathname: string, search: string): FaultSpec | undefined {
    const index = this.queue.findIndex(({ spec }) => matches(spec, method, pathname, search));
    const fault = this.queue[index];
    if (!fault) return undefined;
    fault.remaining -= 1;
    if (fault.remaining === 0) this.queue.splice(index, 1);
    return fault.spec;
  }
}

function matches(spec: FaultSpec, method: string, pathname: string, search: string): boolean {
  if (spec.method !== undefined && spec.method.toUpperCase() !== method.toUpperCase()) return false;
  if (spec.path === undefined) return true;
  if (typeof spec.path === 'string') return trimSlash(spec.path) === trimSlash(pathname);
  spec.path.lastIndex = 0;
  return spec.path.test(`${pathname}${search}`);
}
