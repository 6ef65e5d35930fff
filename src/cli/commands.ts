// The `aloft` commands: one module each, loaded only when asked for. main.ts dispatches from this
// table and the tests walk it, so every command and subcommand listed here answers `--help`.
export interface CommandModule {
  run: (args: string[]) => Promise<number>
}

export interface Command {
  about: string
  /** Subcommands, each of which answers `--help` too. */
  subcommands: string[]
  load: () => Promise<CommandModule>
}

export const COMMANDS: Record<string, Command> = {
  serve: { about: 'run the HTTP service (configured by environment variables)', subcommands: [],
    load: () => import('./serve.js') },
  demo: { about: 'run the service offline on the bundled real GFS sample, with a ready API key and operator token',
    subcommands: [], load: () => import('./demo.js') },
  accounts: { about: 'accounts create --name N (Redis store named by REDIS_URL)', subcommands: ['create'],
    load: () => import('./accounts.js') },
  keys: { about: 'keys create|list|revoke (Redis store named by REDIS_URL)', subcommands: ['create', 'list', 'revoke'],
    load: () => import('./keys.js') },
  upstream: { about: 'upstream --root DIR [--port P] [--host H]: a local NOAA stand-in serving DIR (bucket layout) ' +
    'as bucket and grib filter', subcommands: [], load: () => import('./upstream.js') },
  trajectory: { about: 'trajectory --lat X --lon Y --time T [--ascent 5 --burst 30000 --descent 5] [--geojson F] ' +
    '[--kml F]: a balloon flight from a running service', subcommands: [], load: () => import('./trajectory.js') },
  grib: { about: 'grib inspect FILE | grib value FILE --lat X --lon Y [--json]', subcommands: ['inspect', 'value'],
    load: () => import('./grib.js') }
}
