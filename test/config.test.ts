// Configuration: defaults, every variable parsed, and a clear message for each bad value.
import t from 'tap'
import { availableParallelism } from 'node:os'
import { ConfigError, loadConfig, VARIABLES } from '../src/config/index.js'
import { repoUrl } from './helpers/paths.js'

t.test('defaults', async (t) => {
  const c = loadConfig({})
  t.match(c, {
    port: 8080, host: '0.0.0.0', redisUrl: undefined, redisPrefix: 'aloft:', adminToken: undefined, logLevel: 'info',
    source: { kind: 'noaa' }, dailyAllowance: 1000, ratePerSecond: 20, rateBurst: 40, maxTimeOffsetHours: 3
  })
})

t.test('every variable is read', async (t) => {
  const c = loadConfig({
    PORT: '9000', HOST: '127.0.0.1', REDIS_URL: 'redis://10.0.0.1:6380/2', ALOFT_REDIS_PREFIX: 'x:',
    ALOFT_ADMIN_TOKEN: 'a'.repeat(16), ALOFT_LOG_LEVEL: 'warn', ALOFT_SOURCE: 'mirror:/data/gfs',
    ALOFT_CACHE_DIR: '/tmp/c', ALOFT_DAILY_ALLOWANCE: '0', ALOFT_RATE_PER_SECOND: '0.5', ALOFT_RATE_BURST: '1',
    ALOFT_MAX_TIME_OFFSET_HOURS: '1.5', ALOFT_SHUTDOWN_GRACE_MS: '100'
  })
  t.match(c, {
    port: 9000, host: '127.0.0.1', redisUrl: 'redis://10.0.0.1:6380/2', redisPrefix: 'x:', adminToken: 'a'.repeat(16),
    logLevel: 'warn', source: { kind: 'mirror', location: '/data/gfs' }, cacheDir: '/tmp/c', dailyAllowance: 0,
    ratePerSecond: 0.5, rateBurst: 1, maxTimeOffsetHours: 1.5, shutdownGraceMs: 100
  })
})

t.test('the source forms', async (t) => {
  t.same(
    loadConfig({ ALOFT_SOURCE: 'filter:https://nomads.example/cgi-bin/filter_gfs_0p25.pl' }).source,
    { kind: 'filter', url: 'https://nomads.example/cgi-bin/filter_gfs_0p25.pl' }
  )
  t.same(
    loadConfig({ ALOFT_SOURCE: 'mirror:http://127.0.0.1:9999/bucket' }).source,
    { kind: 'mirror', location: 'http://127.0.0.1:9999/bucket' }
  )
})

const bad: Array<[string, Record<string, string>, RegExp]> = [
  ['a non-numeric port', { PORT: 'eighty' }, /PORT="eighty" is invalid/],
  ['a port out of range', { PORT: '70000' }, /PORT="70000" is invalid: expected an integer from 0 to 65535/],
  ['a fractional burst', { ALOFT_RATE_BURST: '2.5' }, /ALOFT_RATE_BURST/],
  ['a zero rate', { ALOFT_RATE_PER_SECOND: '0' }, /ALOFT_RATE_PER_SECOND/],
  ['a negative allowance', { ALOFT_DAILY_ALLOWANCE: '-1' }, /ALOFT_DAILY_ALLOWANCE/],
  ['an unknown log level', { ALOFT_LOG_LEVEL: 'verbose' }, /ALOFT_LOG_LEVEL="verbose" is invalid/],
  ['an unknown source', { ALOFT_SOURCE: 's3' }, /ALOFT_SOURCE="s3" is invalid/],
  ['a filter source without URL', { ALOFT_SOURCE: 'filter:nomads' }, /ALOFT_SOURCE/],
  ['an empty mirror', { ALOFT_SOURCE: 'mirror:' }, /ALOFT_SOURCE/],
  ['a Redis URL of another scheme', { REDIS_URL: 'http://localhost:6379' }, /REDIS_URL is invalid/],
  // what the Redis client refused only when the service started (exit 1, "Invalid URL"), or read as NaN
  ['a Redis port that is not a number', { REDIS_URL: 'redis://127.0.0.1:notaport' }, /REDIS_URL is invalid \(not a URL/],
  ['a Redis port above 65535', { REDIS_URL: 'redis://127.0.0.1:99999' }, /REDIS_URL is invalid \(not a URL/],
  ['a Redis port 0', { REDIS_URL: 'redis://:secret-pw@127.0.0.1:0' }, /REDIS_URL is invalid \(port 0 is not 1–65535/],
  ['an unclosed IPv6 Redis host', { REDIS_URL: 'redis://[::1' }, /REDIS_URL is invalid \(not a URL/],
  ['a Redis database that is not a number', { REDIS_URL: 'redis://r:6379/zero' }, /REDIS_URL is invalid \(the path/],
  ['a Redis Cluster node port above 65535', { REDIS_URL: 'redis+cluster://a:7000,b:99999' },
    /REDIS_URL is invalid \(cluster node "b:99999"/],
  ['a short admin token', { ALOFT_ADMIN_TOKEN: 'short' }, /ALOFT_ADMIN_TOKEN is invalid/],
  ['a misspelt ALOFT_ variable', { ALOFT_DAILY_ALLOWENCE: '5' }, /ALOFT_DAILY_ALLOWENCE is not a variable aloft knows/],
  ['a time offset over 24 h', { ALOFT_MAX_TIME_OFFSET_HOURS: '25' }, /ALOFT_MAX_TIME_OFFSET_HOURS/],
  ['processes that are not a count', { ALOFT_PROCESSES: 'all', REDIS_URL: 'redis://r:6379' },
    /ALOFT_PROCESSES="all" is invalid: expected auto or an integer from 1 to 256/],
  ['several processes without Redis', { ALOFT_PROCESSES: '4' }, /ALOFT_PROCESSES=4 needs REDIS_URL/]
]
for (const [name, env, message] of bad) {
  t.test(`${name} is refused with a message naming it`, async (t) => {
    t.throws(() => loadConfig(env), ConfigError)
    try { loadConfig(env) } catch (err) { t.match((err as Error).message, message) }
  })
}

t.test('processes: one by default, auto is the cores, and each process gets its share of the threads',
  async (t) => {
    const cores = availableParallelism()
    t.match(loadConfig({}), { processes: 1, workers: cores })
    const auto = loadConfig({ ALOFT_PROCESSES: 'auto', REDIS_URL: 'redis://r:6379' })
    t.match(auto, { processes: cores, workers: 1 })
    t.match(loadConfig({ ALOFT_PROCESSES: '2', REDIS_URL: 'redis://r:6379', ALOFT_WORKERS: '3' }),
      { processes: 2, workers: 3 }, 'ALOFT_WORKERS, when given, is each process\'s')
    if (cores > 1) {
      t.throws(() => loadConfig({ ALOFT_PROCESSES: 'auto' }), new RegExp(`ALOFT_PROCESSES=auto \\(${cores} on this ` +
        'host\\) needs REDIS_URL'))
    }
  })

t.test('every problem is reported at once', async (t) => {
  try {
    loadConfig({ PORT: 'x', ALOFT_LOG_LEVEL: 'loud' })
    t.fail('should throw')
  } catch (err) {
    t.equal((err as ConfigError).problems.length, 2)
  }
})

t.test('the admin token never appears in a message', async (t) => {
  try { loadConfig({ ALOFT_ADMIN_TOKEN: 'has white space but long enough' }) } catch (err) {
    t.notMatch((err as Error).message, /white space but/)
  }
})

t.test('every variable is documented in the README', async (t) => {
  const { readFile } = await import('node:fs/promises')
  const readme = await readFile(repoUrl('README.md'), 'utf8')
  for (const v of VARIABLES) t.match(readme, `\`${v.name}\``, v.name)
})

t.test('the CLI\'s own variables (ALOFT_URL, ALOFT_API_KEY) are known, not refused as typos', async (t) => {
  t.doesNotThrow(() => loadConfig({ ALOFT_URL: 'http://127.0.0.1:9', ALOFT_API_KEY: 'aloft_x' }))
})

t.test('ALOFT_UPSTREAM_PER_MINUTE unset is its default for the source\'s kind', async (t) => {
  t.equal(loadConfig({}).upstreamPerMinute, 100)
  t.equal(loadConfig({ ALOFT_SOURCE: 'mirror:/srv/gfs' }).upstreamPerMinute, 6000)
  t.equal(loadConfig({ ALOFT_UPSTREAM_PER_MINUTE: '30' }).upstreamPerMinute, 30)
})

t.test('ALOFT_MAP_TILES_URL: a usable template with its attribution', async (t) => {
  const config = loadConfig({ ALOFT_MAP_TILES_URL: 'https://{s}.tile.example.org/{z}/{x}/{y}.png',
    ALOFT_MAP_TILES_ATTRIBUTION: '© Example' })
  t.same(config.mapTiles, { url: 'https://{s}.tile.example.org/{z}/{x}/{y}.png', attribution: '© Example' })
  t.equal(loadConfig({}).mapTiles, undefined, 'unset: the bundled map')
})

t.test('ALOFT_MAP_TILES_URL refuses a template the page could not use, saying why', async (t) => {
  const cases: Array<[string, RegExp]> = [
    ['ftp://tiles.example.org/{z}/{x}/{y}.png', /not http\(s\)/],
    ['https://tiles.example.org/{z}/{x}.png', /lacks \{y\}/],
    ['https://{z}.tiles.example.org/{z}/{x}/{y}.png', /host may hold \{s\} only/],
    ['tiles.example.org/{z}/{x}/{y}.png', /not a URL/]
  ]
  const problems = (env: Record<string, string>): string[] => {
    try {
      loadConfig(env)
      return []
    } catch (err) {
      return (err as ConfigError).problems
    }
  }
  for (const [url, why] of cases) t.match(problems({ ALOFT_MAP_TILES_URL: url }), [why], url)
  t.match(problems({ ALOFT_MAP_TILES_ATTRIBUTION: '© Example' }), [/without ALOFT_MAP_TILES_URL/])
})
