import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, describe, expect, it } from 'vitest';
import { startRegistry, stopAllRegistries, type LocalRegistry } from '../helpers/local-registry.js';
import { CERTS_D } from '../helpers/registry-leftovers.js';
import { buildTinyImage, imagePresent, pullImage, removeImages } from '../helpers/registry-images.js';
import { startThrottlingProxy, type ThrottlingProxy } from '../helpers/throttling-proxy.js';

const docker = new Docker();
const auth = { user: 'trainer', password: 'correct horse' };
/** Every image reference a test made on the engine; all removed in afterAll, even after a failure. */
const made = new Set<string>();
const proxies: ThrottlingProxy[] = [];

afterAll(async () => {
  await Promise.allSettled(proxies.map((proxy) => proxy.stop()));
  await removeImages(docker, made);
  await stopAllRegistries();
});

interface Pushed {
  reference: string;
  imageId: string;
}

/**
 * Builds a tiny image of its own, pushes it and removes it from the engine, so that a pull really
 * downloads its layers (an engine that holds the image fetches only the manifest).
 */
async function pushFreshImage(registry: LocalRegistry, tag: string): Promise<Pushed> {
  const local = await buildTinyImage(docker);
  made.add(local);
  const { Id: imageId } = await docker.getImage(local).inspect();
  const reference = await registry.push(local, 'swe-env-test/tiny', tag);
  made.add(reference);
  expect(reference).toBe(`${registry.host}/swe-env-test/tiny:${tag}`);
  // push() leaves no tag of the registry's on the engine.
  expect(await imagePresent(docker, reference)).toBe(false);
  await removeImages(docker, [local]);
  expect(await imagePresent(docker, imageId)).toBe(false);
  return { reference, imageId };
}

/** Pulls `reference` (made for removal in afterAll) and checks it is the image that was pushed. */
async function pullAndCheck(reference: string, pushed: Pushed, registry: LocalRegistry, serveraddress?: string): Promise<void> {
  made.add(reference);
  await pullImage(docker, reference, registry.authconfig(serveraddress));
  expect((await docker.getImage(reference).inspect()).Id).toBe(pushed.imageId);
}

describe('a local registry with htpasswd auth', () => {
  let registry: LocalRegistry;
  let pushed: Pushed;

  it('takes a push with credentials and gives the image back to a pull with them', async () => {
    registry = await startRegistry({ auth });
    expect(registry.host).toMatch(/^127\.0\.0\.1:\d+$/);
    pushed = await pushFreshImage(registry, 'v1');
    expect(registry.requests()).toContainEqual({ method: 'PUT', path: '/v2/swe-env-test/tiny/manifests/v1', status: 201 });
    await pullAndCheck(pushed.reference, pushed, registry);
    expect(registry.requests().some((r) => r.method === 'GET' && r.path.includes('/blobs/') && r.status === 200)).toBe(true);
    await removeImages(docker, [pushed.reference]);
  });

  it('refuses a pull with a wrong password, with an auth error', async () => {
    const wrong = { ...registry.authconfig(), password: 'wrong' };
    await expect(pullImage(docker, pushed.reference, wrong)).rejects.toThrow(/unauthorized: authentication required/);
    expect(await imagePresent(docker, pushed.reference)).toBe(false);
  });

  it('refuses a pull without credentials', async () => {
    await expect(pullImage(docker, pushed.reference)).rejects.toThrow(/no basic auth credentials/);
    expect(await imagePresent(docker, pushed.reference)).toBe(false);
  });
});

describe('a local registry over TLS', () => {
  it('is trusted by the engine through certs.d while it runs, and leaves nothing once stopped', async () => {
    const registry = await startRegistry({ tls: true, auth });
    const certsDir = join(CERTS_D, registry.host);
    expect(registry.url).toBe(`https://${registry.host}`);
    expect(existsSync(join(certsDir, 'ca.crt'))).toBe(true);
    const pushed = await pushFreshImage(registry, 'tls');
    await pullAndCheck(pushed.reference, pushed, registry);
    await removeImages(docker, [pushed.reference]);

    const caCertPath = registry.caCertPath;
    await registry.stop();
    expect(existsSync(certsDir)).toBe(false);
    expect(caCertPath !== undefined && existsSync(caCertPath)).toBe(false);
    // Nothing listens there any more: a pull fails instead of hanging.
    await expect(pullImage(docker, pushed.reference, registry.authconfig())).rejects.toThrow(/connection refused/);
  });
});

describe('a throttling proxy in front of a registry', () => {
  let registry: LocalRegistry;
  let proxy: ThrottlingProxy;
  let pushed: Pushed;
  let viaProxy: string;

  it('answers 429 while throttling: the pull fails with toomanyrequests and nothing reaches the registry', async () => {
    registry = await startRegistry({ auth });
    pushed = await pushFreshImage(registry, 'throttled');
    proxy = await startThrottlingProxy(registry.host);
    proxies.push(proxy);
    viaProxy = `${proxy.host}/swe-env-test/tiny:throttled`;
    const before = registry.requests().length;

    proxy.throttle({ status: 429 });
    await expect(pullImage(docker, viaProxy, registry.authconfig(proxy.host))).rejects.toThrow(/toomanyrequests/);
    expect(proxy.count('manifests', 'throttled')).toBeGreaterThan(0);
    expect(proxy.count(undefined, 'forwarded')).toBe(0);
    expect(registry.requests().length).toBe(before);
    expect(await imagePresent(docker, viaProxy)).toBe(false);
  });

  it('forwards again once cleared (Basic auth through the proxy) and counts the manifest fetches', async () => {
    proxy.clear();
    proxy.resetCounts();
    const before = registry.requests().length;
    await pullAndCheck(viaProxy, pushed, registry, proxy.host);
    expect(proxy.count('manifests', 'forwarded')).toBeGreaterThan(0);
    expect(proxy.count('blobs', 'forwarded')).toBeGreaterThan(0);
    expect(proxy.count(undefined, 'throttled')).toBe(0);
    // The registry answered exactly the manifest requests the proxy forwarded (its log may lag a little).
    const registryManifests = (): number =>
      registry
        .requests()
        .slice(before)
        .filter((r) => r.path.includes('/manifests/')).length;
    await expect.poll(registryManifests, { timeout: 30_000 }).toBe(proxy.count('manifests', 'forwarded'));
    await removeImages(docker, [viaProxy]);
  });

  it('answers 503 to manifests only when told so, and only as many times as told', async () => {
    proxy.resetCounts();
    proxy.throttle({ status: 503, only: 'manifests' });
    await expect(pullImage(docker, viaProxy, registry.authconfig(proxy.host))).rejects.toThrow(/503|unavailable/i);
    const refused = proxy.requests().filter((r) => r.throttled);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((r) => r.kind === 'manifests' && r.status === 503)).toBe(true);
    expect(
      proxy
        .requests()
        .filter((r) => r.kind === 'ping')
        .every((r) => !r.throttled),
    ).toBe(true);

    proxy.resetCounts();
    proxy.throttle({ status: 503, times: 1 });
    // Whether the engine gets past one refusal on its own is the engine's business; a second pull must.
    await pullImage(docker, viaProxy, registry.authconfig(proxy.host)).catch(() => undefined);
    await pullAndCheck(viaProxy, pushed, registry, proxy.host);
    expect(proxy.count(undefined, 'throttled')).toBe(1);
    await removeImages(docker, [viaProxy]);
  });
});
