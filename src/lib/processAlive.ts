/** Whether a process with this pid exists (for telling a killed writer's leftovers from files in use). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, it is only not ours to signal.
    return (err as NodeJS.ErrnoException | undefined)?.code === 'EPERM';
  }
}
