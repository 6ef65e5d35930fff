// Ids, API key secrets and their hashes. A secret is 256 random bits, so a plain SHA-256 is a
// sufficient one-way store (no salt or slow hash needed: there is nothing to guess).
import { hash, randomBytes, timingSafeEqual } from 'node:crypto'

export const SECRET_PREFIX = 'aloft_'
const SECRET_BYTES = 32
/** 'aloft_' + 43 base64url characters. */
const SECRET_LENGTH = SECRET_PREFIX.length + Math.ceil(SECRET_BYTES * 4 / 3)
/** Shown in listings: 'aloft_' + 6 characters (36 bits), enough to recognise, far from enough to use. */
const DISPLAY_LENGTH = 12
const SECRET_SHAPE = /^aloft_[A-Za-z0-9_-]{43}$/

/** A short url-safe id with a type prefix, e.g. `acct_Xb3…` (96 random bits). */
export function newId (type: 'acct' | 'key'): string {
  return `${type}_${randomBytes(12).toString('base64url')}`
}

export function newSecret (): { secret: string, hash: string, prefix: string } {
  const secret = SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64url')
  return { secret, hash: hashSecret(secret), prefix: secret.slice(0, DISPLAY_LENGTH) }
}

/** Hex SHA-256 of the secret: the only form in which a key is stored. */
export function hashSecret (secret: string): string {
  return hash('sha256', secret, 'hex') // one-shot: no Hash object per request
}

/** Anything not shaped like one of our secrets cannot match; refuse it without a lookup. */
export function looksLikeSecret (candidate: string): boolean {
  return candidate.length === SECRET_LENGTH && SECRET_SHAPE.test(candidate)
}

/**
 * Anything shaped like a key (`aloft_` and at least 16 characters of the secret's alphabet, a cut
 * key too) in any spelling a URL may give it — any of its characters percent-escaped, in either hex
 * case — replaced by `aloft_[redacted]`: for every path, query and detail that is logged or echoed,
 * whatever the shape of the path it came in (docs/DESIGN.md §10). A capital or a digit among them
 * tells a key (random base64url: all but surely has one in 16 characters) from aloft's own names
 * (`aloft_http_requests_total`), which have none.
 */
export function redactSecrets (text: string): string {
  return text.includes('aloft') || text.includes('%') ? text.replace(KEY_SHAPED, REDACTED) : text
}

/** A character as written, or percent-escaped (`%6c`, `%6C`): a path means the same either way. */
function anySpelling (c: string): string {
  const [high, low] = c.charCodeAt(0).toString(16)
  return `(?:${c}|%${high}[${low}${low.toUpperCase()}])`
}

const KEY_SHAPED = new RegExp([...SECRET_PREFIX].map(anySpelling).join('') +
  '(?=[A-Za-z0-9_%-]*[A-Z0-9])(?:[A-Za-z0-9_-]|%[0-9A-Fa-f]{2}){16,}', 'g')
const REDACTED = 'aloft_[redacted]'

/** Constant-time equality of two hex hashes. */
export function sameHash (a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex')
  const y = Buffer.from(b, 'hex')
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y)
}
