// The spellings of one key a client may put in a request target (issue 50, finding 7): any of its
// characters percent-escaped, in lower or upper hex, as a key path and anywhere else; dot segments
// before, inside and after a key path. Each with the status aloft answers it with, and the test for
// a key in what was logged or echoed, whatever its spelling there.

export interface Spelling {
  /** What the spelling is, without the key. */
  name: string
  /** The request target, as written on the wire. */
  target: string
  status: number
}

/** The key with the characters at `at` percent-escaped (every character without `at`). */
export function escapedKey (key: string, hex: 'lower' | 'upper', at?: number[]): string {
  return [...key].map((c, k) => {
    if (at !== undefined && !at.includes(k)) return c
    const code = c.charCodeAt(0).toString(16).padStart(2, '0')
    return `%${hex === 'upper' ? code.toUpperCase() : code}`
  }).join('')
}

export function keySpellings (key: string): Spelling[] {
  const esc = (hex: 'lower' | 'upper', at?: number[]): string => escapedKey(key, hex, at)
  return [
    { name: 'its first letter escaped, elsewhere', target: `/x/${esc('lower', [0])}`, status: 404 },
    { name: 'letters of aloft escaped in upper hex, elsewhere', target: `/x/${esc('upper', [1, 2])}/y`, status: 404 },
    { name: 'its underscore escaped in lower hex, elsewhere', target: `/x/${esc('lower', [5])}`, status: 404 },
    { name: 'every character escaped, elsewhere', target: `/x/${esc('upper')}`, status: 404 },
    { name: 'its first letter escaped, as a key path', target: `/k/${esc('lower', [0])}/api/datasetcheck`,
      status: 200 },
    { name: 'every character escaped, as a key path', target: `/k/${esc('lower')}/api/datasetcheck`, status: 200 },
    { name: 'a letter of its secret escaped, as a key path', target: `/k/${esc('upper', [20])}/api/datasetcheck`,
      status: 200 },
    { name: 'itself, then .. to a key path', target: `/${key}/../k/${key}/api/datasetcheck`, status: 200 },
    { name: 'after /k/./', target: `/k/./${key}/api/datasetcheck`, status: 200 },
    { name: 'a key path, .. and a key path again', target: `/k/${key}/../k/${key}/api/datasetcheck`, status: 404 },
    { name: 'escaped in a query', target: `/api/ruaumoko/?latitude=${esc('lower', [3])}&longitude=1`, status: 400 },
    { name: 'every character escaped in a query', target: `/api/ruaumoko/?longitude=1&latitude=${esc('upper')}`,
      status: 400 }
  ]
}

/** Whether a text holds the key (a good part of its secret), in any spelling: its escapes decoded first. */
export function holdsKey (text: string, key: string): boolean {
  const decoded = text.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
  return decoded.includes(key.slice(6, 30))
}
