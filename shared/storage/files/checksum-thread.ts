import { Worker } from 'node:worker_threads';

/**
 * zlib's CRC-32 of an open file's bytes from `from` to `to`, computed by a worker thread: at a million
 * sections a snapshot is 1.8 GB and its checksum 1.5 s of one core, which the start then spends
 * restoring the index on the other instead of waiting. The thread reads the descriptor it is given
 * (descriptors are the process's, not a thread's) in 8 MB steps into one buffer, so it takes no
 * memory that grows with the file. The caller keeps `fd` open until the promise settles.
 */
export function checksumInThread(fd: number, from: number, to: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(SOURCE, { eval: true, workerData: { fd, from, to } });
    worker.once('message', (crc: number) => resolve(crc));
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`checksum thread exited (${code}) before answering`)));
  });
}

// Plain JavaScript: an eval'd worker runs as a CommonJS script, not through the TypeScript loader.
const SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { readSync } = require('node:fs');
const { crc32 } = require('node:zlib');
const { fd, from, to } = workerData;
const buffer = Buffer.allocUnsafe(Math.max(1, Math.min(8 << 20, to - from)));
let crc = 0;
for (let at = from; at < to; ) {
  const n = readSync(fd, buffer, 0, Math.min(buffer.length, to - at), at);
  if (n === 0) break;
  crc = crc32(buffer.subarray(0, n), crc);
  at += n;
}
parentPort.postMessage(crc >>> 0);
`;
