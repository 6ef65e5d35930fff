// GET /problems/<code>: the human-readable page behind each problem `type` URI.
import { PROBLEM_CODES, type ProblemCodeName } from '../../contract/index.js'

const escape = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
// `code` spans in the explanations are written with backticks.
const inline = (s: string): string => escape(s).replace(/`([^`]+)`/g, '<code>$1</code>')

export function isProblemCode (code: string): code is ProblemCodeName {
  return Object.hasOwn(PROBLEM_CODES, code)
}

const RETRY_AFTER = '<p>The response carries a <code>Retry-After</code> header: wait that many seconds before ' +
  'trying again.</p>\n'
const EVERY_PROBLEM = '<p>Every aloft error is an <code>application/problem+json</code> document (RFC 9457) whose ' +
  '<code>request_id</code> equals the <code>X-Request-Id</code> response header.</p>'

export function problemPage (code: ProblemCodeName): string {
  const p = PROBLEM_CODES[code]
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escape(p.title)} — aloft</title></head>
<body>
<h1>${escape(p.title)}</h1>
<p>HTTP status <strong>${p.status}</strong>, problem code <code>${code}</code>.</p>
<p>${inline(p.about)}</p>
${'retryAfter' in p ? RETRY_AFTER : ''}${EVERY_PROBLEM}
</body></html>
`
}
