// Structured JSON logs (pino). Nothing that could carry a secret is ever passed to the logger:
// request logs name method, path, status, duration, request id and account id only. A path may
// still hold a key its client put where no key belongs (`/K/<key>/…`): every string field and
// message is redacted of key-shaped text before it is written (docs/DESIGN.md §10).
import { once } from 'node:events'
import { pino, type Logger, type DestinationStream, type LogFn } from 'pino'
import { redactSecrets } from './accounts/index.js'
import type { Config } from './config/index.js'

export type { Logger }

export function createLogger (level: Config['logLevel'], destination?: DestinationStream): Logger {
  const options = {
    level,
    base: { service: 'aloft' },
    timestamp: pino.stdTimeFunctions.isoTime,
    // Belt and braces: should a header object ever reach a log call, its secrets are masked.
    redact: {
      paths: ['*.headers["x-api-key"]', '*.headers.authorization', 'headers["x-api-key"]', 'headers.authorization'],
      censor: '[redacted]'
    },
    hooks: { logMethod: redactArguments }
  }
  return destination === undefined ? pino(options) : pino(options, destination)
}

/**
 * Resolves once every line given to `logger` has been written to its destination. pino's flush() calls
 * back at once when its stream does not buffer (minLength 0, stdout's default) though a write may still
 * be under way; its sonic-boom says when a write ends ('write') and whether another began (`_writing`).
 */
export async function linesWritten (logger: Logger): Promise<void> {
  const stream = (logger as unknown as Record<symbol, unknown>)[pino.symbols.streamSym] as
    (NodeJS.EventEmitter & { _writing?: boolean }) | undefined
  while (stream?._writing === true) {
    // a destination that fails (stdout closed) writes nothing more to wait for
    try { await once(stream, 'write') } catch { return }
  }
}

/** A log call's message, its object's string fields and errors, key-shaped text redacted. */
function redactArguments (this: Logger, args: Parameters<LogFn>, method: LogFn): void {
  for (let k = 0; k < args.length; k++) {
    const arg: unknown = args[k]
    if (typeof arg === 'string') {
      args[k] = redactSecrets(arg)
    } else if (arg instanceof Error) {
      args[k] = redactError(arg)
    } else if (arg !== null && typeof arg === 'object') {
      let fields = arg as Record<string, unknown>
      for (const name of Object.keys(fields)) {
        const value = fields[name]
        const redacted = typeof value === 'string'
          ? redactSecrets(value)
          : value instanceof Error ? redactError(value) : value
        // a copy: the caller's object is not changed under it
        if (redacted !== value) fields = { ...fields, [name]: redacted }
      }
      args[k] = fields
    }
  }
  method.apply(this, args as never)
}

/** The error itself, or a copy (name, message, stack) with key-shaped text redacted. */
function redactError (err: Error): Error {
  const message = redactSecrets(err.message)
  const stack = err.stack === undefined ? undefined : redactSecrets(err.stack)
  if (message === err.message && stack === err.stack) return err
  const copy = new Error(message)
  copy.name = err.name
  copy.stack = stack
  return copy
}
