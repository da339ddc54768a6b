/**
 * How a page says what happened: failures in a role=alert region (the API's own message, and the
 * plan needed when a plan is the cause), successes in a role=status region; both are read out by
 * screen readers when they change.
 */
import { ApiError } from './api.js';
import { fill, h } from './dom.js';
import { planName } from './plans.js';

/** The sentence a person reads for a failed call. */
export function describe(error: unknown): string {
  if (error instanceof ApiError) {
    const plan = typeof error.body.required_plan === 'string' ? ` (needs the ${planName(error.body.required_plan)} plan)` : '';
    if (error.status === 429) return `Too many requests for your plan this hour: ${error.message}`;
    return `${error.message}${plan}`;
  }
  if (error instanceof TypeError) return 'Folio could not be reached: check the connection and try again.';
  return error instanceof Error ? error.message : String(error);
}

/** Shows the failure in `region` (created with role=alert, so it is announced). */
export function showError(region: HTMLElement, error: unknown): void {
  region.hidden = false;
  region.setAttribute('role', 'alert');
  fill(region, describe(error));
}

export function clearMessage(region: HTMLElement): void {
  region.hidden = true;
  region.replaceChildren();
}

/** A short success line in a role=status region. */
export function showStatus(region: HTMLElement, message: string): void {
  fill(region, message);
}

/** The text shown while a region's data loads, so a slow answer never looks like an empty page. */
export function loading(what: string): HTMLElement {
  return h('p', { class: 'muted' }, `Loading ${what}…`);
}
