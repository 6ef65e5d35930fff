// One POST over node:http on a kept-alive connection, the answer's bytes gathered in one Buffer.
// Bulk answers are megabytes: fetch's body stream and its own concatenation took ~50 ms of a
// 10.6 MB Arrow answer on this machine, longer than the server's whole compute, so the samples
// benchmarks read with this by default (the --client fetch rows keep fetch's figure).
import { Agent, request } from 'node:http'

const agent = new Agent({ keepAlive: true, maxSockets: 1 })

export interface Posted { status: number, bytes: Uint8Array, headersAt: number }

/** POSTs `body` to `url`; `headersAt` is performance.now() when the answer's headers arrived. */
export function postBytes (url: string, headers: Record<string, string>, body: string | Uint8Array): Promise<Posted> {
  return new Promise((resolve, reject) => {
    const length = Buffer.byteLength(body)
    const req = request(url, { method: 'POST', agent, headers: { ...headers, 'content-length': length } }, (res) => {
      const headersAt = performance.now()
      const chunks: Buffer[] = []
      let size = 0
      res.on('data', (chunk: Buffer) => { chunks.push(chunk); size += chunk.length })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes: Buffer.concat(chunks, size), headersAt }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
}

/** The same POST through node:http or fetch (what a casual JavaScript client would use). */
export async function postWith (client: 'http' | 'fetch', url: string, headers: Record<string, string>,
  body: string | Uint8Array): Promise<Posted> {
  if (client === 'http') return await postBytes(url, headers, body)
  const res = await fetch(url, { method: 'POST', headers, body })
  const headersAt = performance.now()
  return { status: res.status, bytes: new Uint8Array(await res.arrayBuffer()), headersAt }
}
