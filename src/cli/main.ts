#!/usr/bin/env node
// `aloft <command>`: the command table lives in commands.ts; each command answers `--help`.
import { COMMANDS } from './commands.js'
import { HELP_FLAGS } from './help.js'
import { EXIT_CODES } from './exit-codes.js'
import { packageVersion } from './package.js'

function usage (): string {
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length))
  return ['usage: aloft <command> [options]', '', 'commands:',
    ...Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.about}`), '',
    'aloft <command> --help (or aloft help <command>) shows a command\'s usage; aloft --version the version.'
  ].join('\n')
}

const [first, ...rest] = process.argv.slice(2)
if (first === '--version' || first === '-v') {
  console.log(packageVersion())
  process.exit(EXIT_CODES.ok.code)
}
// `aloft help grib` is `aloft grib --help`
const [name, args] = first === 'help' && rest[0] !== undefined ? [rest[0], ['--help']] : [first, rest]
if (name === undefined || HELP_FLAGS.has(name) || name === 'help') {
  console.log(usage())
  process.exit(name === undefined ? EXIT_CODES.usage.code : EXIT_CODES.ok.code)
}
const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined
if (command === undefined) {
  console.error(`aloft: unknown command '${name}'\n\n${usage()}`)
  process.exit(EXIT_CODES.usage.code)
}
try {
  const mod = await command.load()
  process.exitCode = await mod.run(args)
} catch (err) {
  // a bug, not the operator's doing: one line, and the stack only when debugging
  const debugging = ['debug', 'trace'].includes(process.env.ALOFT_LOG_LEVEL ?? '')
  console.error(`aloft ${name}: unexpected failure: ${debugging ? (err as Error).stack : (err as Error).message}`)
  process.exitCode = EXIT_CODES.failed.code
}
