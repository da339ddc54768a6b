/**
 * Building the pages' DOM without innerHTML: every value from the API goes in as text, so a
 * post title such as `<img onerror=…>` is shown, never run (and the CSP would refuse it anyway).
 */

export type Child = Node | string | number | null | undefined | false;
type Props = Record<string, string | number | boolean | null | undefined>;

/** `h('a', {href: '/x', class: 'button'}, 'Open')`: attributes by name; `true` sets an empty one, false/null leave it out. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: (Child | Child[])[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === false || value === null || value === undefined) continue;
    element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, children);
  return element;
}

const SVG = 'http://www.w3.org/2000/svg';

/** An SVG element: presentation comes from classes in the page's stylesheet (the CSP has no inline styles). */
export function svg(tag: string, props: Props = {}, ...children: (Child | Child[])[]): SVGElement {
  const element = document.createElementNS(SVG, tag) as SVGElement;
  for (const [name, value] of Object.entries(props)) {
    if (value === false || value === null || value === undefined) continue;
    element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, children);
  return element;
}

function append(parent: Element, children: (Child | Child[])[]): void {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(child instanceof Node ? child : String(child));
  }
}

/** The element with this id, which the page's template is known to hold. */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`the page has no #${id}`);
  return element as T;
}

/** Empties `region` and fills it with `children`. */
export function fill(region: Element, ...children: (Child | Child[])[]): void {
  region.replaceChildren();
  append(region, children);
}

/** A date as the reader's locale writes it, in their time zone; `—` for none. */
export function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** The form's named fields as strings (checkboxes under the same name collected by `all`). */
export function formValue(form: HTMLFormElement, name: string): string {
  const value = new FormData(form).get(name);
  return typeof value === 'string' ? value.trim() : '';
}

export function formValues(form: HTMLFormElement, name: string): string[] {
  return new FormData(form).getAll(name).filter((v): v is string => typeof v === 'string');
}
