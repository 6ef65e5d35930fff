// A problem as a person should read it, in the box under the form that asked: its title, its
// detail and, for a 409, the heights served; a 400 that names fields goes to field-errors.ts.
import { ApiError } from './api.js'
import { byId, htmlEl } from './svg.js'
import { num } from './format.js'
import { clearIssues, issuesOf, showIssues, type FieldFor } from './field-errors.js'

export function showError (where: string, err: unknown, form?: { id: string, fieldFor: FieldFor }): void {
  const box = byId(where)
  if (form !== undefined && err instanceof ApiError) {
    const issues = issuesOf(err, form.fieldFor)
    if (issues !== null) {
      showIssues(byId(form.id), box, `${err.title} (HTTP ${err.status})`, issues)
      return
    }
  }
  box.replaceChildren()
  box.hidden = false
  if (!(err instanceof ApiError)) {
    htmlEl('strong', {}, 'Something went wrong in the page', box)
    htmlEl('p', {}, String((err as Error).message ?? err), box)
    return
  }
  htmlEl('strong', { class: 'problem-title' }, `${err.title}${err.status > 0 ? ` (HTTP ${err.status})` : ''}`, box)
  if (err.detail !== '') htmlEl('p', { class: 'problem-detail' }, err.detail, box)
  const coverage = err.problem?.coverage as Record<string, number> | undefined
  if (err.status === 409 && coverage !== undefined) {
    htmlEl('p', { class: 'served-range' }, `This point serves ${num(coverage.minimum_agl_m, 0)}–` +
      `${num(coverage.maximum_agl_m, 0)} m above ground (${num(coverage.minimum_msl_m, 0)}–` +
      `${num(coverage.maximum_msl_m, 0)} m above sea level).`, box)
  }
  if (err.status === 401 || err.status === 403) {
    htmlEl('p', {}, 'Enter a valid API key at the top of the page (npm run demo prints one).', box)
  }
}

/** Adds to a shown problem what would help, and a button that does it. */
export function suggest (where: string, text: string, label: string, act: () => void): void {
  const p = htmlEl('p', { class: 'suggestion' }, `${text} `, byId(where))
  const button = htmlEl('button', { type: 'button' }, label, p)
  button.addEventListener('click', act)
}

/** Clears the box and every mark the last answer left on the form's inputs. */
export function clearError (where: string, formId?: string): void {
  const box = byId(where)
  if (formId !== undefined) clearIssues(byId(formId), box)
  box.replaceChildren()
  box.hidden = true
}
