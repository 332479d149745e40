import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { buildImageFromFiles } from '../../src/sandbox/image-builder.js';
import { BASE_IMAGE, testProvider } from '../helpers/docker.js';

describe('task images', () => {
  it('carry only their own labels and no entrypoint; a container started from one the way the SWE-bench harness does is not reaped', async () => {
    const provider = testProvider();
    const tag = `swe-env-test/image-builder:${randomUUID().slice(0, 8)}`;
    let started: string | undefined;
    try {
      await buildImageFromFiles(provider, {
        baseImage: BASE_IMAGE,
        files: [{ path: '/testbed/hello.txt', content: 'hello\n' }],
        script: 'test -f /testbed/hello.txt',
        tag,
        labels: { 'swe-env.source-hash': 'abc' },
        workdir: '/testbed',
      });
      const config = (await provider.docker.getImage(tag).inspect()).Config;
      expect(config.Labels).toEqual({ 'swe-env.source-hash': 'abc' });
      expect(config.Entrypoint ?? null).toBeNull();
      expect(config.Cmd).toEqual(['/bin/bash']);
      expect(config.WorkingDir).toBe('/testbed');

      // `docker run -d IMAGE tail -f /dev/null`: runs, and survives any swe-env server's sweep.
      const container = await provider.docker.createContainer({ Image: tag, Cmd: ['tail', '-f', '/dev/null'], HostConfig: { NetworkMode: 'none' } });
      started = container.id;
      await container.start();
      const farFuture = new Date(Date.now() + 10 * 365 * 24 * 3600 * 1000);
      await provider.removeExpired(farFuture);
      const state = (await container.inspect()).State;
      expect(state.Running).toBe(true);
    } finally {
      if (started) await provider.docker.getContainer(started).remove({ force: true }).catch(() => undefined);
      await provider.docker.getImage(tag).remove({ force: true }).catch(() => undefined);
    }
  });
});
