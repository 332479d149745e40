import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * A full collection, available without starting node with --expose-gc: the flag can be set at run
 * time, and a fresh context then sees the `gc` function it defines.
 */
export function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
}

/** Bytes the process still holds in JS objects and Buffers once garbage is collected. */
export function retainedBytes(): number {
  collectGarbage();
  collectGarbage();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}
