// A throwaway Redis Cluster of three masters on free ports, made with redis-cli --cluster create.
import { spawn, execFile } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { setTimeout as sleep } from 'node:timers/promises'
import { Cluster } from 'ioredis'
import type { Test } from 'tap'
import { freePort } from './redis.js'

const run = promisify(execFile)

export interface SpawnedCluster {
  /** redis+cluster://127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3 */
  url: string
  nodes: Array<{ host: string, port: number }>
  /** Every key under a prefix, from every master, with its value as text. */
  dump (prefix: string): Promise<Map<string, string>>
}

export async function spawnCluster (t: Test): Promise<SpawnedCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'aloft-cluster-'))
  const ports = [await freePort(), await freePort(), await freePort()]
  const children = ports.map((port) => spawn('redis-server', [
    '--port', String(port), '--bind', '127.0.0.1', '--cluster-enabled', 'yes',
    '--cluster-config-file', `nodes-${port}.conf`, '--dir', dir, '--save', '', '--appendonly', 'no'
  ], { stdio: 'ignore' }))
  t.teardown(async () => {
    for (const c of children) c.kill('SIGKILL')
    const exited = (c: (typeof children)[number]): Promise<unknown> =>
      new Promise((resolve) => c.exitCode !== null ? resolve(null) : c.once('exit', resolve))
    await Promise.all(children.map(exited))
    await rm(dir, { recursive: true, force: true })
  })
  for (const port of ports) {
    for (let k = 0; ; k++) {
      try {
        await run('redis-cli', ['-p', String(port), 'ping'])
        break
      } catch (err) {
        if (k > 100) throw err
        await sleep(50)
      }
    }
  }
  await run('redis-cli',
    ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '0', '--cluster-yes'])
  for (let k = 0; ; k++) {
    const { stdout } = await run('redis-cli', ['-p', String(ports[0]), 'cluster', 'info'])
    if (/cluster_state:ok/.test(stdout)) break
    if (k > 100) throw new Error('the cluster did not become ready')
    await sleep(100)
  }
  const nodes = ports.map((port) => ({ host: '127.0.0.1', port }))
  const dump = async (prefix: string): Promise<Map<string, string>> => {
    const cluster = new Cluster(nodes)
    await new Promise((resolve, reject) => { cluster.once('ready', resolve); cluster.once('error', reject) })
    try {
      const out = new Map<string, string>()
      for (const node of cluster.nodes('master')) {
        let cursor = '0'
        do {
          const [next, batch] = await node.scan(cursor, 'MATCH', `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`, 'COUNT',
            500)
          for (const key of batch) {
            const type = await node.type(key)
            const value = type === 'string'
              ? await node.get(key)
              : type === 'hash' ? await node.hgetall(key) : await node.call('ZRANGE', key, '0', '-1', 'WITHSCORES')
            out.set(key, JSON.stringify(value))
          }
          cursor = next
        } while (cursor !== '0')
      }
      return out
    } finally {
      cluster.disconnect()
    }
  }
  return { url: `redis+cluster://${ports.map((p) => `127.0.0.1:${p}`).join(',')}`, nodes, dump }
}
