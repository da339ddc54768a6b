/** Reading one environment variable into a typed value; a bad value throws ConfigError naming it. */
export class ConfigError extends Error {
  constructor(variable: string, problem: string) {
    super(`${variable}: ${problem}`);
    this.name = 'ConfigError';
  }
}

export type Env = Record<string, string | undefined>;

export function readInt(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(name, `expected a whole number, got "${raw}"`);
  const value = Number(raw.trim());
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

export function readBool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = raw.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(value)) return true;
  if (['false', '0', 'no', 'off'].includes(value)) return false;
  throw new ConfigError(name, `expected true or false, got "${raw}"`);
}

export function readEnum<T extends string>(env: Env, name: string, fallback: T, allowed: readonly T[]): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = raw.trim().toLowerCase() as T;
  if (!allowed.includes(value)) throw new ConfigError(name, `expected one of ${allowed.join(', ')}, got "${raw}"`);
  return value;
}

export function readUrl(env: Env, name: string, required: string | null): string | undefined {
  const raw = (env[name] ?? '').trim();
  if (raw === '') {
    if (required !== null) throw new ConfigError(name, `required when ${required}`);
    return undefined;
  }
  if (!/^https?:\/\/[^\s/]+/.test(raw)) throw new ConfigError(name, `expected an http(s) URL, got "${raw}"`);
  return raw.replace(/\/+$/, '');
}

export function readRequired(env: Env, name: string, when: string, pattern: RegExp, shape: string): string {
  const raw = (env[name] ?? '').trim();
  if (raw === '') throw new ConfigError(name, `required when ${when}`);
  if (!pattern.test(raw)) throw new ConfigError(name, `expected ${shape}`);
  return raw;
}
