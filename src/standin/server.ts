// A faithful local stand-in for NOAA, serving a directory laid out as the bucket
// (`gfs.YYYYMMDD/CC/atmos/gfs.tCCz.pgrb2.0p25.fFFF` [+ `.idx`]) in both NOAA layouts:
// - the bucket: GET/HEAD of object keys with single Range support, and S3 ListObjectsV2
//   (`/?list-type=2&prefix=…&delimiter=/`, paged by max-keys and continuation-token);
// - NOMADS: `/cgi-bin/filter_gfs_0p25.pl?dir=…&file=…&var_X=on&lev_Y=on&subregion=&leftlon=…`
//   (the chosen fields cut to the box and repacked with simple packing) and the directory
//   listing pages under `/pub/data/nccf/com/gfs/prod/`.
// Tests can make it fail per request (`fail`) and read what was asked (`requests`).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { readdir, readFile, stat } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { join, normalize, sep } from 'node:path'
import { scanMessages, type GribField } from '../grib/index.js'
import { cutField, type Box } from './grib-writer.js'

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

const LISTING = '/pub/data/nccf/com/gfs/prod/'
const FILTER = '/cgi-bin/filter_gfs_0p25.pl'

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

    let body: { status: number, type: string, bytes: Uint8Array, headers?: Record<string, string> }
    if (url.pathname === FILTER) body = await this.filter(url)
    else if (url.pathname.startsWith(LISTING) ||
      url.pathname + '/' === LISTING) body = await this.listing(url.pathname.slice(LISTING.length))
    else if (url.pathname === '/' &&
      url.searchParams.get('list-type') === '2') body = await this.listObjects(url.searchParams)
    else body = await this.object(decodeURIComponent(url.pathname.slice(1)), req.headers.range)
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

  /** Path inside the root, or null when it would leave it. */
  private inside (rel: string): string | null {
    const p = normalize(join(this.root, rel))
    return p === normalize(this.root) || p.startsWith(normalize(this.root) + sep) ? p : null
  }

  private async object (key: string, range: string | undefined): Promise<{ status: number, type: string,
    bytes: Uint8Array, headers?: Record<string, string> }> {
    const path = this.inside(key)
    const missing = { status: 404, type: 'application/xml',
      bytes: Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>NoSuchKey</Code><Message>The ` +
        `specified key does not exist.</Message><Key>${xml(key)}</Key></Error>`) }
    if (path === null || key === '') return missing
    const info = await stat(path).catch(() => null)
    if (info === null || !info.isFile()) return missing
    const all = new Uint8Array(await readFile(path))
    const type = key.endsWith('.idx') ? 'text/plain' : 'application/octet-stream'
    if (range === undefined) return { status: 200, type, bytes: all, headers: { 'accept-ranges': 'bytes' } }
    const m = /^bytes=(\d*)-(\d*)$/.exec(range.trim())
    let start = NaN; let end = NaN
    if (m !== null &&
      m[1] !== '') { start = Number(m[1]); end = m[2] === '' ? all.length - 1 : Math.min(Number(m[2]), all.length - 1) }
    if (m !== null && m[1] === '' &&
      m[2] !== '') { start = Math.max(0, all.length - Number(m[2])); end = all.length - 1 }
    if (!(start <= end) || start >= all.length) {
      return { status: 416, type: 'application/xml', bytes: Buffer.from('<Error><Code>InvalidRange</Code></Error>'),
        headers: { 'content-range': `bytes */${all.length}` } }
    }
    return { status: 206, type, bytes: all.subarray(start, end + 1),
      headers: { 'content-range': `bytes ${start}-${end}/${all.length}`, 'accept-ranges': 'bytes' } }
  }

  private async keys (): Promise<string[]> {
    const out: string[] = []
    const walk = async (rel: string): Promise<void> => {
      for (const entry of await readdir(join(this.root, rel), { withFileTypes: true })) {
        const child = rel === '' ? entry.name : `${rel}/${entry.name}`
        if (entry.isDirectory()) await walk(child)
        else if (entry.isFile()) out.push(child)
      }
    }
    await walk('')
    return out.sort()
  }

  private async listObjects (q: URLSearchParams): Promise<{ status: number, type: string, bytes: Uint8Array }> {
    const prefix = q.get('prefix') ?? ''
    const delimiter = q.get('delimiter') ?? ''
    const maxKeys = Math.min(1000, Math.max(1, Number(q.get('max-keys') ?? 1000) || 1000))
    const after = q.has('continuation-token') ? Buffer.from(q.get('continuation-token')!, 'base64url').toString() : ''
    const items: Array<{ key: string, prefix: boolean }> = []
    const seen = new Set<string>()
    for (const key of await this.keys()) {
      if (!key.startsWith(prefix)) continue
      const cut = delimiter === '' ? -1 : key.indexOf(delimiter, prefix.length)
      if (cut >= 0) {
        const p = key.slice(0, cut + delimiter.length)
        if (!seen.has(p)) { seen.add(p); items.push({ key: p, prefix: true }) }
      } else {
        items.push({ key, prefix: false })
      }
    }
    const page = items.filter((i) => i.key > after).slice(0, maxKeys)
    const truncated = items.filter((i) => i.key > after).length > page.length
    const parts = [
      '<?xml version="1.0" encoding="UTF-8"?>',
      '<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">',
      '<Name>noaa-gfs-bdp-pds</Name>', `<Prefix>${xml(prefix)}</Prefix>`, `<KeyCount>${page.length}</KeyCount>`,
      `<MaxKeys>${maxKeys}</MaxKeys>`, `<Delimiter>${xml(delimiter)}</Delimiter>`,
      `<IsTruncated>${truncated}</IsTruncated>`
    ]
    if (truncated) {
      const token = Buffer.from(page[page.length - 1].key).toString('base64url')
      parts.push(`<NextContinuationToken>${token}</NextContinuationToken>`)
    }
    for (const i of page) {
      if (i.prefix) parts.push(`<CommonPrefixes><Prefix>${xml(i.key)}</Prefix></CommonPrefixes>`)
      else {
        const s = await stat(join(this.root, i.key))
        parts.push(`<Contents><Key>${xml(i.key)}</Key><LastModified>${s.mtime.toISOString()}</LastModified>` +
          `<Size>${s.size}</Size><StorageClass>STANDARD</StorageClass></Contents>`)
      }
    }
    parts.push('</ListBucketResult>')
    return { status: 200, type: 'application/xml', bytes: Buffer.from(parts.join('\n')) }
  }

  private async listing (rel: string): Promise<{ status: number, type: string, bytes: Uint8Array }> {
    const path = this.inside(decodeURIComponent(rel))
    const entries = path === null ? null : await readdir(path, { withFileTypes: true }).catch(() => null)
    if (entries === null) {
      return { status: 404, type: 'text/html',
        bytes: Buffer.from('<html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>') }
    }
    const rows = entries.sort((a, b) => a.name.localeCompare(b.name)).map((e) => {
      const name = e.isDirectory() ? e.name + '/' : e.name
      return `<a href="${encodeURI(name)}">${html(name)}</a>`
    })
    const title = `Index of ${LISTING}${rel}`
    return { status: 200, type: 'text/html',
      bytes: Buffer.from(`<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 3.2 ` +
        `Final//EN">\n<html><head><title>${html(title)}</title></head><body><h1>${html(title)}</h1><pre><a ` +
          `href="../">Parent Directory</a>\n${rows.join('\n')}\n</pre></body></html>\n`) }
  }

  private async filter (url: URL): Promise<{ status: number, type: string, bytes: Uint8Array }> {
    const q = url.searchParams
    const dir = q.get('dir') ?? ''
    const file = q.get('file') ?? ''
    const rel = `${dir.replace(/^\/+/, '')}/${file}`
    const path = /^[\w./-]+$/.test(rel) && !rel.split('/').includes('..') ? this.inside(rel) : null
    const bytes = path === null ? null : await readFile(path).then((b) => new Uint8Array(b)).catch(() => null)
    if (bytes === null) return { status: 200, type: 'text/html', bytes: Buffer.from(notPresentPage(`/${rel}`)) }
    let fields = this.scans.get(path!)
    if (fields === undefined) { fields = scanMessages(bytes); this.scans.set(path!, fields) }
    const vars = new Set<string>(); const levs = new Set<string>()
    for (const [k, v] of q) {
      if (v !== 'on') continue
      if (k.startsWith('var_')) vars.add(k.slice(4))
      if (k.startsWith('lev_')) levs.add(k.slice(4))
    }
    const allVar = q.get('all_var') === 'on'
    const allLev = q.get('all_lev') === 'on'
    const box: Box | null = q.has('subregion')
      ? { leftlon: Number(q.get('leftlon')), rightlon: Number(q.get('rightlon')), toplat: Number(q.get('toplat')),
        bottomlat: Number(q.get('bottomlat')) }
      : null
    if (box !== null && !Object.values(box).every(Number.isFinite)) {
      return { status: 200, type: 'text/html', bytes: Buffer.from('<html><body>bad subregion</body></html>') }
    }
    const parts: Uint8Array[] = []
    const done = new Set<number>()
    for (const f of fields) {
      if (!(allVar || vars.has(f.name)) || !(allLev || levs.has(filterLevel(f)))) continue
      if (box === null) {
        if (!done.has(f.offset)) { done.add(f.offset); parts.push(bytes.subarray(f.offset, f.offset + f.length)) }
        continue
      }
      const cut = cutField(bytes, f, box)
      if (cut !== null) parts.push(cut)
    }
    if (parts.length === 0) {
      return { status: 200, type: 'text/html',
        bytes: Buffer.from('<html><body>grib filter: no data matched the selection</body></html>') }
    }
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
    let o = 0
    for (const p of parts) { out.set(p, o); o += p.length }
    return { status: 200, type: 'application/octet-stream', bytes: out }
  }
}

/** The grib filter's name for a field's level: `500_mb`, `0.4_mb`, `surface`. */
function filterLevel (f: GribField): string {
  if (f.level.type === 100 && f.level.value !== null) return `${Number((f.level.value / 100).toPrecision(12))}_mb`
  if (f.level.type === 1) return 'surface'
  return `type_${f.level.type}`
}

function matches (match: string | RegExp, url: string): boolean {
  if (typeof match !== 'string') return match.test(url)
  const q = url.indexOf('?')
  return (q < 0 ? url : url.slice(0, q)).includes(match)
}

function notPresentPage (path: string): string {
  return `<!DOCTYPE html PUBLIC "-//W3C//DTD HTML 3.2 Final//EN"><html><head><title>data file is not present; ` +
    `${html(path)}</title></head><body bgcolor="#ffffff"><p>data file is not present: ${html(path)}</p></body></html>\n`
}

const xml = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g,
  '&quot;')
const html = xml

/** Start a stand-in on `root`. */
export async function startUpstream (options: UpstreamOptions): Promise<UpstreamServer> {
  return await new UpstreamServer(options.root).listen(options.port ?? 0, options.host ?? '127.0.0.1')
}
