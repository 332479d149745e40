import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_REGISTRY } from './image-reference.js';

/** What the engine's pull API takes as X-Registry-Auth. */
export interface RegistryAuth {
  readonly username?: string;
  readonly password?: string;
  readonly identitytoken?: string;
  readonly serveraddress: string;
}

interface ConfigEntry {
  auth?: string;
  username?: string;
  password?: string;
  identitytoken?: string;
}

/** Docker's config.json names the default registry by its old index URL; these keys all mean it. */
const DEFAULT_REGISTRY_KEYS = ['https://index.docker.io/v1/', 'index.docker.io', 'docker.io'];

/** A config.json key (`https://host:port/v1/`, `host:port`) as the bare registry host. */
function registryOfKey(key: string): string {
  if (DEFAULT_REGISTRY_KEYS.includes(key) || DEFAULT_REGISTRY_KEYS.includes(key.replace(/^https?:\/\//, '').replace(/\/.*$/, '')))
    return DEFAULT_REGISTRY;
  return key.replace(/^https?:\/\//, '').replace(/\/.*$/, '');
}

/**
 * Per-registry credentials in Docker's config.json format (`auths`: base64 `user:password` in
 * `auth`, or `username`/`password`, or an `identitytoken`). Credential helpers (`credsStore`,
 * `credHelpers`) run programs this server does not run: they are reported, not used. The
 * secrets never leave this object except as the engine's pull header; `describe()` is safe to log.
 */
export class RegistryCredentials {
  private constructor(
    private readonly byRegistry: ReadonlyMap<string, RegistryAuth>,
    readonly source: string | undefined,
    readonly helpersIgnored: boolean,
  ) {}

  static none(): RegistryCredentials {
    return new RegistryCredentials(new Map(), undefined, false);
  }

  /**
   * Reads the file given (--registry-config), else `$DOCKER_CONFIG/config.json`, else
   * `~/.docker/config.json`; a missing default file means no credentials, a missing given file is
   * an error (a typo must not turn into anonymous pulls and their rate limit).
   */
  static async load(file: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<RegistryCredentials> {
    const path = file ?? join(env['DOCKER_CONFIG'] ?? join(homedir(), '.docker'), 'config.json');
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if (file === undefined && (error as NodeJS.ErrnoException).code === 'ENOENT') return RegistryCredentials.none();
      throw new Error(`cannot read the registry credentials file ${path}: ${(error as Error).message}`);
    }
    return RegistryCredentials.parse(text, path);
  }

  static parse(text: string, source: string): RegistryCredentials {
    let config: { auths?: Record<string, ConfigEntry>; credsStore?: string; credHelpers?: Record<string, string> };
    try {
      config = JSON.parse(text) as typeof config;
    } catch {
      // The message must not quote the file: it holds secrets.
      throw new Error(
        `the registry credentials file ${source} is not valid JSON (Docker's config.json format: {"auths": {"host:port": {"auth": "base64 of user:password"}}})`,
      );
    }
    const byRegistry = new Map<string, RegistryAuth>();
    for (const [key, entry] of Object.entries(config.auths ?? {})) {
      const auth = authOf(entry, registryOfKey(key));
      if (auth) byRegistry.set(registryOfKey(key), auth);
    }
    return new RegistryCredentials(byRegistry, source, Boolean(config.credsStore) || Object.keys(config.credHelpers ?? {}).length > 0);
  }

  /** The credentials for a registry host, if any. */
  for(registry: string): RegistryAuth | undefined {
    return this.byRegistry.get(registry);
  }

  /** The registries credentials are held for (never the secrets): for logs and GetServerInfo. */
  describe(): string[] {
    return [...this.byRegistry.keys()].sort();
  }
}

function authOf(entry: ConfigEntry, registry: string): RegistryAuth | undefined {
  if (entry.identitytoken) return { identitytoken: entry.identitytoken, serveraddress: registry };
  if (entry.auth) {
    const decoded = Buffer.from(entry.auth, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon > 0) return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1), serveraddress: registry };
  }
  if (entry.username && entry.password !== undefined)
    return { username: entry.username, password: entry.password, serveraddress: registry };
  return undefined;
}
