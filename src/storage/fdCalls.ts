/**
 * The folder store's file calls on plain descriptors, through node:fs's callback API: a
 * FileHandle of node:fs/promises costs the event loop about twice as much per open, read, write
 * and close (measured: 85-120 µs against 45-85 µs per open-stat-read-close), and a publish or a
 * rebuild makes thousands of them on the main thread. Each call still runs in libuv's pool.
 */
import { close, fdatasync, fstat, open, read, writeFile } from 'node:fs';

export function openFd(path: string, flags: string): Promise<number> {
  return new Promise((resolve, reject) => open(path, flags, (error, fd) => (error ? reject(error) : resolve(fd))));
}

export function closeFd(fd: number): Promise<void> {
  return new Promise((resolve, reject) => close(fd, (error) => (error ? reject(error) : resolve())));
}

export function sizeOfFd(fd: number): Promise<number> {
  return new Promise((resolve, reject) => fstat(fd, (error, stats) => (error ? reject(error) : resolve(stats.size))));
}

export function readFd(fd: number, buffer: Buffer, offset: number, length: number, position: number): Promise<number> {
  return new Promise((resolve, reject) => read(fd, buffer, offset, length, position, (error, bytesRead) => (error ? reject(error) : resolve(bytesRead))));
}

/** The whole of `data`, from the descriptor's current position (a new file: its start). */
export function writeAllFd(fd: number, data: Buffer | string): Promise<void> {
  return new Promise((resolve, reject) => writeFile(fd, data, (error) => (error ? reject(error) : resolve())));
}

export function datasyncFd(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fdatasync(fd, (error) => (error ? reject(error) : resolve())));
}
