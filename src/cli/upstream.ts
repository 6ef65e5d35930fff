// `aloft upstream --root DIR [--port P] [--host H]`: the local NOAA stand-in, for demos and
// benchmarks. Serves DIR (laid out as the bucket) until SIGINT/SIGTERM.
import { stat } from 'node:fs/promises'
import { startUpstream } from '../standin/index.js'
import { exitCodesText } from './exit-codes.js'

const USAGE = `usage: aloft upstream --root DIR [--port P] [--host H]

Serves DIR, laid out as NOAA's bucket (gfs.YYYYMMDD/CC/atmos/gfs.tCCz.pgrb2.0p25.fFFF, with or
without .idx beside each file), the way NOAA does, until SIGINT or SIGTERM: as the bucket (objects
with Range, ListObjectsV2), as NOMADS' grib filter and its directory listing. Point a service at
it with ALOFT_SOURCE=mirror:<bucket URL> or ALOFT_SOURCE=filter:<grib filter URL>, both printed at
start. A stand-in for demos, tests and benchmarks, never needed by the service itself.

  --root DIR   the directory to serve (required; data/sample is one)
  --port P     TCP port (default 8081; 0 picks a free one)
  --host H     address to bind (default 127.0.0.1)

exit codes:
${exitCodesText()}`

export async function run (args: string[]): Promise<number> {
  const opts: Record<string, string> = {}
  for (let k = 0; k < args.length; k++) {
    const a = args[k]
    if (a === '--help' || a === '-h') { console.log(USAGE); return 0 }
    const m = /^--(root|port|host)(?:=(.*))?$/.exec(a)
    if (m === null) { console.error(`unknown argument ${JSON.stringify(a)}\n${USAGE}`); return 2 }
    const value = m[2] ?? args[++k]
    if (value === undefined) { console.error(`--${m[1]} needs a value\n${USAGE}`); return 2 }
    opts[m[1]] = value
  }
  if (opts.root === undefined) { console.error(`--root is required\n${USAGE}`); return 2 }
  const port = Number(opts.port ?? 8081)
  if (!Number.isInteger(port) || port < 0 ||
    port > 65535) { console.error(`--port ${opts.port} is not a port\n${USAGE}`); return 2 }
  const info = await stat(opts.root).catch(() => null)
  if (info === null || !info.isDirectory()) { console.error(`--root ${opts.root} is not a directory`); return 2 }
  const server = await startUpstream({ root: opts.root, port, host: opts.host ?? '127.0.0.1' })
  console.log(`NOAA stand-in serving ${opts.root}\n  bucket / mirror: ${server.bucketUrl}\n  grib filter:     ` +
    `${server.filterUrl}\n  listing:         ${server.listingUrl}`)
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve)
    process.once('SIGTERM', resolve)
  })
  await server.close()
  return 0
}
