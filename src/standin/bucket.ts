// The bucket layout as S3 serves it: GET/HEAD of object keys with single Range support, and
// ListObjectsV2 (`/?list-type=2&prefix=…&delimiter=/`, paged by max-keys and continuation-token).
import { readdir, readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { type Answer, inside, xml } from './answer.js'

/** GET or HEAD of an object key, whole or one Range (S3's answers: NoSuchKey, InvalidRange). */
export async function objectAnswer (root: string, key: string, range: string | undefined): Promise<Answer> {
  const path = inside(root, key)
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

/** Every file under the root as an object key, sorted. */
async function keys (root: string): Promise<string[]> {
  const out: string[] = []
  const walk = async (rel: string): Promise<void> => {
    for (const entry of await readdir(join(root, rel), { withFileTypes: true })) {
      const child = rel === '' ? entry.name : `${rel}/${entry.name}`
      if (entry.isDirectory()) await walk(child)
      else if (entry.isFile()) out.push(child)
    }
  }
  await walk('')
  return out.sort()
}

/** S3 ListObjectsV2: keys and common prefixes under `prefix`, paged by max-keys and continuation-token. */
export async function listObjects (root: string, q: URLSearchParams): Promise<Answer> {
  const prefix = q.get('prefix') ?? ''
  const delimiter = q.get('delimiter') ?? ''
  const maxKeys = Math.min(1000, Math.max(1, Number(q.get('max-keys') ?? 1000) || 1000))
  const after = q.has('continuation-token') ? Buffer.from(q.get('continuation-token')!, 'base64url').toString() : ''
  const items: Array<{ key: string, prefix: boolean }> = []
  const seen = new Set<string>()
  for (const key of await keys(root)) {
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
      const s = await stat(join(root, i.key))
      parts.push(`<Contents><Key>${xml(i.key)}</Key><LastModified>${s.mtime.toISOString()}</LastModified>` +
        `<Size>${s.size}</Size><StorageClass>STANDARD</StorageClass></Contents>`)
    }
  }
  parts.push('</ListBucketResult>')
  return { status: 200, type: 'application/xml', bytes: Buffer.from(parts.join('\n')) }
}
