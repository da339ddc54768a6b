/**
 * The Schedule section: a date and time in the author's time zone, sent as UTC to the schedule
 * operation; disabled, with the plan named, for accounts below Creator.
 */
import { api } from '../lib/api.js';
import { byId, localDateTime } from './dom.js';
import { localInputToUtc, timeZoneName, utcToLocalInput } from './localTime.js';
import { canSchedule, scheduleRefusal } from './schedulePlan.js';

export interface SchedulingDeps {
  schedule: (utc: string) => Promise<void>;
}

export class Scheduling {
  readonly #input = byId<HTMLInputElement>('schedule-at');
  readonly #button = byId<HTMLButtonElement>('schedule-post');
  readonly #note = byId('schedule-note');
  #allowed = false;

  constructor(private readonly deps: SchedulingDeps) {
    byId('schedule-zone').textContent = timeZoneName();
    this.#button.addEventListener('click', () => void this.#submit());
  }

  /** Reads the account's plan; until it is known the button stays disabled. */
  async loadPlan(): Promise<void> {
    this.#button.disabled = true;
    try {
      const account = await api<{ plan: string }>('/account');
      this.#allowed = canSchedule(account.body.plan);
      this.#input.disabled = !this.#allowed;
      this.#button.disabled = !this.#allowed;
      if (!this.#allowed) this.#note.textContent = scheduleRefusal(account.body.plan);
    } catch (error) {
      this.#note.textContent = `The account's plan could not be read, so scheduling is off: ${error instanceof Error ? error.message : String(error)}`;
    }
  }

  /** Shows the post's scheduled time, if any. */
  show(scheduledAt: string | null): void {
    if (!this.#allowed) return;
    if (scheduledAt) {
      this.#input.value = utcToLocalInput(scheduledAt);
      this.#note.textContent = `Scheduled for ${localDateTime(scheduledAt)}.`;
    } else this.#note.textContent = 'Pick a future date and time.';
  }

  async #submit(): Promise<void> {
    const utc = localInputToUtc(this.#input.value);
    if (utc === null) {
      this.#note.textContent = 'Pick a date and a time first (a time skipped by a clock change does not exist).';
      this.#input.focus();
      return;
    }
    if (Date.parse(utc) <= Date.now()) {
      this.#note.textContent = 'Pick a time in the future.';
      this.#input.focus();
      return;
    }
    this.#button.disabled = true;
    this.#note.textContent = 'Scheduling…';
    try {
      await this.deps.schedule(utc);
    } catch (error) {
      this.#note.textContent = `Not scheduled: ${error instanceof Error ? error.message : String(error)}`;
    } finally {
      this.#button.disabled = !this.#allowed;
    }
  }
}
