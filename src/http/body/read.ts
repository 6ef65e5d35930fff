// Reads a JSON request body's bytes: its media type, the route's size limit (declared or
// streamed), a client gone mid-body. Parsing them is parse.ts's.
import type { IncomingMessage } from 'node:http'
import { HttpProblem } from '../problem.js'
import type { BodyBuffers } from './buffers.js'
import { ClientGoneError } from '../client-gone.js'

export function isJsonMediaType (contentType: string): boolean {
  if (contentType === 'application/json') return true // nearly every request: no split, no regex
  const [type, ...params] = contentType.split(';').map((s) => s.trim().toLowerCase())
  if (type !== 'application/json' && !/^application\/[a-z0-9.+-]+\+json$/.test(type)) return false
  const charset = params.find((p) => p.startsWith('charset='))
  return charset === undefined || /^charset="?utf-8"?$/.test(charset)
}

/**
 * The body's bytes, refused past `limit` (declared or streamed). Events, not an async iterator: this is the hot path.
 * With `buffers` and a declared length, the chunks are copied into one of its buffers as they
 * come (give it back once read) instead of joined into a new one.
 */
export function readLimited (req: IncomingMessage, limit: number, buffers?: BodyBuffers): Promise<Buffer> {
  const declared = req.headers['content-length']
  if (declared !== undefined && Number(declared) > limit) {
    return Promise.reject(new HttpProblem('payload_too_large',
      { detail: `The body is ${declared} bytes; the limit is ${limit} bytes.` }))
  }
  // the parser never passes more bytes than the declared length
  const length = Number(declared)
  const into = buffers !== undefined && Number.isSafeInteger(length) && length > 0 ? buffers.take(length) : null
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const done = (): void => {
      req.off('data', onData)
      req.off('end', onEnd)
      req.off('error', onError)
      req.off('close', onClose)
    }
    const onData = (chunk: Buffer): void => {
      size += chunk.length
      if (size > limit) {
        done()
        // The rest is never read: the answer closes the connection instead.
        reject(new HttpProblem('payload_too_large',
          { detail: `The body exceeds the limit of ${limit} bytes.`, headers: { Connection: 'close' } }))
        return
      }
      if (into !== null) into.set(chunk, size - chunk.length)
      else chunks.push(chunk)
    }
    const onEnd = (): void => {
      done()
      if (into !== null) resolve(into.subarray(0, size))
      else resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size))
    }
    const onError = (err: Error): void => { done(); reject(new ClientGoneError(err.message)) }
    // A client gone mid-body may end the stream with neither 'end' nor 'error': never wait forever.
    const onClose = (): void => { done(); reject(new ClientGoneError('the request closed before its body ended')) }
    req.on('data', onData)
    req.on('end', onEnd)
    req.on('error', onError)
    req.on('close', onClose)
  })
}

/** Whether the request says a body follows (a length above 0, or chunks). */
export function declaresBody (req: IncomingMessage): boolean {
  const length = req.headers['content-length']
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined
}

/** A JSON body's bytes as sent (media type and size checked), or `undefined` when there is none. */
export async function readJsonBytes (
  req: IncomingMessage, limitBytes: number, buffers?: BodyBuffers
): Promise<Buffer | undefined> {
  const contentType = req.headers['content-type']
  if (contentType === undefined) {
    if (!declaresBody(req)) return undefined
    throw new HttpProblem('unsupported_media_type',
      { detail: 'The request has a body but no Content-Type; send application/json.' })
  }
  if (!isJsonMediaType(contentType)) {
    const shown = JSON.stringify(contentType.slice(0, 100))
    throw new HttpProblem('unsupported_media_type',
      { detail: `Content-Type ${shown} is not accepted; send application/json (UTF-8).` })
  }
  const bytes = await readLimited(req, limitBytes, buffers)
  return bytes.length === 0 ? undefined : bytes
}
