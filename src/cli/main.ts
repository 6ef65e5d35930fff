#!/usr/bin/env node
// `aloft <command>`: each command lives in its own module, loaded only when asked for.
const commands: Record<string, { about: string, load: () => Promise<{ run: (args: string[]) => Promise<number> }> }> = {
  serve: { about: 'run the HTTP service (configured by environment variables)', load: () => import('./serve.js') },
  demo: { about: 'run the service offline on the bundled real GFS sample, with a ready API key',
    load: () => import('./demo.js') },
  accounts: { about: 'accounts create --name N (Redis store named by REDIS_URL)', load: () => import('./accounts.js') },
  keys: { about: 'keys create|list|revoke (Redis store named by REDIS_URL)', load: () => import('./keys.js') },
  upstream: { about: 'upstream --root DIR [--port P] [--host H]: a local NOAA stand-in serving DIR (bucket layout) ' +
    'as bucket and grib filter', load: () => import('./upstream.js') },
  trajectory: { about: 'trajectory --lat X --lon Y --time T [--ascent 5 --burst 30000 --descent 5] [--geojson F] ' +
    '[--kml F]: a balloon flight from a running service', load: () => import('./trajectory.js') },
  grib: { about: 'grib inspect FILE | grib value FILE --lat X --lon Y [--json]', load: () => import('./grib.js') }
}

function usage (): string {
  const width = Math.max(...Object.keys(commands).map((c) => c.length))
  return ['usage: aloft <command> [options]', '', 'commands:',
    ...Object.entries(commands).map(([name, c]) => `  ${name.padEnd(width)}  ${c.about}`)].join('\n')
}

const [name, ...args] = process.argv.slice(2)
if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
  console.log(usage())
  process.exit(name === undefined ? 2 : 0)
}
const command = commands[name]
if (command === undefined) {
  console.error(`aloft: unknown command '${name}'\n\n${usage()}`)
  process.exit(2)
}
const mod = await command.load()
process.exitCode = await mod.run(args)
