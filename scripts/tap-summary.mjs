// A tap reporter for logs (scripts/tap.mjs picks it when stdout is not a terminal): one line per
// test file that passes, the whole TAP output of a file that fails (every assertion, diagnostic
// and the runner's note on how it ended), tap's closing counts, and every skipped test with its
// file and the reason it gave (a skip is a test that did not run: it is named, never only counted).
// tap pipes raw TAP through it to stdout.
import { Transform } from 'node:stream'

const TOP_RESULT = /^(not ok|ok) \d+ - (.*?)(?: # (time=[\d.]+m?s|SKIP.*|TODO.*))?$/
/** A skipped test at any depth: its name and the reason it gave. */
const SKIPPED = /^\s*ok \d+ - (.*?) # SKIP\s*(.*)$/

export default class Summary extends Transform {
  #partial = ''
  /** The current file's lines, printed only if it fails. */
  #block = []
  /** After a file's `not ok`: its diagnostics follow, indented, and are printed too. */
  #failing = false
  /** The test file being read, and the skipped tests met so far ("file: name — reason"). */
  #file = ''
  #skipped = []

  out (line) {
    this.push(`${line}\n`)
  }

  _transform (chunk, _encoding, callback) {
    const lines = (this.#partial + chunk.toString()).split('\n')
    this.#partial = lines.pop()
    for (const line of lines) this.#line(line)
    callback()
  }

  _flush (callback) {
    if (this.#partial !== '') this.#line(this.#partial)
    for (const line of this.#block) this.out(line) // a file that never ended: all it said
    if (this.#skipped.length > 0) {
      this.out(`\nskipped (${this.#skipped.length}):`)
      for (const s of this.#skipped) this.out(`  ${s}`)
    }
    callback()
  }

  #line (line) {
    const skipped = SKIPPED.exec(line)
    if (skipped !== null) {
      const [, name, reason] = skipped
      // a skip's reason follows `# SKIP`, or (t.skip('…') in a subtest) is its name; each once
      const named = `${/^\s/.test(line) ? `${this.#file}: ` : ''}${name}${reason === '' ? '' : ` — ${reason}`}`
      if (!this.#skipped.includes(named)) this.#skipped.push(named)
    }
    if (line === '' || /^\s/.test(line)) {
      if (this.#failing) this.out(line)
      else this.#block.push(line)
      return
    }
    this.#failing = false
    const result = TOP_RESULT.exec(line)
    if (result !== null) {
      const [, status, name, note = ''] = result
      if (status === 'ok') {
        this.out(`ok      ${name}${note === '' ? '' : `  (${note.replace('time=', '')})`}`)
      } else {
        this.out(`\n${'='.repeat(30)} FAILED: ${name}`)
        for (const held of this.#block) this.out(held)
        this.out(line)
        this.#failing = true
      }
      this.#block = []
      return
    }
    if (line.startsWith('# Subtest: ')) {
      this.#file = line.slice('# Subtest: '.length)
      this.#block = [line]
      return
    }
    if (line.startsWith('TAP version') || /^1\.\.\d+/.test(line)) return
    this.out(line) // the closing counts, the run's time, bail-outs and other top-level notes
  }
}
