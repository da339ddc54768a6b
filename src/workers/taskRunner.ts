/**
 * What a caller sees of a worker pool for its own kinds of task: each kind names what it takes
 * and what it returns. Callers declare their table (content/contentRenderer.ts, search/
 * pooledSearchWork.ts) and the pool that runs them all (src/heavyWork/heavyWork.ts) fits each, so
 * neither content/ nor search/ imports the pool's task table.
 */
export type TaskTable<T> = { [K in keyof T]: { request: unknown; result: unknown } };

export interface TaskRunner<T extends TaskTable<T>> {
  /** False when no compiled worker exists: the caller then does the work in place. */
  readonly available: boolean;
  run<K extends keyof T>(tenant: string, kind: K, request: T[K]['request']): Promise<T[K]['result']>;
  /** Replaces the pool's workers as they become idle: a long run of tasks grew their heaps. */
  recycle?(): void;
}
