// Reading the environment's variables: a value or its default, numbers within bounds, choices and
// secrets. A bad value is a problem naming the variable and what it accepts (a secret's value is
// never shown); every problem is reported at once, as one ConfigError.
import { isDecimal } from '../contract/index.js'
import { CLIENT_VARIABLES, VARIABLES } from './variables.js'

export class ConfigError extends Error {
  override readonly name = 'ConfigError'
  constructor (readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`)
  }
}

export class VariableReader {
  readonly problems: string[] = []

  constructor (private readonly env: NodeJS.ProcessEnv) {}

  /** A problem for each `ALOFT_` name that no variable has (a typo); the CLI's own ones are known. */
  refuseUnknown (): void {
    const known = new Set([...VARIABLES, ...CLIENT_VARIABLES].map((v) => v.name))
    for (const name of Object.keys(this.env)) {
      if (name.startsWith('ALOFT_') && !known.has(name)) {
        const names = [...known].filter((k) => k.startsWith('ALOFT_')).join(', ')
        this.problems.push(`${name} is not a variable aloft knows (a typo?); known: ${names}`)
      }
    }
  }

  /** The value, or the variable's default when unset or empty. */
  raw (name: string): string {
    const value = this.env[name]
    return value === undefined || value === '' ? VARIABLES.find((v) => v.name === name)!.default : value
  }

  /** The value, or undefined when unset or empty (a variable without a default). */
  given (name: string): string | undefined {
    const value = this.env[name]
    return value === undefined || value === '' ? undefined : value
  }

  /** Records that `value` is not what `name` accepts. */
  invalid (name: string, value: string, accepts: string): void {
    this.problems.push(`${name}=${JSON.stringify(value)} is invalid: expected ${accepts}`)
  }

  /** A number passing `check`; NaN, and a problem, otherwise. */
  number (name: string, check: (n: number) => boolean, accepts: string): number {
    const text = this.raw(name).trim()
    const n = isDecimal(text) ? Number(text) : NaN
    if (!Number.isFinite(n) || !check(n)) {
      this.invalid(name, this.raw(name), accepts)
      return NaN
    }
    return n
  }

  int (name: string, min: number, max: number): number {
    return this.number(name, (n) => Number.isInteger(n) && n >= min && n <= max, `an integer from ${min} to ${max}`)
  }

  /** An integer, or undefined when the variable is unset (it has no default). */
  optionalInt (name: string, min: number, max: number): number | undefined {
    return this.raw(name) === '' ? undefined : this.int(name, min, max)
  }

  /** One of `values` (`accepts` says which in the problem). */
  oneOf<T extends string> (name: string, values: readonly T[], accepts: string): T {
    const value = this.raw(name)
    if (!(values as readonly string[]).includes(value)) this.invalid(name, value, accepts)
    return value as T
  }

  /** A token of at least 16 characters without white space, or undefined when unset. */
  secret (name: string): string | undefined {
    const value = this.given(name)
    if (value !== undefined && (value.length < 16 || /\s/.test(value))) {
      this.problems.push(`${name} is invalid: expected at least 16 characters without white space ` +
        '(the value is not shown)')
    }
    return value
  }

  /** Throws every problem found, together. */
  done (): void {
    if (this.problems.length > 0) throw new ConfigError(this.problems)
  }
}
