// Entry of the commit thread: worker threads do not inherit the TypeScript loader, so register it here.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
