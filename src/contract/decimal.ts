// The one way aloft reads a number written as text (an environment variable, a query parameter):
// digits, an optional fraction, an optional exponent. Number() alone also takes '', ' 1', '0x10',
// '0b1' and 'Infinity', none of which a person writing a number means. In the contract because
// both rooms that read such text import it: the configuration and HTTP.

const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/

/** Whether `text`, as it is (not trimmed), is a decimal number: `1`, `-1.5`, `.5`, `5.`, `1e3`, `+2E-2`. */
export function isDecimal (text: string): boolean {
  return DECIMAL.test(text)
}
