// createClient: one typed method per operation of the service (operations.ts says which), over one
// transport with the key, the timeout and the retry rule (transport.ts). Node 20 and browsers alike:
// only fetch, URL and AbortSignal are used; apache-arrow is loaded only by samplesArrow.
import type { Table } from 'apache-arrow'
import { jsonOf, send, type Call, type TransportOptions } from './transport.js'
import type {
  AccountInfo, AtmosphereRequest, AtmosphereResponse, BetaUsage, Capabilities, CreatedAccount, CreatedKey, Health,
  KeyInfo, KeyList, KeyListQuery, NewAccount, NewKey, SamplesRequest, SamplesResponse, TrajectoryRequest,
  TrajectoryResponse
} from './types.js'

/** The Arrow IPC stream media type aloft answers samples in. */
export const ARROW_STREAM = 'application/vnd.apache.arrow.stream'

export interface ClientOptions {
  /** The service's address, e.g. `https://aloft.example.org`; `''` in a page the service itself serves. */
  baseUrl: string
  /** The account's API key (X-API-Key), or a function read on every call (a key the user may change). */
  apiKey?: string | (() => string | undefined)
  /** The operator token (ALOFT_ADMIN_TOKEN), for createAccount. */
  adminToken?: string
  /** Milliseconds one attempt may take, its answer read whole (default 30 000). */
  timeoutMs?: number
  /** How many times a 429 or 503 is asked again after its Retry-After (default 3; 0 raises at once). */
  maxRetries?: number
  /** A Retry-After longer than this (seconds; default 60) is raised at once rather than waited for. */
  maxRetryWaitSeconds?: number
  /** The fetch to use (default the global one). */
  fetch?: typeof globalThis.fetch
}

/** Per call: a signal that cancels it (and any wait before a retry). */
export interface CallOptions { signal?: AbortSignal }

export interface AloftClient {
  /** Wind, temperature, pressure, humidity and density at 1–32 heights above a point. */
  profile: (body: AtmosphereRequest, options?: CallOptions) => Promise<AtmosphereResponse>
  /** Many points at once, as JSON columns. */
  samples: (body: SamplesRequest, options?: CallOptions) => Promise<SamplesResponse>
  /**
   * Many points at once, as an Apache Arrow table (needs the `apache-arrow` package); the units are in
   * the schema's metadata `aloft:units` (JSON), as `unitsOf` reads them.
   */
  samplesArrow: (body: SamplesRequest, options?: CallOptions) => Promise<Table>
  /** A balloon flight (Tawhiri-compatible), with an optional ensemble. */
  trajectory: (body: TrajectoryRequest, options?: CallOptions) => Promise<TrajectoryResponse>
  capabilities: (options?: CallOptions) => Promise<Capabilities>
  usage: (options?: CallOptions) => Promise<BetaUsage>
  account: (options?: CallOptions) => Promise<AccountInfo>
  /** A new key for the calling account; its secret is in the answer only. */
  createKey: (body: NewKey, options?: CallOptions) => Promise<CreatedKey>
  listKeys: (query?: KeyListQuery, options?: CallOptions) => Promise<KeyList>
  revokeKey: (id: string, options?: CallOptions) => Promise<KeyInfo>
  /** Operator: a new account and its first key (needs `adminToken`). */
  createAccount: (body: NewAccount, options?: CallOptions) => Promise<CreatedAccount>
  health: (options?: CallOptions) => Promise<Health>
  /** Readiness: the document whether ready (200) or not (503), never retried. */
  ready: (options?: CallOptions) => Promise<Health>
  /** The service's OpenAPI document. */
  openapi: (options?: CallOptions) => Promise<Record<string, unknown>>
}

export function createClient (options: ClientOptions): AloftClient {
  if (typeof options?.baseUrl !== 'string') {
    throw new TypeError('createClient needs { baseUrl }, the service\'s address')
  }
  const transport: TransportOptions = {
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    adminToken: options.adminToken,
    timeoutMs: options.timeoutMs ?? 30_000,
    maxRetries: options.maxRetries ?? 3,
    maxRetryWaitSeconds: options.maxRetryWaitSeconds ?? 60,
    fetch: options.fetch ?? ((...args) => globalThis.fetch(...args))
  }
  const json = async <T>(call: Call, { signal }: CallOptions = {}): Promise<T> =>
    jsonOf<T>(await send(transport, { ...call, signal }))
  const post = <T>(path: string, body: unknown, options?: CallOptions, auth?: Call['auth']): Promise<T> =>
    json<T>({ method: 'POST', path, body, auth }, options)
  return {
    profile: (body, o) => post('/v1/atmosphere/profile', body, o),
    samples: (body, o) => post('/v1/atmosphere/samples', body, o),
    samplesArrow: async (body, o) => {
      const { body: bytes } = await send(transport, { method: 'POST', path: '/v1/atmosphere/samples', body,
        accept: ARROW_STREAM, signal: o?.signal })
      const { tableFromIPC } = await import('apache-arrow')
      return tableFromIPC(new Uint8Array(bytes))
    },
    trajectory: (body, o) => post('/v1/atmosphere/trajectory', body, o),
    capabilities: (o) => json({ method: 'GET', path: '/v1/atmosphere/capabilities', auth: 'none' }, o),
    usage: (o) => json({ method: 'GET', path: '/v1/atmosphere/usage' }, o),
    account: (o) => json({ method: 'GET', path: '/v1/account' }, o),
    createKey: (body, o) => post('/v1/keys', body, o),
    listKeys: (query = {}, o) => json({ method: 'GET', path: '/v1/keys', query: { ...query } }, o),
    revokeKey: (id, o) => json({ method: 'DELETE', path: `/v1/keys/${encodeURIComponent(id)}` }, o),
    createAccount: (body, o) => post('/v1/admin/accounts', body, o, 'admin'),
    health: (o) => json({ method: 'GET', path: '/healthz', auth: 'none' }, o),
    ready: (o) => json({ method: 'GET', path: '/readyz', auth: 'none', ownAnswer: 503 }, o),
    openapi: (o) => json({ method: 'GET', path: '/openapi.json', auth: 'none' }, o)
  }
}

/** The units (model run, forecast hour, sources) an Arrow samples answer carries in its metadata. */
export function unitsOf (table: Table): SamplesResponse['units'] {
  const text = table.schema.metadata.get('aloft:units')
  if (text === undefined) throw new Error('this table has no aloft:units metadata: is it an aloft samples answer?')
  return JSON.parse(text) as SamplesResponse['units']
}
