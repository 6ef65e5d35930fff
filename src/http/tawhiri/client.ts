// Who a caller without a key is (docs/DESIGN.md §10): its client address, counted as IPv4 /32 and
// IPv6 /64 (a host gets a /64: per /128 an attacker has endless addresses). Behind a trusted proxy
// (ALOFT_TRUSTED_PROXIES) the socket's peer is the proxy, and the client is the right-most address
// of X-Forwarded-For (or, without it, RFC 7239 Forwarded: for=) that is not a trusted proxy; the
// hops to its left were written by the client itself and prove nothing. From any other peer those
// headers are ignored.
import { BlockList, isIP } from 'node:net'
import type { IncomingMessage } from 'node:http'
import type { TrustedProxy } from '../../config/index.js'

export class ClientAddresses {
  readonly #trusted: BlockList | undefined

  constructor (proxies: readonly TrustedProxy[]) {
    if (proxies.length === 0) return
    this.#trusted = new BlockList()
    for (const p of proxies) this.#trusted.addSubnet(p.network, p.prefix, p.family)
  }

  /** Whether `address` (as a socket names it) is a trusted proxy. */
  trusts (address: string): boolean {
    if (this.#trusted === undefined) return false
    const plain = plainAddress(address)
    const version = isIP(plain)
    return version !== 0 && this.#trusted.check(plain, version === 4 ? 'ipv4' : 'ipv6')
  }

  /** The client address of a request, plain (no port, no zone, an IPv4-mapped address as IPv4). */
  of (req: IncomingMessage): string {
    const peer = plainAddress(req.socket.remoteAddress ?? '')
    if (this.#trusted === undefined || !this.trusts(peer)) return peer
    const hops = forwardedHops(req)
    let client = peer
    for (let k = hops.length - 1; k >= 0; k--) {
      const hop = hops[k]
      // what a trusted proxy wrote is not an address (obfuscated, `unknown`): the proxy stands for it
      if (hop === undefined) return client
      client = hop
      if (!this.trusts(hop)) return hop
    }
    return client
  }
}

/** The group an address is counted in: an IPv4 address itself, an IPv6 address its /64. */
export function addressGroup (address: string): string {
  const plain = plainAddress(address)
  if (isIP(plain) !== 6) return plain
  return `${hextets(plain).slice(0, 4).map((h) => h.toString(16)).join(':')}::/64`
}

/** The address without brackets, zone or port decoration, an IPv4-mapped IPv6 address as IPv4. */
function plainAddress (address: string): string {
  let a = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address
  const zone = a.indexOf('%')
  if (zone !== -1) a = a.slice(0, zone)
  if (!a.includes(':') || isIP(a) !== 6) return a
  // an IPv4-mapped address (::ffff:a.b.c.d, written any way) is its IPv4 address
  const h = hextets(a)
  if (h[5] !== 0xffff || h.slice(0, 5).some((x) => x !== 0)) return a
  return `${h[6] >> 8}.${h[6] & 255}.${h[7] >> 8}.${h[7] & 255}`
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a trailing IPv4 as two groups). */
function hextets (v6: string): number[] {
  const groups = (part: string): number[] => part === '' ? [] : part.split(':').flatMap((g) => {
    if (!g.includes('.')) return [parseInt(g, 16)]
    const [a, b, c, d] = g.split('.').map(Number)
    return [(a << 8) | b, (c << 8) | d]
  })
  const [head, tail] = v6.split('::')
  const left = groups(head)
  const right = tail === undefined ? [] : groups(tail)
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right]
}

/** A forwarded hop as written (`1.2.3.4`, `1.2.3.4:80`, `[v6]:80`, `"[v6]"`, a bare v6), or undefined. */
function hopAddress (token: string): string | undefined {
  let t = token.trim()
  if (t.startsWith('"') && t.endsWith('"') && t.length >= 2) t = t.slice(1, -1)
  if (t.startsWith('[')) {
    const close = t.indexOf(']')
    t = close === -1 ? '' : t.slice(1, close)
  } else if (t.indexOf(':') !== -1 && t.indexOf(':') === t.lastIndexOf(':')) {
    t = t.slice(0, t.indexOf(':')) // IPv4 with a port
  }
  const plain = plainAddress(t)
  return isIP(plain) === 0 ? undefined : plain
}

/** The hops a request's proxies recorded, left to right: X-Forwarded-For, or else Forwarded's for=. */
function forwardedHops (req: IncomingMessage): Array<string | undefined> {
  const xff = req.headers['x-forwarded-for']
  if (xff !== undefined) return (Array.isArray(xff) ? xff.join(',') : xff).split(',').map(hopAddress)
  const forwarded = req.headers.forwarded
  if (forwarded === undefined) return []
  return forwarded.split(',').map((element) => {
    const pair = element.split(';').map((p) => p.trim()).find((p) => p.slice(0, 4).toLowerCase() === 'for=')
    return pair === undefined ? undefined : hopAddress(pair.slice(4))
  })
}
