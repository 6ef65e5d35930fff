// What is wrong with a form, shown where it is wrong: each issue under the input it names (the
// input marked aria-invalid and described by it), the rest listed in words under the form. The
// page's own checks and the service's 400 `errors[]` end up here alike.
import { ApiError } from './api.js'
import { htmlEl } from './svg.js'
import { fieldPath, inWords, placeInWords, type ErrorItem } from './error-words.js'

export interface Issue {
  /** The input's id, or null when no input on the page holds the value. */
  field: string | null
  message: string
}

/** A form's value, or what is wrong with it. */
export type Checked<T> = { ok: true, value: T } | { ok: false, issues: Issue[] }

/** The input (and the unit its limits read in) that an `errors[]` location names, if any. */
export type FieldFor = (path: Array<string | number>) => { id: string, unit?: string } | null

/** A 400's entries as issues: at their input when `fieldFor` knows it, else in words with their place. */
export function issuesOf (err: ApiError, fieldFor: FieldFor): Issue[] | null {
  const items = err.problem?.errors
  if (err.status !== 400 || !Array.isArray(items) || items.length === 0) return null
  return (items as ErrorItem[]).map((item) => {
    const path = fieldPath(item.loc)
    const field = fieldFor(path)
    const where = path.find((seg) => typeof seg === 'number')
    const which = where === undefined ? '' : `Item ${Number(where) + 1}: `
    return field === null
      ? { field: null, message: `${placeInWords(item.loc)}: ${inWords(item)}` }
      : { field: field.id, message: which + inWords(item, field.unit) }
  })
}

export function clearIssues (form: HTMLElement, box: HTMLElement): void {
  for (const el of form.querySelectorAll('.field-error')) el.remove()
  for (const el of form.querySelectorAll<HTMLElement>('[aria-invalid]')) {
    el.removeAttribute('aria-invalid')
    // back to what described the input before (a format hint), or nothing
    const before = el.dataset.describedBy
    if (before === undefined || before === '') el.removeAttribute('aria-describedby')
    else el.setAttribute('aria-describedby', before)
    delete el.dataset.describedBy
  }
  box.replaceChildren()
  box.hidden = true
}

/** Each issue at its input; a summary (and the issues no input matches) in `box` under the form. */
export function showIssues (form: HTMLElement, box: HTMLElement, title: string, issues: Issue[]): void {
  clearIssues(form, box)
  const unplaced: string[] = []
  for (const issue of issues) {
    const input = issue.field === null ? null : document.getElementById(issue.field)
    if (input === null) {
      unplaced.push(issue.message)
      continue
    }
    const id = `${input.id}-error`
    const existing = document.getElementById(id)
    const note = existing ?? htmlEl('span', { class: 'field-error', id })
    note.textContent = existing === null ? issue.message : `${note.textContent} ${issue.message}`
    if (existing === null) input.insertAdjacentElement('afterend', note)
    if (input.getAttribute('aria-invalid') !== 'true') {
      input.dataset.describedBy = input.getAttribute('aria-describedby') ?? ''
      input.setAttribute('aria-invalid', 'true')
      input.setAttribute('aria-describedby', `${id} ${input.dataset.describedBy}`.trim())
    }
  }
  box.hidden = false
  htmlEl('strong', { class: 'problem-title' }, title, box)
  const marked = issues.length - unplaced.length
  if (marked > 0) {
    htmlEl('p', { class: 'problem-detail' }, marked === 1
      ? 'One field needs a change: it is marked above.'
      : `${marked} fields need a change: they are marked above.`, box)
  }
  if (unplaced.length > 0) {
    const ul = htmlEl('ul', { class: 'unplaced-errors' }, undefined, box)
    for (const text of unplaced) htmlEl('li', {}, text, ul)
  }
  const first = form.querySelector<HTMLElement>('[aria-invalid=true]')
  first?.focus()
}
