// The last stage of a route that answers with one body: the reply serialised and written with its
// status, media type and length.
import type { ServerResponse } from 'node:http'
import type { Serializer } from '../contract/index.js'
import type { Reply } from './context.js'

/** Writes the reply; returns the text sent. */
export function send (res: ServerResponse, reply: Reply, defaultStatus: number, serialize: Serializer): string {
  const payload = reply.mediaType === undefined ? serialize(reply.body) : String(reply.body)
  if (reply.headers !== undefined) for (const name in reply.headers) res.setHeader(name, String(reply.headers[name]))
  // As text: Node joins it to the header text and writes both at once, straight from the string
  // (no Buffer made of the answer first).
  sendBody(res, reply.status ?? defaultStatus, reply.mediaType ?? 'application/json', payload)
  return payload
}

/** Writes a whole answer: status, Content-Type, Content-Length, body. */
export function sendBody (res: ServerResponse, status: number, mediaType: string, body: string | Buffer): void {
  res.statusCode = status
  res.setHeader('Content-Type', mediaType)
  res.setHeader('Content-Length', typeof body === 'string' ? Buffer.byteLength(body) : body.length)
  res.end(body)
}
