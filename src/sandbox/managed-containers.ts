import type Docker from 'dockerode';
import { identityGone } from '../common/process-identity.js';
import { removeContainer } from './docker-exec.js';
import {
  BUILD_NAME_PREFIX,
  LABEL_EPISODE,
  LABEL_MANAGED,
  LABEL_ROLE,
  LABEL_SERVER,
  buildNameOwner,
  isExpired,
  ownerGone,
} from './labels.js';
import type { ServerContainer } from './sandbox.js';

/**
 * The engine's containers swe-env made, found by their labels (and build containers by their
 * names, since a label would be committed into the image), and their removal.
 */
export class ManagedContainers {
  constructor(
    private readonly docker: Docker,
    private readonly serverId: string,
  ) {}

  list(labels: string[]): Promise<Docker.ContainerInfo[]> {
    return this.docker.listContainers({ all: true, filters: { label: [`${LABEL_MANAGED}=true`, ...labels] } });
  }

  /** Removes each; how many went. */
  async removeAll(infos: Docker.ContainerInfo[]): Promise<number> {
    const results = await Promise.allSettled(infos.map((info) => removeContainer(this.docker.getContainer(info.Id))));
    return results.filter((r) => r.status === 'fulfilled').length;
  }

  async removeServerContainers(keep: ReadonlySet<string>): Promise<number> {
    const infos = await this.list([`${LABEL_SERVER}=${this.serverId}`]);
    return this.removeAll(infos.filter((info) => !keep.has(info.Id)));
  }

  async serverContainers(): Promise<ServerContainer[]> {
    const infos = await this.list([`${LABEL_SERVER}=${this.serverId}`]);
    return infos.map((info) => ({
      id: info.Id,
      episodeId: info.Labels[LABEL_EPISODE] ?? '',
      role: info.Labels[LABEL_ROLE] ?? '',
      running: info.State === 'running',
    }));
  }

  /** Every managed container past its expiry, and every one of a one-shot process gone from this host. */
  async removeExpired(now: Date): Promise<number> {
    const infos = await this.list([]);
    const orphanBuild = (info: Docker.ContainerInfo): boolean =>
      info.Names.some((n) => {
        const owner = buildNameOwner(n);
        return owner !== undefined && identityGone(owner);
      });
    return this.removeAll([
      ...infos.filter((info) => isExpired(info.Labels, now) || ownerGone(info.Labels)),
      ...(await this.builds()).filter(orphanBuild),
    ]);
  }

  /** The build containers of one process (a one-shot command interrupted mid-build). */
  async removeBuildsOf(owner: string): Promise<number> {
    return this.removeAll((await this.builds()).filter((info) => info.Names.some((n) => buildNameOwner(n) === owner)));
  }

  async ids(filter: { episodeId?: string }): Promise<string[]> {
    const labels = [`${LABEL_SERVER}=${this.serverId}`];
    if (filter.episodeId !== undefined) labels.push(`${LABEL_EPISODE}=${filter.episodeId}`);
    return (await this.list(labels)).map((info) => info.Id);
  }

  private builds(): Promise<Docker.ContainerInfo[]> {
    return this.docker.listContainers({ all: true, filters: { name: [BUILD_NAME_PREFIX] } });
  }
}
