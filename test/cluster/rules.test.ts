// The host's rules that need no processes to check: how long a replacement waits, and one
// process's share of the host's memory budgets.
import t from 'tap'
import { processConfig, restartDelayMs } from '../../src/cluster/index.js'
import { loadConfig } from '../../src/config/index.js'
import { arenaBytes } from '../../src/samples/index.js'

t.test('a replacement starts at once, then waits twice as long each time one dies young, up to 30 s', async (t) => {
  t.same([1, 2, 3, 4, 5, 6, 7, 8].map(restartDelayMs), [0, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000])
})

t.test('the decoded-unit cache and large samples memory are the host\'s, split between its processes', async (t) => {
  const config = loadConfig({ ALOFT_PROCESSES: '3', REDIS_URL: 'redis://r:6379', ALOFT_CACHE_MB: '512',
    ALOFT_SAMPLES_MEMORY_MB: '1024' })
  const share = processConfig(config)
  t.equal(share.cacheMegabytes, 170)
  t.equal(share.samplesMemoryBytes, 341 * 1024 * 1024)
  const small = processConfig({ ...config, samplesMemoryBytes: 32 * 1024 * 1024 })
  t.equal(small.samplesMemoryBytes, arenaBytes(config.samplesMaxPoints),
    'never under what the largest request allowed (ALOFT_SAMPLES_MAX_POINTS) needs, or it would never fit')
  t.ok(small.samplesMemoryBytes > 16 * 1024 * 1024)
})
