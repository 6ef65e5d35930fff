// Every error code aloft can answer with: its HTTP status, title and a one-paragraph
// explanation for the problem page at /problems/<code>. The single source of truth.

export interface ProblemCode {
  status: number
  title: string
  /** Shown on /problems/<code>: what happened and what the caller can do. */
  about: string
  /** Codes answered with a Retry-After header. */
  retryAfter?: true
  /**
   * On the Tawhiri paths (docs/DESIGN.md §9) the error's `type` and, where Tawhiri's differs, its
   * status; without it a 4xx is a RequestException and a 5xx an InternalException.
   */
  tawhiri?: { type: string, status?: number }
}

export const PROBLEM_CODES = {
  invalid_request: {
    status: 400,
    title: 'Invalid request',
    about: 'The request body or parameters do not match the schema. The `errors` member lists each failure with its ' +
      'location (`loc`), a message, a type, the offending input and context.'
  },
  invalid_json: {
    status: 400,
    title: 'Invalid JSON',
    about: 'The request body is not well-formed JSON (RFC 8259). Fix the syntax and send it again.'
  },
  unsupported_media_type: {
    status: 415,
    title: 'Unsupported media type',
    about: 'Request bodies must be sent as `Content-Type: application/json` (UTF-8).'
  },
  payload_too_large: {
    status: 413,
    title: 'Payload too large',
    about: 'The request body exceeds the size limit of its route (64 KiB for the JSON routes of the interface; ' +
      'capabilities publish the limits).'
  },
  malformed_request: {
    status: 400,
    title: 'Malformed HTTP request',
    about: 'The bytes received are not an HTTP/1.1 request aloft can read (a bad request line, header or chunked ' +
      'encoding). The connection is closed after this answer.'
  },
  request_timeout: {
    status: 408,
    title: 'Request timeout',
    about: 'The request did not arrive in time: its headers within `ALOFT_HEADERS_TIMEOUT_MS`, or all of it within ' +
      '`ALOFT_REQUEST_TIMEOUT_MS`. Slow connections are closed to keep the service available; send the request again.'
  },
  header_fields_too_large: {
    status: 431,
    title: 'Request header fields too large',
    about: "The request's header section exceeds the server's limit (16 KiB). The connection is closed after this " +
      'answer.'
  },
  missing_api_key: {
    status: 401,
    title: 'Missing API key',
    about: 'This operation needs an API key in the `X-API-Key` header.',
    tawhiri: { type: 'ApiKeyException' }
  },
  invalid_api_key: {
    status: 401,
    title: 'Invalid API key',
    about: 'The `X-API-Key` header does not name a known key. Keys are shown once at creation; ask your operator ' +
      'for a new one if it was lost.',
    tawhiri: { type: 'ApiKeyException' }
  },
  revoked_api_key: {
    status: 401,
    title: 'Revoked API key',
    about: 'The key in `X-API-Key` has been revoked. Use another key of your account or create a new one.',
    tawhiri: { type: 'ApiKeyException' }
  },
  unauthorized: {
    status: 401,
    title: 'Unauthorized',
    about: 'The operator endpoints need `Authorization: Bearer <admin token>`.'
  },
  forbidden: {
    status: 403,
    title: 'Forbidden',
    about: 'The credentials were understood but do not grant this operation.'
  },
  not_found: {
    status: 404,
    title: 'Not found',
    about: 'No such route or record. Check the path against /openapi.json.'
  },
  method_not_allowed: {
    status: 405,
    title: 'Method not allowed',
    about: 'The route exists but not for this HTTP method; the `Allow` header lists the methods it takes.'
  },
  outside_source_coverage: {
    status: 404,
    title: 'Outside source coverage',
    about: 'The requested place or time is not covered by the model data the source holds: the point lies outside ' +
      'its grid, or no model time lies within the allowed offset of the requested time. `detail` names the nearest ' +
        'available times.',
    tawhiri: { type: 'InvalidDatasetException' }
  },
  key_limit_reached: {
    status: 409,
    title: 'Key limit reached',
    about: 'The account holds the most live API keys it may (ALOFT_MAX_KEYS_PER_ACCOUNT, 100 by default). Revoke ' +
      'a key you no longer use (`DELETE /v1/keys/{id}`), then create the new one.'
  },
  outside_vertical_range: {
    status: 409,
    title: 'Outside supported vertical range',
    about: 'A requested height lies outside the pressure-level column at this point. `coverage` gives the range ' +
      'that can be served, in both references; heights exactly on a limit are served.'
  },
  rate_limited: {
    status: 429,
    title: 'Too many requests',
    about: 'The account made requests faster than its request rate allows, or has too many under way at once. ' +
      'Wait the number of seconds in `Retry-After`; `RateLimit-*` headers describe the bucket.',
    retryAfter: true,
    tawhiri: { type: 'RateLimitException' }
  },
  daily_allowance_exhausted: {
    status: 429,
    title: 'Daily allowance exhausted',
    about: "The account's daily allowance of upstream data fetches is spent and the answer would need a new fetch. " +
      "Profiles served from cached data still succeed; the allowance resets at 00:00 UTC (`Retry-After`).",
    retryAfter: true,
    tawhiri: { type: 'DailyAllowanceException' }
  },
  internal_error: {
    status: 500,
    title: 'Internal error',
    about: 'Something failed inside aloft. The `request_id` identifies the request in the service logs.'
  },
  unusable_source_column: {
    status: 502,
    title: 'Unusable source column',
    about: 'The upstream data for this point could not be used: it was not valid GRIB2, lacked required variables, ' +
      'did not match the requested model time or held non-finite values.',
    tawhiri: { type: 'PredictionException', status: 500 }
  },
  source_busy: {
    status: 503,
    title: 'Source busy',
    about: 'The upstream data source is failing or saturated. Wait the number of seconds in `Retry-After` and try ' +
      'again.',
    retryAfter: true,
    tawhiri: { type: 'ServiceUnavailableException' }
  },
  flight_incomplete: {
    status: 500,
    title: 'The flight could not be predicted to its end',
    about: 'On the Tawhiri paths, a flight that leaves the model data (in place or time) before it lands, or ' +
      'before its float ends, is refused rather than answered with a path whose last point would look like a ' +
      'landing. The description names where and when it left the data; launch earlier or closer to the middle of ' +
      'the data, or make the flight shorter. aloft\'s own route answers the partial path with `outcome`.',
    tawhiri: { type: 'PredictionException' }
  },
  service_unavailable: {
    status: 503,
    title: 'Service unavailable',
    about: 'aloft cannot serve this right now (a dependency such as the account store is unreachable, or the ' +
      'service is shutting down). Wait the number of seconds in `Retry-After`.',
    retryAfter: true,
    tawhiri: { type: 'ServiceUnavailableException' }
  }
} as const satisfies Record<string, ProblemCode>

export type ProblemCodeName = keyof typeof PROBLEM_CODES

export const PROBLEM_CODE_NAMES = Object.keys(PROBLEM_CODES) as ProblemCodeName[]

/** The `type` URI of a problem (served by aloft itself). */
export function problemType (code: ProblemCodeName): string {
  return `/problems/${code}`
}

/** On the profile route every 401 carries this title (docs/INTERFACE.md §1.7, §5). */
export const PROFILE_UNAUTHORIZED_TITLE = 'Invalid beta key'

/** A problem's Tawhiri error type and status (docs/DESIGN.md §9). */
export function tawhiriError (code: ProblemCodeName): { type: string, status: number } {
  const own: ProblemCode = PROBLEM_CODES[code]
  const status = own.tawhiri?.status ?? own.status
  return { type: own.tawhiri?.type ?? (status < 500 ? 'RequestException' : 'InternalException'), status }
}
