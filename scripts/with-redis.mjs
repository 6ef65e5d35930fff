#!/usr/bin/env node
// Runs a command with a reachable Redis in REDIS_URL: the given one, the local default
// (127.0.0.1:6379) when it answers, or else a throwaway redis-server on a free port that is
// stopped afterwards. `redis-server` is the one system prerequisite of the test suite.
import { spawn } from 'node:child_process'
import { createServer, connect } from 'node:net'

const [cmd, ...args] = process.argv.slice(2)
if (!cmd) {
  console.error('usage: with-redis.mjs <command> [args...]')
  process.exit(2)
}

function answersPing (port, host = '127.0.0.1') {
  return new Promise((resolve) => {
    const s = connect({ port, host })
    let buf = ''
    const done = (ok) => { s.destroy(); resolve(ok) }
    s.setTimeout(500, () => done(false))
    s.on('error', () => done(false))
    s.on('connect', () => s.write('PING\r\n'))
    s.on('data', (d) => { buf += d; if (buf.includes('\r\n')) done(buf.startsWith('+PONG')) })
  })
}

function freePort () {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.on('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address()
      srv.close(() => resolve(port))
    })
  })
}

let redis = null
const env = { ...process.env }
if (!env.REDIS_URL) {
  if (await answersPing(6379)) {
    env.REDIS_URL = 'redis://127.0.0.1:6379'
  } else {
    const port = await freePort()
    redis = spawn(
      'redis-server',
      ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' }
    )
    redis.on('error', (err) => {
      console.error(`aloft tests need redis-server on PATH (none answers on 127.0.0.1:6379): ${err.message}`)
      process.exit(2)
    })
    for (let i = 0; i < 100 && !(await answersPing(port)); i++) await new Promise((r) => setTimeout(r, 50))
    env.REDIS_URL = `redis://127.0.0.1:${port}`
    console.error(`started a throwaway redis-server on ${env.REDIS_URL}`)
  }
}

const child = spawn(cmd, args, { stdio: 'inherit', env })
const stop = () => { if (redis) redis.kill('SIGTERM') }
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig))
child.on('exit', (code, signal) => {
  stop()
  process.exit(code ?? (signal ? 1 : 0))
})
