// The host's rules that need no processes to check: how long a replacement waits, one process's
// share of the host's memory budgets, and how the host's counters are summed.
import t from 'tap'
import { processConfig, restartDelayMs } from '../../src/cluster/index.js'
import { loadConfig } from '../../src/config/index.js'
import { arenaBytes } from '../../src/samples/index.js'
import { exactSum } from '../../src/cluster/exact-sum.js'
import { HostMetrics } from '../../src/cluster/host-metrics.js'
import type { MetricsJson } from '../../src/cluster/messages.js'
import type { Worker } from 'node:cluster'

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

t.test('an exact sum is the correctly rounded sum, whatever the order of its parts', async (t) => {
  const parts = [1e16, 1, -1e16, 0.1, 0.2, 0.3, 1e-16, 3.5e15, 2.25]
  const orders = [parts, [...parts].reverse(), [...parts].sort((a, b) => a - b), [...parts].sort((a, b) => b - a)]
  const sums = orders.map(exactSum)
  t.same(new Set(sums).size, 1, `the same in every order (${sums.join(', ')})`)
  // the exact value is 3.5e15 + 3.85… (the 1 survives the ±1e16): the double nearest it, as Python's math.fsum says
  t.equal(sums[0], 3500000000000004)
  t.equal(exactSum([1e-16, 1, 1e16]), 10000000000000002, 'half-way cases broken by the parts below (math.fsum\'s case)')
  const plain = orders.map((o) => o.reduce((a, b) => a + b, 0))
  t.ok(new Set(plain).size > 1, `a plain sum moves with the order (${plain.join(', ')}): why the host keeps exact sums`)
})

t.test('the host\'s counters never go back: a stalled process as last heard, a dead one kept, exact sums',
  async (t) => {
  const host = new HostMetrics()
  const counter = (value: number) => [{ name: 'x_seconds_total', help: 'x', type: 'counter', aggregator: 'sum',
    values: [{ labels: { route: 'r' }, value }] }] as unknown as MetricsJson
  const read = async (live: Array<{ id: number }>): Promise<number> => {
    const text = await host.gather(live.map((w) => ({ ...w, isConnected: () => false })) as unknown as Worker[])
    return Number(/^x_seconds_total\{route="r"\} (\S+)$/m.exec(text)?.[1])
  }
  host.received(-1, 1, counter(0.1))
  host.received(-1, 2, counter(0.2))
  const both = await read([{ id: 1 }, { id: 2 }])
  t.equal(both, 0.1 + 0.2, 'the sum, correctly rounded')
  t.equal(await read([{ id: 1 }, { id: 2 }]), both, 'a process that does not answer counts as last heard')
  host.retire(2)
  host.received(-1, 3, counter(0))
  t.equal(await read([{ id: 1 }, { id: 3 }]), both, 'a dead process\'s share stays; its replacement starts at 0')
  host.received(-1, 1, counter(0.05))
  t.equal(await read([{ id: 1 }, { id: 3 }]), both, 'a value lower than before (a bug, a reset) never shows')
  host.received(-1, 1, counter(1))
  t.equal(await read([{ id: 1 }, { id: 3 }]), 1.2, 'and a higher one does')
})
