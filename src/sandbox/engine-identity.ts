import type Docker from 'dockerode';

export interface EngineIdentity {
  /** The engine as it names itself, e.g. "Docker Engine 20.10.24 (API 1.41)" or "Podman Engine 4.3.1 (API 1.41)". */
  readonly engine: string;
  /** The OCI runtime sandboxes run under: the one asked for (--oci-runtime), else the engine's default. */
  readonly runtime: string;
}

/**
 * Which engine and runtime serve this server's sandboxes (GetServerInfo, `swe-env health`): two
 * engine calls, asked once; a failure is not kept, so the next look asks again.
 */
export class EngineIdentitySource {
  private known: EngineIdentity | undefined;

  constructor(
    private readonly docker: Docker,
    private readonly ociRuntime: string | undefined,
  ) {}

  async identity(): Promise<EngineIdentity> {
    if (this.known) return this.known;
    try {
      const [version, info] = await Promise.all([this.docker.version(), this.docker.info() as Promise<{ DefaultRuntime?: string }>]);
      // Docker's engine calls itself "Engine", Podman's "Podman Engine".
      const named = (version as { Components?: Array<{ Name?: string }> }).Components?.[0]?.Name ?? 'Engine';
      const name = named === 'Engine' ? 'Docker Engine' : named;
      this.known = {
        engine: `${name} ${version.Version} (API ${version.ApiVersion})`,
        runtime: this.ociRuntime ?? info.DefaultRuntime ?? 'runc',
      };
      return this.known;
    } catch {
      return { engine: 'unknown (the engine did not say)', runtime: this.ociRuntime ?? 'unknown' };
    }
  }
}
