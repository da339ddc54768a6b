/**
 * When the editor saves: a pause after the last edit, one save at a time, and never again after
 * a conflict until the author chooses (docs/dashboard.md#writing). No DOM: the timers are given,
 * so test/unit/dashboard/autosave.test.ts drives it with a fake clock.
 */

export type SaveStatus = 'saved' | 'unsaved' | 'saving' | 'failed' | 'conflict';

/** What one save attempt ended in; a thrown error counts as `failed` with its message. */
export type SaveOutcome = 'saved' | 'conflict';

export interface Timers {
  set(run: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export interface AutosaveOptions {
  delayMs: number;
  save: () => Promise<SaveOutcome>;
  onStatus: (status: SaveStatus, detail: string) => void;
  /** Whether a pause may save by itself (drafts yes; a published post waits for Save). */
  automatic: () => boolean;
  timers?: Timers;
}

const realTimers: Timers = {
  set: (run, ms) => setTimeout(run, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export class Autosave {
  #edits = 0;
  #savedEdits = 0;
  #status: SaveStatus = 'saved';
  #detail = '';
  #timer: unknown = null;
  #inFlight: Promise<void> | null = null;
  readonly #options: AutosaveOptions;
  readonly #timers: Timers;

  constructor(options: AutosaveOptions) {
    this.#options = options;
    this.#timers = options.timers ?? realTimers;
  }

  get status(): SaveStatus {
    return this.#status;
  }

  /** Whether something typed is not on the server yet. */
  get dirty(): boolean {
    return this.#edits !== this.#savedEdits;
  }

  /** An edit happened: unsaved now, saved after the pause if automatic. */
  changed(): void {
    this.#edits++;
    if (this.#status === 'conflict') return;
    if (this.#status !== 'saving') this.#set('unsaved', '');
    this.#schedule();
  }

  /** Saves now if anything is unsaved (after a save in flight); true when all is saved. */
  async flush(): Promise<boolean> {
    this.#cancelTimer();
    if (this.#inFlight) await this.#inFlight;
    if (this.#status === 'conflict') return false;
    if (this.dirty || this.#status === 'failed') await this.#run();
    return !this.dirty && this.#status === 'saved';
  }

  /** The server's version was taken (a reload, a restore): nothing is unsaved any more. */
  reset(): void {
    this.#cancelTimer();
    this.#savedEdits = this.#edits;
    this.#set('saved', '');
  }

  /** The author chose to keep their text after a conflict: it is unsaved again, saved on the next pause. */
  resume(): void {
    if (this.#status !== 'conflict') return;
    this.#set('unsaved', '');
    this.#schedule();
  }

  #schedule(): void {
    this.#cancelTimer();
    if (!this.#options.automatic()) return;
    this.#timer = this.#timers.set(() => {
      this.#timer = null;
      void this.flush();
    }, this.#options.delayMs);
  }

  #cancelTimer(): void {
    if (this.#timer !== null) this.#timers.clear(this.#timer);
    this.#timer = null;
  }

  #run(): Promise<void> {
    const edits = this.#edits;
    this.#set('saving', '');
    const attempt = (async () => {
      try {
        const outcome = await this.#options.save();
        if (outcome === 'conflict') return this.#set('conflict', '');
        this.#savedEdits = Math.max(this.#savedEdits, edits);
        if (this.dirty) {
          this.#set('unsaved', '');
          this.#schedule();
        } else this.#set('saved', '');
      } catch (error) {
        this.#set('failed', error instanceof Error ? error.message : String(error));
      }
    })();
    this.#inFlight = attempt.finally(() => {
      this.#inFlight = null;
    });
    return this.#inFlight;
  }

  /** Tells only a change: the live region would otherwise read the same words at every keystroke. */
  #set(status: SaveStatus, detail: string): void {
    if (status === this.#status && detail === this.#detail) return;
    this.#status = status;
    this.#detail = detail;
    this.#options.onStatus(status, detail);
  }
}
