// REDIS_URL to an ioredis client: one server (`redis://`, `rediss://`) or a Redis Cluster given by
// some of its nodes (`redis+cluster://[user:password@]host:port,host:port`, `rediss+cluster://`
// for TLS). Every room that talks to Redis (accounts, the upstream limiter, unit locks) connects
// through here, so all of them accept the same URLs.
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis'

export type RedisClient = Redis | Cluster

export interface ParsedRedisUrl {
  cluster: boolean
  /** One server's URL (not a cluster). */
  url?: string
  nodes: Array<{ host: string, port: number }>
  /** Credentials and TLS, for every node. */
  options: RedisOptions
}

const CLUSTER = /^(rediss?)\+cluster:\/\/(?:([^@/]*)@)?([^/?#]+)\/?$/

/** Parses REDIS_URL; throws a RangeError naming what is wrong (never echoing a password). */
export function parseRedisUrl (url: string): ParsedRedisUrl {
  const m = CLUSTER.exec(url)
  if (m === null) {
    if (!/^rediss?:\/\/\S+$/.test(url)) {
      throw new RangeError('expected redis://, rediss://, redis+cluster:// or rediss+cluster://')
    }
    checkServerUrl(url)
    return { cluster: false, url, nodes: [], options: {} }
  }
  const [, scheme, auth, hosts] = m
  const nodes = hosts.split(',').map((hostPort) => {
    const hp = /^([^:,]+|\[[^\]]+\]):(\d{1,5})$/.exec(hostPort)
    if (hp === null || !isPort(hp[2])) {
      throw new RangeError(`cluster node "${hostPort.slice(0, 80)}" is not host:port (port 1–65535)`)
    }
    return { host: hp[1].replace(/^\[|\]$/g, ''), port: Number(hp[2]) }
  })
  const options: RedisOptions = {}
  if (auth !== undefined && auth !== '') {
    const colon = auth.indexOf(':')
    const user = decodeURIComponent(colon < 0 ? '' : auth.slice(0, colon))
    const password = decodeURIComponent(colon < 0 ? auth : auth.slice(colon + 1))
    if (user !== '') options.username = user
    if (password !== '') options.password = password
  }
  if (scheme === 'rediss') options.tls = {}
  return { cluster: true, nodes, options }
}

function isPort (text: string): boolean {
  const port = Number(text)
  return port >= 1 && port <= 65535
}

/**
 * One server's URL as the Redis client reads it (WHATWG URL): a host, a port of 1–65535 when given,
 * a database number when a path is given. What the client would only refuse when it connects (or
 * read as NaN) is refused here, with the configuration, naming the part and never the password.
 */
function checkServerUrl (url: string): void {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new RangeError('not a URL (a port that is not a number, or above 65535? an unclosed [ of an IPv6 address?)')
  }
  if (parsed.hostname === '') throw new RangeError('no host')
  if (parsed.port !== '' && !isPort(parsed.port)) throw new RangeError(`port ${parsed.port} is not 1–65535`)
  if (!/^(\/(\d{1,5})?)?$/.test(parsed.pathname)) {
    throw new RangeError(`the path "${parsed.pathname.slice(0, 40)}" is not a database number`)
  }
}

/** A client for REDIS_URL with these options (for a cluster: applied to every node). */
export function connectRedis (url: string, options: RedisOptions, cluster: ClusterOptions = {}): RedisClient {
  const parsed = parseRedisUrl(url)
  if (!parsed.cluster) return new Redis(url, options)
  return new Cluster(parsed.nodes, {
    enableOfflineQueue: options.enableOfflineQueue,
    ...cluster,
    redisOptions: { ...options, ...parsed.options }
  })
}
