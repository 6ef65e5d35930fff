// ALOFT_TRUSTED_PROXIES (docs/DESIGN.md §10): the proxies whose forwarding headers are believed,
// as addresses or CIDR blocks, IPv4 or IPv6, comma-separated. Unset, none: every peer is the client.
import { isIP } from 'node:net'
import type { VariableReader } from './reader.js'

/** One trusted address or block: its network address, prefix length and family. */
export interface TrustedProxy {
  network: string
  prefix: number
  family: 'ipv4' | 'ipv6'
}

const NAME = 'ALOFT_TRUSTED_PROXIES'

/** The trusted proxies, each entry checked; a bad one is a problem naming it. */
export function readTrustedProxies (read: VariableReader): TrustedProxy[] {
  const text = read.raw(NAME).trim()
  if (text === '') return []
  const proxies: TrustedProxy[] = []
  for (const entry of text.split(',').map((e) => e.trim())) {
    const proxy = parseProxy(entry)
    if (proxy === undefined) {
      read.invalid(NAME, entry, 'addresses or CIDR blocks, IPv4 or IPv6, comma-separated (e.g. ' +
        '"127.0.0.1, 10.0.0.0/8, fd00::/8")')
    } else {
      proxies.push(proxy)
    }
  }
  return proxies
}

function parseProxy (entry: string): TrustedProxy | undefined {
  const slash = entry.indexOf('/')
  const network = slash === -1 ? entry : entry.slice(0, slash)
  const version = isIP(network)
  if (version === 0) return undefined
  const bits = version === 4 ? 32 : 128
  const prefixText = slash === -1 ? String(bits) : entry.slice(slash + 1)
  if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > bits) return undefined
  return { network, prefix: Number(prefixText), family: version === 4 ? 'ipv4' : 'ipv6' }
}
