/**
 * The sandboxes' disk bandwidth limits (`--io-device` with `--io-read-mbps` and the rest): the
 * engine is asked for one throttle per kind given, nothing when none is, and a half-given or
 * malformed limit is refused when the options are read. test/sandbox/io-limits.test.ts shows the
 * kernel holding them on a real engine.
 */
import { describe, expect, it } from 'vitest';
import { ioLimits } from '../../src/cli/serve-command.js';
import { sandboxCreateOptions } from '../../src/sandbox/container-options.js';
import type { SandboxIoLimits } from '../../src/sandbox/sandbox.js';
import { compileConfig } from '../../src/server/config.js';
import { testSpec } from '../helpers/docker.js';

const IO: SandboxIoLimits = { device: '/dev/vda', readBps: 50 * 1024 ** 2, writeBps: 0, readIops: 0, writeIops: 2000 };
const LIMITS = { memoryBytes: 1024 ** 3, nanoCpus: 1e9, pidsLimit: 256, diskBytes: 0 };

describe("the sandboxes' I/O limits", () => {
  it('ask the engine for a throttle of each kind given, on the device, for agent and grading sandboxes', () => {
    for (const role of ['episode', 'grader'] as const) {
      const host = sandboxCreateOptions(testSpec({ role, limits: { ...LIMITS, io: IO } }), 'srv', undefined).HostConfig!;
      expect(host.BlkioDeviceReadBps).toEqual([{ Path: '/dev/vda', Rate: 50 * 1024 ** 2 }]);
      expect(host.BlkioDeviceWriteIOps).toEqual([{ Path: '/dev/vda', Rate: 2000 }]);
      expect(host.BlkioDeviceWriteBps).toBeUndefined();
      expect(host.BlkioDeviceReadIOps).toBeUndefined();
    }
  });

  it('ask for none by default', () => {
    const host = sandboxCreateOptions(testSpec({ limits: LIMITS }), 'srv', undefined).HostConfig!;
    expect(Object.keys(host).filter((k) => k.startsWith('Blkio'))).toEqual([]);
    expect(compileConfig({}).limits.io).toBeUndefined();
  });

  it('are read from the serve options in MB/s and operations per second', () => {
    expect(ioLimits({ ioDevice: '/dev/nvme0n1', ioWriteMbps: 20, ioReadIops: 500 })).toEqual({
      device: '/dev/nvme0n1',
      readBps: 0,
      writeBps: 20 * 1024 ** 2,
      readIops: 500,
      writeIops: 0,
    });
    expect(ioLimits({})).toBeUndefined();
  });

  it('refuse a rate without its device, a device without a rate, and malformed values, saying what to give', () => {
    expect(() => ioLimits({ ioReadMbps: 10 })).toThrow(/need --io-device/);
    expect(() => ioLimits({ ioDevice: '/dev/vda' })).toThrow(/--io-device needs a limit/);
    expect(() => compileConfig({ limits: { io: { ...IO, device: 'vda' } } })).toThrow(/block device on the engine's host/);
    expect(() => compileConfig({ limits: { io: { ...IO, readBps: 0, writeIops: 0 } } })).toThrow(/sets no rate/);
    expect(() => compileConfig({ limits: { io: { ...IO, readBps: -1 } } })).toThrow(/limits\.io\.readBps/);
    expect(compileConfig({ limits: { io: IO } }).limits.io).toEqual(IO);
    expect(Object.isFrozen(compileConfig({ limits: { io: IO } }).limits.io)).toBe(true);
  });
});
