// Structured JSON logs (pino). Nothing that could carry a secret is ever passed to the logger:
// request logs name method, path, status, duration, request id and account id only.
import { pino, type Logger, type DestinationStream } from 'pino'
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
    }
  }
  return destination === undefined ? pino(options) : pino(options, destination)
}
