// Debian's nginx in front of aloft instances, run with the repository's own configuration
// (deploy/nginx/aloft.conf) and a self-signed certificate made by openssl: what the deployment
// check (bench/deploy-check.ts, test/deploy.test.ts) puts strangers' traffic through. The shipped
// file is used as written but for its instance addresses, listening port and certificate paths,
// which become the run's own; everything else an operator would copy is what runs here.
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { REPO, waitFor } from './processes.js'
import { track } from './children.js'
import { connect } from 'node:net'

const run = promisify(execFile)

/** The nginx binary: Debian's, unless NGINX_PATH says otherwise. */
export const NGINX = process.env.NGINX_PATH ?? '/usr/sbin/nginx'

export interface Certificate { cert: string, key: string, pem: string }

/** A self-signed certificate for localhost and 127.0.0.1, valid for a day. */
export async function selfSigned (dir: string): Promise<Certificate> {
  const cert = join(dir, 'cert.pem')
  const key = join(dir, 'key.pem')
  await run('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1',
    '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'])
  return { cert, key, pem: await readFile(cert, 'utf8') }
}

/** deploy/nginx/aloft.conf with the run's instances, port, certificate and log in place of the example's. */
export async function renderConfig (upstreams: string[], port: number, tls: Certificate, log: string): Promise<string> {
  const shipped = await readFile(join(REPO, 'deploy/nginx/aloft.conf'), 'utf8')
  // the example's instance lines, each with the options it gives them (kept for the run's instances)
  const example = /^ {4}server 127\.0\.0\.1:808\d( .*);\n(?: {4}server 127\.0\.0\.1:808\d .*\n)*/m
  const options = example.exec(shipped)?.[1] ?? ''
  const servers = upstreams.map((u) => `    server ${new URL(u).host}${options};`).join('\n')
  const replaced = shipped
    .replace(example, `${servers}\n`)
    .replace(/^ {4}listen 443 ssl;$/m, `    listen 127.0.0.1:${port} ssl;`)
    .replace(/^ {4}ssl_certificate {5}\S+;$/m, `    ssl_certificate     ${tls.cert};`)
    .replace(/^ {4}ssl_certificate_key \S+;$/m, `    ssl_certificate_key ${tls.key};`)
    .replace(/^ {4}access_log \/var\/log\/nginx\/aloft\.access\.log aloft;$/m, `    access_log ${log} aloft;`)
  for (const [what, text] of [['instances', servers], ['listen', `${port} ssl`], ['certificate', tls.cert],
    ['access log', log]]) {
    if (!replaced.includes(text)) throw new Error(`deploy/nginx/aloft.conf: its ${what} line was not found`)
  }
  return replaced
}

export interface Nginx {
  url: string
  /** Its access log, in the shipped format: one line per request, with the instances tried and their statuses. */
  accessLog: () => Promise<string[]>
  /** Its error log (warnings and worse). */
  errorLog: () => Promise<string[]>
  stop: () => Promise<void>
}

/** nginx in the foreground with a prefix of its own under `dir`, listening on 127.0.0.1:`port`. */
export async function startNginx (dir: string, upstreams: string[], port: number, tls: Certificate): Promise<Nginx> {
  const log = join(dir, 'access.log')
  await writeFile(join(dir, 'aloft.conf'), await renderConfig(upstreams, port, tls, log))
  // the frame Debian's /etc/nginx/nginx.conf gives the included file, with the run's own paths
  await writeFile(join(dir, 'nginx.conf'), [
    ...(process.getuid?.() === 0 ? ['user root;'] : []),
    'worker_processes 1;',
    `pid ${join(dir, 'nginx.pid')};`,
    `error_log ${join(dir, 'error.log')} warn;`,
    'events { worker_connections 2048; }',
    'http {',
    `  client_body_temp_path ${join(dir, 'body')};`,
    `  proxy_temp_path ${join(dir, 'proxy')};`,
    `  fastcgi_temp_path ${join(dir, 'fastcgi')};`,
    `  uwsgi_temp_path ${join(dir, 'uwsgi')};`,
    `  scgi_temp_path ${join(dir, 'scgi')};`,
    `  include ${join(dir, 'aloft.conf')};`,
    '}', ''].join('\n'))
  const child: ChildProcess = track(spawn(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'],
    { stdio: ['ignore', 'ignore', 'pipe'] }))
  let errors = ''
  child.stderr?.on('data', (d) => { errors += String(d) })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  await waitFor('nginx', async () => {
    if (child.exitCode !== null) throw new Error(`nginx exited: ${errors}`)
    return await listening(port)
  }, 10_000)
  return {
    url: `https://localhost:${port}`,
    accessLog: async () => await lines(log),
    errorLog: async () => await lines(join(dir, 'error.log')),
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGQUIT')
      await exited
    }
  }
}

async function lines (file: string): Promise<string[]> {
  return (await readFile(file, 'utf8').catch(() => '')).split('\n').filter((l) => l !== '')
}

function listening (port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ port, host: '127.0.0.1' }, () => { s.destroy(); resolve(true) })
    s.on('error', () => resolve(false))
  })
}
