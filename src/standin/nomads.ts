// NOMADS: the grib filter (`/cgi-bin/filter_gfs_0p25.pl?dir=…&file=…&var_X=on&lev_Y=on&subregion=&
// leftlon=…`: the chosen fields cut to the box and repacked with simple packing) and the directory
// listing pages under `/pub/data/nccf/com/gfs/prod/`.
import { readdir, readFile } from 'node:fs/promises'
import { scanMessages, type GribField } from '../grib/index.js'
import { type Answer, html, inside } from './answer.js'
import { cutField, type Box } from './grib-writer.js'

export const LISTING = '/pub/data/nccf/com/gfs/prod/'
export const FILTER = '/cgi-bin/filter_gfs_0p25.pl'

/** A directory listing page under LISTING, as NOMADS' web server writes one. */
export async function listingPage (root: string, rel: string): Promise<Answer> {
  const path = inside(root, decodeURIComponent(rel))
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

/**
 * The grib filter: the chosen variables and levels of one file, cut to the subregion and repacked
 * (`scans`: each file's fields, indexed once).
 */
export async function gribFilter (root: string, url: URL, scans: Map<string, GribField[]>): Promise<Answer> {
  const q = url.searchParams
  const dir = q.get('dir') ?? ''
  const file = q.get('file') ?? ''
  const rel = `${dir.replace(/^\/+/, '')}/${file}`
  const path = /^[\w./-]+$/.test(rel) && !rel.split('/').includes('..') ? inside(root, rel) : null
  const bytes = path === null ? null : await readFile(path).then((b) => new Uint8Array(b)).catch(() => null)
  if (bytes === null) return { status: 200, type: 'text/html', bytes: Buffer.from(notPresentPage(`/${rel}`)) }
  let fields = scans.get(path!)
  if (fields === undefined) { fields = scanMessages(bytes); scans.set(path!, fields) }
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

/** The grib filter's name for a field's level: `500_mb`, `0.4_mb`, `surface`, `10_m_above_ground`. */
function filterLevel (f: GribField): string {
  if (f.level.type === 100 && f.level.value !== null) return `${Number((f.level.value / 100).toPrecision(12))}_mb`
  if (f.level.type === 1) return 'surface'
  if (f.level.type === 103 && f.level.value !== null && (f.level2 === null || f.level2.type === 255)) {
    return `${f.level.value}_m_above_ground`
  }
  return `type_${f.level.type}`
}

/** NOMADS' page for a file it does not hold (a 200, as NOMADS answers). */
export function notPresentPage (path: string): string {
  return `<!DOCTYPE html PUBLIC "-//W3C//DTD HTML 3.2 Final//EN"><html><head><title>data file is not present; ` +
    `${html(path)}</title></head><body bgcolor="#ffffff"><p>data file is not present: ${html(path)}</p></body></html>\n`
}
