// What a stand-in route answers, the guard that keeps every path inside the served directory, and
// the escaping of names written into XML and HTML pages.
import { join, normalize, sep } from 'node:path'

export interface Answer { status: number, type: string, bytes: Uint8Array, headers?: Record<string, string> }

/** Path inside the root, or null when it would leave it. */
export function inside (root: string, rel: string): string | null {
  const p = normalize(join(root, rel))
  return p === normalize(root) || p.startsWith(normalize(root) + sep) ? p : null
}

/** Text as XML (and HTML) writes it: `&`, `<`, `>` and `"` escaped. */
export const xml = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
export const html = xml
