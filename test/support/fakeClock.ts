import type { Clock } from '../../src/lib/clock.js';

/** A clock tests move by hand, so schedules and rate windows need no sleeping. */
export class FakeClock implements Clock {
  private current: number;

  constructor(start: Date | string = '2026-03-24T10:00:00.000Z') {
    this.current = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  advance(ms: number): void {
    this.current += ms;
  }

  set(date: Date | string): void {
    this.current = new Date(date).getTime();
  }
}
