// The operator's map tiles (ALOFT_MAP_TILES_URL): what makes a Leaflet URL template usable, and
// the origins its images come from, which the explorer's CSP allows and nothing more. Pure, with
// no Node import: the explorer's page checks the template it is given by the same rule.

export interface MapTiles {
  /** A Leaflet URL template: http(s), {z}, {x} and {y}; {s} for the subdomains a, b and c. */
  url: string
  /** Plain text for the map's corner; the tile server's terms usually ask for it. */
  attribution: string
}

/** The subdomains Leaflet puts for {s} (its default, which the page keeps). */
export const TILE_SUBDOMAINS = ['a', 'b', 'c'] as const

const PLACEHOLDER = /\{[a-z]+\}/g
/** The scheme and authority (host and port) of a template, placeholders left in. */
const HEAD = /^(https?):\/\/([^/?#]*)/i

/** Why `url` cannot serve as the tile template, or undefined when it can. */
export function tileTemplateProblem (url: string): string | undefined {
  try {
    void new URL(url.replaceAll(PLACEHOLDER, 'x'))
  } catch {
    return 'it is not a URL'
  }
  const head = HEAD.exec(url)
  if (head === null) return 'it is not http(s)'
  const missing = ['{z}', '{x}', '{y}'].filter((p) => !url.includes(p))
  if (missing.length > 0) return `it lacks ${missing.join(', ')}`
  // the CSP names each origin exactly, so a host may vary by the three subdomains only
  if ((head[2].match(PLACEHOLDER) ?? []).some((p) => p !== '{s}')) return 'its host may hold {s} only'
  // and names one host: a wildcard (`https://*/…`) would open the page's images to every host
  const host = new URL(`${head[1]}://${head[2].replaceAll('{s}', TILE_SUBDOMAINS[0])}`).hostname
  if (!HOST_NAME.test(host)) return `its host (${host}) is not one host name or address`
  return undefined
}

/** A DNS name (letters, digits, hyphens, dots), an IPv4 address, or a bracketed IPv6 address. */
const HOST_NAME = /^(?:(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]*[a-z0-9])?|\[[0-9a-f:.]+\])$/

/** The origins a usable template's images come from: one, or one per subdomain for {s}. */
export function tileOrigins (url: string): string[] {
  const [, scheme, authority] = HEAD.exec(url)!
  const hosts = authority.includes('{s}') ? TILE_SUBDOMAINS.map((s) => authority.replaceAll('{s}', s)) : [authority]
  return hosts.map((host) => new URL(`${scheme}://${host}`).origin)
}
