import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { buildImageFromFiles } from '../../src/sandbox/image-builder.js';
import { LABEL_MANAGED } from '../../src/sandbox/labels.js';
import { BASE_IMAGE, testProvider } from '../helpers/docker.js';

describe('task images', () => {
  it("carry only their own labels (beside the base's) and no entrypoint; a container started from one the way the SWE-bench harness does is not reaped", async () => {
    const provider = testProvider();
    // The base's own labels (its Debian release) carry over, as any image's do; nothing else is added.
    const baseLabels = (await provider.docker.getImage(BASE_IMAGE).inspect()).Config.Labels ?? {};
    expect(baseLabels).not.toHaveProperty(LABEL_MANAGED);
    const own = { ...baseLabels, 'swe-env.source-hash': 'abc' };
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
      expect(config.Labels).toEqual(own);
      // No entrypoint: Docker's commit says null, Podman's (told `ENTRYPOINT []`) an empty list.
      expect(config.Entrypoint ?? []).toEqual([]);
      expect(config.Cmd).toEqual(['/bin/bash']);
      expect(config.WorkingDir).toBe('/testbed');

      // `docker run -d IMAGE tail -f /dev/null`: runs, and carries nothing a swe-env server's sweep
      // selects by (it only ever lists containers labelled managed, then checks their expiry).
      const container = await provider.docker.createContainer({
        Image: tag,
        Cmd: ['tail', '-f', '/dev/null'],
        HostConfig: { NetworkMode: 'none' },
      });
      started = container.id;
      await container.start();
      const info = await container.inspect();
      expect(info.State.Running).toBe(true);
      expect(info.Config.Labels).toEqual(own);
      expect(info.Config.Labels).not.toHaveProperty(LABEL_MANAGED);
    } finally {
      if (started)
        await provider.docker
          .getContainer(started)
          .remove({ force: true })
          .catch(() => undefined);
      await provider.docker
        .getImage(tag)
        .remove({ force: true })
        .catch(() => undefined);
    }
  });
});

describe('an engine that does not answer', () => {
  it('makes a sandbox start UNAVAILABLE (an outage to retry), not an internal error', async () => {
    const { DockerSandboxProvider } = await import('../../src/sandbox/docker-sandbox.js');
    const { UnavailableError } = await import('../../src/common/errors.js');
    const { testSpec } = await import('../helpers/docker.js');
    const down = new DockerSandboxProvider('test-engine-down', { socketPath: '/tmp/swe-env-no-engine-here.sock' });
    await expect(down.create(testSpec())).rejects.toBeInstanceOf(UnavailableError);
  });
});
