// A faithful local stand-in for NOAA, serving a directory laid out as the bucket
// (`gfs.YYYYMMDD/CC/atmos/gfs.tCCz.pgrb2.0p25.fFFF` [+ `.idx`]) in both NOAA layouts: the bucket
// (bucket.ts) and NOMADS (nomads.ts). Here: the server, which of them a request asks, and the
// failures tests inject per request (`fail`); what was asked is kept (`requests`).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { GribField } from '../grib/index.js'
import type { Answer } from './answer.js'
import { listObjects, objectAnswer } from './bucket.js'
import { FILTER, gribFilter, LISTING, listingPage, notPresentPage } from './nomads.js'

export type FailMode =
  | 'not_present' // 200 with NOMADS' HTML "data file is not present" page
  | 404 | 403 | 429 | 500 | 502 | 503
  | 'truncated' // the first half of the body, with a matching Content-Length
  | 'reset' // the connection is destroyed mid-answer
  | { slowMs: number } // answers after a delay

export interface FailRule {
  /**
   * A string is looked for in the request's path only (so `gfs.20200728` hits that day's
   * objects but not a `?list-type=2&prefix=gfs.20200728…` listing); a RegExp is tested against
   * the path and query (for filter requests: `/file=gfs\.t12z/`).
   */
  match: string | RegExp
  mode: FailMode
  /** How many matching requests fail before the rule lapses; default: all. */
  times?: number
}

export interface RequestRecord {
  method: string
  url: string // path and query as received
  range: string | null
  status: number
  at: number // Date.now() when it arrived
}

export interface UpstreamOptions {
  root: string
  port?: number
  host?: string
}

export class UpstreamServer {
  readonly requests: RequestRecord[] = []
  private rules: Array<FailRule & { left: number }> = []
  private server: Server | null = null
  private readonly scans = new Map<string, GribField[]>()

  constructor (private readonly root: string) {}

  get url (): string {
    const a = this.server?.address() as AddressInfo | null | undefined
    if (a === null || a === undefined) throw new Error('upstream server is not listening')
    return `http://${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}`
  }

  /** The bucket layout's base URL (also the mirror URL). */
  get bucketUrl (): string { return this.url }
  get filterUrl (): string { return this.url + FILTER }
  get listingUrl (): string { return this.url + LISTING }

  async listen (port = 0, host = '127.0.0.1'): Promise<this> {
    this.server = createServer((req, res) => { this.handle(req, res).catch((err) => this.crash(res, err)) })
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject)
      this.server!.listen(port, host, () => resolve())
    })
    return this
  }

  async close (): Promise<void> {
    const s = this.server
    this.server = null
    if (s === null) return
    s.closeAllConnections()
    await new Promise<void>((resolve) => s.close(() => resolve()))
  }

  /** Add a failure rule; returns a function removing it. */
  fail (rule: FailRule): () => void {
    const r = { ...rule, left: rule.times ?? Infinity }
    this.rules.push(r)
    return () => { this.rules = this.rules.filter((x) => x !== r) }
  }

  clearFailures (): void { this.rules = [] }

  /** Requests that match (as in FailRule: a string in the path, a RegExp in path and query). */
  count (match: string | RegExp): number {
    return this.requests.filter((r) => matches(match, r.url)).length
  }

  private async handle (req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://upstream.invalid')
    const record: RequestRecord = { method: req.method ?? 'GET', url: req.url ?? '/', range: req.headers.range ?? null,
      status: 0, at: Date.now() }
    this.requests.push(record)
    res.on('finish', () => { record.status = res.statusCode })
    if (req.method !== 'GET' && req.method !== 'HEAD') return this.send(res, 405, 'text/plain', 'method not allowed')

    const rule = this.rules.find((r) => r.left > 0 && matches(r.match, record.url))
    let truncate = false
    if (rule !== undefined) {
      rule.left--
      const m = rule.mode
      // unref'd: a hang left behind by a closed stand-in must not keep its process alive
      if (typeof m === 'object') await new Promise((resolve) => setTimeout(resolve, m.slowMs).unref())
      else if (m === 'not_present') return this.send(res, 200, 'text/html', notPresentPage(url.pathname))
      else if (m === 'reset') { res.socket?.destroy(); return }
      else if (m === 'truncated') truncate = true
      else return this.send(res, m, 'text/plain', `injected ${m}`, m === 429 || m === 503 ? { 'retry-after': '1' } : {})
    }

    let body: Answer
    if (url.pathname === FILTER) body = await gribFilter(this.root, url, this.scans)
    else if (url.pathname.startsWith(LISTING) ||
      url.pathname + '/' === LISTING) body = await listingPage(this.root, url.pathname.slice(LISTING.length))
    else if (url.pathname === '/' &&
      url.searchParams.get('list-type') === '2') body = await listObjects(this.root, url.searchParams)
    else body = await objectAnswer(this.root, decodeURIComponent(url.pathname.slice(1)), req.headers.range)
    const bytes = truncate ? body.bytes.subarray(0, Math.floor(body.bytes.length / 2)) : body.bytes
    this.send(res, body.status, body.type, bytes, body.headers, req.method === 'HEAD')
  }

  private send (res: ServerResponse, status: number, type: string, body: string | Uint8Array, headers: Record<string,
    string> = {}, head = false): void {
    const bytes = typeof body === 'string' ? Buffer.from(body) : body
    res.writeHead(status, { 'content-type': type, 'content-length': String(bytes.length), ...headers })
    res.end(head ? undefined : bytes)
  }

  private crash (res: ServerResponse, err: unknown): void {
    if (!res.headersSent) this.send(res, 500, 'text/plain', `upstream stand-in failed: ${(err as Error).message}`)
    else res.destroy()
  }
}

function matches (match: string | RegExp, url: string): boolean {
  if (typeof match !== 'string') return match.test(url)
  const q = url.indexOf('?')
  return (q < 0 ? url : url.slice(0, q)).includes(match)
}

/** Start a stand-in on `root`. */
export async function startUpstream (options: UpstreamOptions): Promise<UpstreamServer> {
  return await new UpstreamServer(options.root).listen(options.port ?? 0, options.host ?? '127.0.0.1')
}
