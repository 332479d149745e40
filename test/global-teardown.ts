import Docker from 'dockerode';

/**
 * After a test run: task images a test rebuilt under a tag it reused leave their old version
 * untagged (a new temporary repository is a new build hash). Those dangling task images are
 * removed, so repeated runs do not fill the disk; the engine keeps any a container still uses.
 */
export async function teardown(): Promise<void> {
  const docker = new Docker();
  await docker.pruneImages({ filters: { dangling: ['true'], label: ['swe-env.task'] } }).catch(() => undefined);
}
