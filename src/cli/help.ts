// What asks a command for its usage: `--help` or `-h` anywhere among its arguments, so
// `aloft grib value --help` answers as `aloft grib --help` does.
export const HELP_FLAGS: ReadonlySet<string> = new Set(['--help', '-h'])

export function wantsHelp (args: readonly string[]): boolean {
  return args.some((a) => HELP_FLAGS.has(a))
}
