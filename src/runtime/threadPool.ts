/**
 * Imported first by every process entry (main.ts, cliMain.ts, the bench children). libuv runs file
 * system calls on a pool of 4 threads by default; a full rebuild writes thousands of small
 * files whose fdatasync calls wait on the disk, not the CPU, so 4 threads leave the disk idle
 * between flushes. The pool is created on first use, so setting the size here, before any
 * asynchronous I/O, takes effect. An operator's own UV_THREADPOOL_SIZE wins.
 */
process.env.UV_THREADPOOL_SIZE ??= '16';
export {};
