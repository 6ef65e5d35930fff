// Reads a JSON request body: media type, 64 KiB limit, well-formed JSON, finite numbers.
import type { IncomingMessage } from 'node:http'
import { LIMITS } from '../contract/limits.js'
import { HttpProblem } from './problem.js'

function isJsonMediaType (contentType: string): boolean {
  const [type, ...params] = contentType.split(';').map((s) => s.trim().toLowerCase())
  if (type !== 'application/json' && !/^application\/[a-z0-9.+-]+\+json$/.test(type)) return false
  const charset = params.find((p) => p.startsWith('charset='))
  return charset === undefined || /^charset="?utf-8"?$/.test(charset)
}

async function readLimited (req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = req.headers['content-length']
  if (declared !== undefined && Number(declared) > limit) {
    throw new HttpProblem('payload_too_large', { detail: `The body is ${declared} bytes; the limit is ${limit} bytes.` })
  }
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    size += (chunk as Buffer).length
    if (size > limit) {
      throw new HttpProblem('payload_too_large', { detail: `The body exceeds the limit of ${limit} bytes.` })
    }
    chunks.push(chunk as Buffer)
  }
  return Buffer.concat(chunks, size)
}

/**
 * The parsed body, or `undefined` when the request has none (the schema then reports it as
 * missing). Non-finite numbers (e.g. 1e400) are refused here: JSON.parse would make them Infinity.
 */
export async function readJsonBody (req: IncomingMessage): Promise<unknown> {
  const contentType = req.headers['content-type']
  const hasBody = (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0') || req.headers['transfer-encoding'] !== undefined
  if (contentType === undefined) {
    if (!hasBody) return undefined
    throw new HttpProblem('unsupported_media_type', { detail: 'The request has a body but no Content-Type; send application/json.' })
  }
  if (!isJsonMediaType(contentType)) {
    throw new HttpProblem('unsupported_media_type', { detail: `Content-Type ${JSON.stringify(contentType.slice(0, 100))} is not accepted; send application/json (UTF-8).` })
  }
  const bytes = await readLimited(req, LIMITS.maxBodyBytes)
  if (bytes.length === 0) return undefined
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes)
  } catch {
    throw new HttpProblem('invalid_json', { detail: 'The body is not valid UTF-8.' })
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (err) {
    throw new HttpProblem('invalid_json', { detail: `The body is not well-formed JSON: ${(err as Error).message}` })
  }
  const nonFinite = nonFinitePaths(value, ['body'])
  if (nonFinite.length > 0) {
    throw new HttpProblem('invalid_request', {
      detail: 'A number in the body is too large to be represented.',
      errors: nonFinite.map((loc) => ({ loc, msg: 'Input should be a finite number', type: 'finite_number' }))
    })
  }
  return value
}

function nonFinitePaths (value: unknown, path: Array<string | number>): Array<Array<string | number>> {
  if (typeof value === 'number') return Number.isFinite(value) ? [] : [path]
  if (value === null || typeof value !== 'object') return []
  if (Array.isArray(value)) return value.flatMap((v, i) => nonFinitePaths(v, [...path, i]))
  return Object.entries(value).flatMap(([k, v]) => nonFinitePaths(v, [...path, k]))
}
