import { describe, expect, it } from 'vitest';
import { BudgetExhaustedError } from '../../src/upstream/budget-errors.js';
import {
  AuthRejectedError,
  CredentialsExpiredError,
  errorFromResponse,
  InvalidArgumentError,
  parseRetryAfter,
  UpstreamBadRequestError,
  UpstreamError,
  UpstreamErrorCode,
  UpstreamForbiddenError,
  UpstreamNetworkError,
  UpstreamNotFoundError,
  UpstreamRateLimitedError,
  UpstreamSchemaError,
  UpstreamServerError,
  UpstreamTimeoutError,
  UpstreamUnauthorizedError,
  UpstreamUnexpectedStatusError,
} from '../../src/upstream/errors.js';

const endpoint = 'GET /v1/materiais';
const problem = (fields: Record<string, unknown>) => ({
  type: 'https://tools.ietf.org/html/rfc7231#section-6.5.1',
  title: null,
  status: null,
  detail: null,
  instance: null,
  ...fields,
});

describe('errorFromResponse', () => {
  it('400 carries ProblemDetails.detail', () => {
    const error = errorFromResponse(
      400,
      problem({ title: 'Bad Request', status: 400, detail: 'O período deve ser de no máximo 12 meses' }),
      {},
      endpoint,
    );
    expect(error).toBeInstanceOf(UpstreamBadRequestError);
    expect(error).toMatchObject({
      status: 400,
      endpoint,
      retryable: false,
      code: 'upstream_bad_request',
      detail: 'O período deve ser de no máximo 12 meses',
    });
    expect(error.message).toContain('12 meses');
  });

  it('400 says which parameter it blames: a validation field (any case, `$.` prefix) or its cause naming it', () => {
    const blamed = (body: unknown) => errorFromResponse(400, body, {}, endpoint) as UpstreamBadRequestError;
    expect(blamed(problem({ errors: { PageSize: ['máximo 50'] } })).blames('PageSize')).toBe(true);
    expect(blamed(problem({ errors: { '$.pageSize': ['too large'] } })).blames('PageSize')).toBe(true);
    expect(blamed(problem({ detail: 'O pageSize deve ser no máximo 50.' })).blames('PageSize')).toBe(true);
    expect(blamed(problem({ errors: { Search: ['inválida'] } })).blames('PageSize')).toBe(false);
    expect(blamed(problem({ detail: 'MaxPageSizeExceeded' })).blames('PageSize')).toBe(true);
    expect(blamed(problem({ detail: 'O período deve ser de no máximo 12 meses' })).blames('PageSize')).toBe(
      false,
    );
    expect(blamed([{ PageSize: 'x' }]).blames('PageSize')).toBe(false);
    expect(blamed(undefined).blames('PageSize')).toBe(false);
  });

  it('400 blames a parameter by words given for it, in its cause or its title, any case and accents', () => {
    const blamed = (body: unknown) => errorFromResponse(400, body, {}, endpoint) as UpstreamBadRequestError;
    const words = ['page size', 'tamanho da página'];
    expect(blamed(problem({ detail: 'Page size must be between 1 and 50' })).blames('PageSize', words)).toBe(
      true,
    );
    expect(
      blamed(problem({ detail: 'O TAMANHO DA PAGINA deve ser até 50.' })).blames('PageSize', words),
    ).toBe(true);
    expect(
      blamed(problem({ title: 'Invalid PageSize', detail: 'Valor fora do intervalo.' })).blames('PageSize'),
    ).toBe(true);
    expect(blamed(problem({ detail: 'Parâmetros inválidos.' })).blames('PageSize', words)).toBe(false);
    // Without the words, prose is not read as naming the parameter.
    expect(blamed(problem({ detail: 'Page size must be between 1 and 50' })).blames('PageSize')).toBe(false);
  });

  it('400 falls back to the title, and to null without a body', () => {
    expect(errorFromResponse(400, problem({ title: 'Bad Request' }), {}, endpoint)).toMatchObject({
      detail: 'Bad Request',
    });
    expect(errorFromResponse(400, undefined, {}, endpoint)).toMatchObject({ detail: null });
  });

  it('400 with an ASP.NET validation body (title and errors, no detail) names the first field and its message', () => {
    const error = errorFromResponse(
      400,
      problem({
        title: 'One or more validation errors occurred.',
        status: 400,
        errors: { DataInicial: ["The value 'ontem' is not valid for DataInicial.", 'second'], Page: ['x'] },
        traceId: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00',
      }),
      {},
      endpoint,
    );
    expect(error).toMatchObject({ detail: "DataInicial: The value 'ontem' is not valid for DataInicial." });
    // A message of its own under `errors` (a string, or a field with an empty name) is read too.
    expect(errorFromResponse(400, problem({ errors: { '': 'Corpo inválido' } }), {}, endpoint)).toMatchObject(
      {
        detail: 'Corpo inválido',
      },
    );
    expect(errorFromResponse(400, problem({ errors: ['Status inválido'] }), {}, endpoint)).toMatchObject({
      detail: 'Status inválido',
    });
  });

  it('400 with a `message` property (an extension ProblemDetails allows) shows it, not the generic title', () => {
    const error = errorFromResponse(
      400,
      problem({ title: 'Bad Request', message: 'A anomalia típica informada é inválida' }),
      {},
      endpoint,
    );
    expect(error).toMatchObject({ detail: 'A anomalia típica informada é inválida' });
    // detail still comes first.
    expect(
      errorFromResponse(400, problem({ detail: 'Período inválido', message: 'outro' }), {}, endpoint),
    ).toMatchObject({ detail: 'Período inválido' });
  });

  it('400 never shows HTML markup as the cause; a bounded cause from the errors dictionary', () => {
    const html = '<html><head><title>400</title></head><body><h1>Bad Request</h1></body></html>';
    expect(
      errorFromResponse(400, problem({ detail: html, title: 'Bad Request' }), {}, endpoint),
    ).toMatchObject({ detail: 'Bad Request' });
    expect(errorFromResponse(400, problem({ message: '<p>erro</p>' }), {}, endpoint)).toMatchObject({
      detail: null,
    });
    const long = errorFromResponse(400, problem({ errors: { Search: ['y'.repeat(5000)] } }), {}, endpoint);
    // Cut to 300 characters, then the ellipsis.
    expect((long as UpstreamBadRequestError).detail).toBe(`Search: ${'y'.repeat(300 - 'Search: '.length)}…`);
  });

  it('401 without a body (type and category lists)', () => {
    const error = errorFromResponse(401, undefined, {}, 'GET /v1/materiais/tipos');
    expect(error).toBeInstanceOf(UpstreamUnauthorizedError);
    expect(error).toMatchObject({ status: 401, retryable: false, endpoint: 'GET /v1/materiais/tipos' });
  });

  it('403 and 404', () => {
    const forbidden = errorFromResponse(403, problem({ title: 'Forbidden', status: 403 }), {}, endpoint);
    expect(forbidden).toBeInstanceOf(UpstreamForbiddenError);
    expect(forbidden.retryable).toBe(false);
    const missing = errorFromResponse(
      404,
      problem({ detail: 'Solicitação não encontrada' }),
      {},
      'GET /v1/solicitacoes-materiais/{id}/itens',
    );
    expect(missing).toBeInstanceOf(UpstreamNotFoundError);
    expect(missing).toMatchObject({ status: 404, retryable: false, detail: 'Solicitação não encontrada' });
  });

  it('429 is retryable and reads Retry-After when present', () => {
    const plain = errorFromResponse(429, problem({ status: 429 }), {}, endpoint);
    expect(plain).toBeInstanceOf(UpstreamRateLimitedError);
    expect(plain).toMatchObject({ retryable: true });
    expect((plain as UpstreamRateLimitedError).retryAfterMs).toBeUndefined();
    const told = errorFromResponse(429, undefined, { 'retry-after': '30' }, endpoint);
    expect((told as UpstreamRateLimitedError).retryAfterMs).toBe(30_000);
  });

  it('500 carries the ErrorCommandResult hash', () => {
    const error = errorFromResponse(500, { type: 'Unexpected Error', hash: '9F2C1A' }, {}, endpoint);
    expect(error).toBeInstanceOf(UpstreamServerError);
    expect(error).toMatchObject({ status: 500, retryable: true, hash: '9F2C1A', type: 'Unexpected Error' });
    expect(error.message).toContain('9F2C1A');
  });

  it('500 with extra properties is still read', () => {
    const error = errorFromResponse(500, { type: 'Error', hash: 'H1', stackTrace: 'at Foo()' }, {}, endpoint);
    expect(error).toMatchObject({ hash: 'H1' });
    expect(error.message).not.toContain('Foo');
  });

  it('503 without a body', () => {
    const error = errorFromResponse(503, undefined, {}, endpoint);
    expect(error).toBeInstanceOf(UpstreamServerError);
    expect(error).toMatchObject({ status: 503, retryable: true, hash: null, type: null });
  });

  it('a non-JSON 500 body (an HTML page or raw text) does not break it', () => {
    for (const body of ['<html><body>Internal Server Error</body></html>', 42, ['x'], null]) {
      const error = errorFromResponse(500, body, { 'content-type': 'text/html' }, endpoint);
      expect(error).toBeInstanceOf(UpstreamServerError);
      expect(error).toMatchObject({ hash: null });
      expect(error.message).not.toContain('html');
    }
  });

  it('any other status is unexpected and not retryable', () => {
    for (const status of [302, 405, 408, 409, 422]) {
      const error = errorFromResponse(status, undefined, {}, endpoint);
      expect(error).toBeInstanceOf(UpstreamUnexpectedStatusError);
      expect(error).toMatchObject({ status, retryable: false });
    }
  });

  it('masks a JWT echoed in a detail and truncates long ones', () => {
    const jwt =
      'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';
    const error = errorFromResponse(400, problem({ detail: `invalid token ${jwt}` }), {}, endpoint);
    expect(error.message).toContain('invalid token [redacted-jwt]');
    expect(JSON.stringify(error)).not.toContain(jwt);
    const long = errorFromResponse(400, problem({ detail: 'x'.repeat(5000) }), {}, endpoint);
    expect((long as UpstreamBadRequestError).detail).toBe(`${'x'.repeat(300)}…`);
  });
});

describe('the trace id of a failure (the API document: logged when available)', () => {
  const traceId = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00';

  it('is read from the ProblemDetails traceId extension of every error status', () => {
    for (const status of [400, 401, 403, 404, 429, 500, 503, 409]) {
      const error = errorFromResponse(status, problem({ status, traceId }), {}, endpoint);
      expect(error.traceId).toBe(traceId);
    }
    expect(errorFromResponse(404, problem({}), {}, endpoint).traceId).toBeUndefined();
    expect(errorFromResponse(500, { type: 'Error', hash: 'H1' }, {}, endpoint).traceId).toBeUndefined();
    expect(errorFromResponse(401, undefined, {}, endpoint).traceId).toBeUndefined();
    expect(errorFromResponse(400, problem({ traceId: 42 }), {}, endpoint).traceId).toBeUndefined();
  });

  it('is bounded and sanitized: no line break, quote, markup or token reaches a log field', () => {
    const jwt =
      'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';
    const dirty = errorFromResponse(400, problem({ traceId: `ab"c\n<b>d</b> ${jwt}` }), {}, endpoint);
    expect(dirty.traceId).toMatch(/^[\w.:|/+=@-]+$/);
    expect(dirty.traceId).not.toContain(jwt);
    expect(dirty.traceId).toContain('abc');
    const long = errorFromResponse(400, problem({ traceId: 'a'.repeat(5000) }), {}, endpoint);
    expect(long.traceId).toHaveLength(128);
    expect(errorFromResponse(400, problem({ traceId: ' "\n ' }), {}, endpoint).traceId).toBeUndefined();
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates', () => {
    const now = Date.parse('2026-11-22T10:00:00Z');
    expect(parseRetryAfter('2', now)).toBe(2_000);
    expect(parseRetryAfter('Sun, 22 Nov 2026 10:00:05 GMT', now)).toBe(5_000);
    expect(parseRetryAfter('Sun, 22 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  it('reads the header whatever its case or multiplicity', () => {
    const error = errorFromResponse(429, undefined, { 'Retry-After': ['3', '9'] }, endpoint);
    expect((error as UpstreamRateLimitedError).retryAfterMs).toBe(3_000);
  });
});

describe('the hierarchy', () => {
  it('retryable only for 429, 5xx, timeout and network', () => {
    const cause = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    const retryable = [
      new UpstreamRateLimitedError(endpoint),
      new UpstreamServerError(endpoint, 502),
      new UpstreamTimeoutError(endpoint, 1000),
      new UpstreamNetworkError(endpoint, cause),
    ];
    const final = [
      new UpstreamBadRequestError(endpoint, null),
      new UpstreamUnauthorizedError(endpoint),
      new UpstreamForbiddenError(endpoint),
      new UpstreamNotFoundError(endpoint),
      new UpstreamSchemaError(endpoint, '$[0].material: expected int'),
      new UpstreamUnexpectedStatusError(endpoint, 418),
      new InvalidArgumentError('almoxarifadoId', 'must be an int32'),
      new AuthRejectedError('Senha inválida', false),
      new CredentialsExpiredError(),
      new BudgetExhaustedError(Date.parse('2026-11-22T11:00:00Z'), 'interactive'),
    ];
    for (const error of [...retryable, ...final]) {
      expect(error).toBeInstanceOf(UpstreamError);
      expect(error).toBeInstanceOf(Error);
      expect(Object.values(UpstreamErrorCode)).toContain(error.code);
      expect(error.name).toBe(error.constructor.name);
    }
    expect(retryable.map((e) => e.retryable)).toEqual([true, true, true, true]);
    expect(final.every((e) => !e.retryable)).toBe(true);
  });

  it('network errors keep the original as cause and name its code', () => {
    const cause = Object.assign(new Error('getaddrinfo ENOTFOUND api.example'), { code: 'ENOTFOUND' });
    const error = new UpstreamNetworkError(endpoint, cause);
    expect(error.cause).toBe(cause);
    expect(error.networkCode).toBe('ENOTFOUND');
    expect(error.message).toContain('ENOTFOUND');
  });

  it('errors for other modules carry their fields', () => {
    expect(new InvalidArgumentError('pageSize', 'must be between 1 and 100')).toMatchObject({
      field: 'pageSize',
      message: 'pageSize: must be between 1 and 100',
    });
    expect(new AuthRejectedError(null, true)).toMatchObject({
      upstreamMessage: null,
      hasActiveSession: true,
    });
    const budget = new BudgetExhaustedError(1_800_000_000_000, 'background');
    expect(budget).toMatchObject({ retryAt: 1_800_000_000_000, priority: 'background', retryable: false });
  });
});

describe('a login refusal read as wrong credentials (the password is then never sent again)', () => {
  const wrong = (message: string | null) => new AuthRejectedError(message, false).wrongCredentials;

  it('is one that names the password, the credentials, or the login or user as invalid or unknown', () => {
    for (const message of [
      'Usuário ou senha inválidos.',
      'Login ou senha inválidos',
      'Senha incorreta.',
      'Credenciais inválidas',
      'Usuário inválido.',
      'Login não encontrado',
      'Usuário não cadastrado',
      'Invalid username or password',
      'Invalid credentials',
      'Unknown user',
    ])
      expect([message, wrong(message)]).toEqual([message, true]);
  });

  it('is not a passing refusal, a token refused, or another field called invalid', () => {
    for (const message of [
      'Serviço temporariamente indisponível',
      'Serviço temporariamente indisponível. Tente novamente mais tarde.',
      'Serviço de autenticação de senha indisponível',
      'Sistema em manutenção',
      'Service unavailable, try again later',
      'Token inválido',
      'Refresh token inválido.',
      'Token inválido para este refresh token.',
      'Plataforma inválida para integrações: use Plataform=6 (API).',
      'Requisição inválida',
      'Sessão inválida',
      'Erro interno',
    ])
      expect([message, wrong(message)]).toEqual([message, false]);
    expect(wrong(null)).toBe(false);
  });
});
