import { describe, expect, it } from 'vitest';
import { DeadlineExceededError, InfraError } from '../../src/common/errors.js';
import type { PullEngine } from '../../src/sandbox/images/docker-pull.js';
import { mirrored, parseMirrorRule, parseReference, sameImage } from '../../src/sandbox/images/image-reference.js';
import { ImagePulls, type PullOptions } from '../../src/sandbox/images/image-pulls.js';
import { backoffMs, classifyPullFailure } from '../../src/sandbox/images/pull-errors.js';
import { RegistryCredentials } from '../../src/sandbox/images/registry-credentials.js';
import type { RegistryAuth } from '../../src/sandbox/images/registry-credentials.js';

/**
 * The pull manager's own rules against a scripted engine: what a registry says is scripted, the
 * manager's single-flight, bounds, retries, mirrors and waiting are real. The same rules against a
 * real registry and engine are in test/server/image-supply.test.ts.
 */
class ScriptedEngine implements PullEngine {
  readonly present = new Set<string>();
  readonly pulls: Array<{ reference: string; auth: RegistryAuth | undefined }> = [];
  running = 0;
  maxRunning = 0;
  /** Failures to answer per reference before a pull succeeds. */
  failures = new Map<string, string[]>();
  private gates: Array<() => void> = [];
  gated = false;

  exists(image: string): Promise<boolean> {
    return Promise.resolve(this.present.has(image));
  }

  async pull(
    reference: string,
    auth: RegistryAuth | undefined,
    onEvent: (e: { status: string; id: string; progressDetail?: { current: number; total: number } }) => void,
    signal: AbortSignal,
  ): Promise<void> {
    this.pulls.push({ reference, auth });
    this.running += 1;
    this.maxRunning = Math.max(this.maxRunning, this.running);
    try {
      onEvent({ status: 'Pulling fs layer', id: 'l1' });
      onEvent({ status: 'Downloading', id: 'l1', progressDetail: { current: 5e6, total: 1e7 } });
      if (this.gated)
        await new Promise<void>((resolve, reject) => {
          this.gates.push(resolve);
          signal.addEventListener('abort', () => reject(new Error('stopped')), { once: true });
        });
      const failure = this.failures.get(reference)?.shift();
      if (failure) throw new Error(failure);
      onEvent({ status: 'Pull complete', id: 'l1' });
      this.present.add(reference);
    } finally {
      this.running -= 1;
    }
  }

  rename(from: string, to: string): Promise<void> {
    this.present.delete(from);
    this.present.add(to);
    return Promise.resolve();
  }

  open(): void {
    this.gated = false;
    for (const gate of this.gates.splice(0)) gate();
  }
}

function manager(engine: ScriptedEngine, options: Partial<PullOptions> = {}): ImagePulls {
  return new ImagePulls(engine, {
    maxPulls: 2,
    retries: 3,
    backoffBaseMs: 1,
    backoffMaxMs: 5,
    credentials: RegistryCredentials.none(),
    mirrors: [],
    ...options,
  });
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('image references', () => {
  it('names the registry, path and tag as the engine reads them', () => {
    expect(parseReference('ubuntu')).toEqual({ registry: 'docker.io', path: 'library/ubuntu', tag: 'latest', digest: undefined });
    expect(parseReference('swebench/sweb.eval.x86_64.django_1776_django-11099:v1')).toMatchObject({
      registry: 'docker.io',
      path: 'swebench/sweb.eval.x86_64.django_1776_django-11099',
      tag: 'v1',
    });
    expect(parseReference('127.0.0.1:5000/tasks/a')).toMatchObject({ registry: '127.0.0.1:5000', path: 'tasks/a', tag: 'latest' });
    expect(parseReference('localhost/a@sha256:abc')).toMatchObject({
      registry: 'localhost',
      path: 'a',
      tag: undefined,
      digest: 'sha256:abc',
    });
    expect(sameImage('ubuntu', 'docker.io/library/ubuntu:latest')).toBe(true);
  });

  it('rewrites names for a mirror, longest prefix first', () => {
    const rules = [parseMirrorRule('docker.io=127.0.0.1:5000'), parseMirrorRule('docker.io/swebench=127.0.0.1:6000/hub')];
    expect(mirrored('swebench/x:v1', rules)).toBe('127.0.0.1:6000/hub/x:v1');
    expect(mirrored('ubuntu', rules)).toBe('127.0.0.1:5000/library/ubuntu:latest');
    expect(mirrored('127.0.0.1:7000/a', rules)).toBeUndefined();
    expect(() => parseMirrorRule('docker.io')).toThrow(/FROM=TO/);
  });
});

describe('registry credentials', () => {
  it("reads Docker's config.json: auth, username/password, the default registry's old key", () => {
    const file = JSON.stringify({
      auths: {
        '127.0.0.1:5000': { auth: Buffer.from('alice:s3cret:with:colons').toString('base64') },
        'https://index.docker.io/v1/': { username: 'bob', password: 'pw' },
        'http://reg.example.test:8443/v2/': { identitytoken: 'tok' },
      },
      credHelpers: { 'other.test': 'ecr-login' },
    });
    const creds = RegistryCredentials.parse(file, 'config.json');
    expect(creds.for('127.0.0.1:5000')).toEqual({ username: 'alice', password: 's3cret:with:colons', serveraddress: '127.0.0.1:5000' });
    expect(creds.for('docker.io')).toMatchObject({ username: 'bob', password: 'pw' });
    expect(creds.for('reg.example.test:8443')).toMatchObject({ identitytoken: 'tok' });
    expect(creds.describe()).toEqual(['127.0.0.1:5000', 'docker.io', 'reg.example.test:8443']);
    expect(creds.helpersIgnored).toBe(true);
  });

  it('a broken file is refused without quoting its secrets; a missing given file is an error', async () => {
    expect(() => RegistryCredentials.parse('{"auths": {"x": {"auth": "c2VjcmV0"}', 'f.json')).toThrow(/not valid JSON/);
    expect(() => RegistryCredentials.parse('{"auths": {"x": {"auth": "c2VjcmV0"}', 'f.json')).not.toThrow(/c2VjcmV0/);
    await expect(RegistryCredentials.load('/nonexistent/config.json')).rejects.toThrow(/cannot read/);
    expect((await RegistryCredentials.load(undefined, { DOCKER_CONFIG: '/nonexistent' })).describe()).toEqual([]);
  });
});

describe('pull failures', () => {
  it('retries what may pass, stops at once on what will not', () => {
    expect(classifyPullFailure('toomanyrequests: You have reached your pull rate limit')).toBe('retry');
    expect(classifyPullFailure('received unexpected HTTP status: 503 Service Unavailable')).toBe('retry');
    expect(classifyPullFailure('dial tcp 127.0.0.1:5000: connect: connection refused')).toBe('retry');
    expect(classifyPullFailure('unauthorized: authentication required')).toBe('auth');
    expect(classifyPullFailure('(HTTP code 404) unexpected - pull access denied for x, repository does not exist')).toBe('missing');
    expect(classifyPullFailure('manifest unknown: manifest unknown')).toBe('missing');
    expect(classifyPullFailure('Head "http://127.0.0.1:50123/v2/a/manifests/latest": no basic auth credentials')).toBe('auth');
  });

  it('backs off doubling, capped, with jitter', () => {
    expect(backoffMs(1, 1000, 60_000, () => 1)).toBe(1000);
    expect(backoffMs(3, 1000, 60_000, () => 1)).toBe(4000);
    expect(backoffMs(3, 1000, 60_000, () => 0)).toBe(2000);
    expect(backoffMs(20, 1000, 60_000, () => 1)).toBe(60_000);
  });
});

describe('the pull manager', () => {
  it('pulls an image once however many callers want it at once', async () => {
    const engine = new ScriptedEngine();
    engine.gated = true;
    const pulls = manager(engine);
    const waits = Array.from({ length: 16 }, () => pulls.ensure('reg.test/a:1'));
    await tick();
    engine.open();
    await Promise.all(waits);
    expect(engine.pulls).toHaveLength(1);
    expect(pulls.pullsDone).toBe(1);
  });

  it('keeps to its bound on pulls at once and reports the rest as queued', async () => {
    const engine = new ScriptedEngine();
    engine.gated = true;
    const pulls = manager(engine, { maxPulls: 2 });
    const waits = ['a', 'b', 'c', 'd'].map((n) => pulls.ensure(`reg.test/${n}`));
    await tick();
    expect(
      pulls
        .states()
        .map((s) => s.phase)
        .sort(),
    ).toEqual(['pulling', 'pulling', 'queued', 'queued']);
    expect(pulls.state('reg.test/a')).toMatchObject({ phase: 'pulling', bytesDone: 5e6, bytesTotal: 1e7, layersTotal: 1 });
    while (engine.pulls.length < 4) {
      engine.open();
      engine.gated = true;
      await tick();
    }
    engine.open();
    await Promise.all(waits);
    expect(engine.maxRunning).toBe(2);
  });

  it('retries 429 and 5xx, then succeeds; gives up on an auth refusal at once, naming the image and registry', async () => {
    const engine = new ScriptedEngine();
    engine.failures.set('reg.test/a', ['toomanyrequests: slow down', 'received unexpected HTTP status: 502 Bad Gateway']);
    engine.failures.set('reg.test/b', ['unauthorized: authentication required']);
    const retried: string[] = [];
    const pulls = manager(engine, { onRetry: (_i, kind) => retried.push(kind) });
    await pulls.ensure('reg.test/a');
    expect(engine.pulls.filter((p) => p.reference === 'reg.test/a')).toHaveLength(3);
    expect(retried).toEqual(['retry', 'retry']);
    const error = await pulls.ensure('reg.test/b').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InfraError);
    expect(String(error)).toMatch(/cannot pull reg\.test\/b from reg\.test after 1 try .*--registry-config/);
    expect(pulls.state('reg.test/b')).toMatchObject({ phase: 'failed' });
  });

  it('stops retrying after its bound and says the registry kept failing', async () => {
    const engine = new ScriptedEngine();
    engine.failures.set('reg.test/a', Array(10).fill('received unexpected HTTP status: 503 Service Unavailable') as string[]);
    const pulls = manager(engine, { retries: 2 });
    await expect(pulls.ensure('reg.test/a')).rejects.toThrow(/after 3 tries .*rate limit, 5xx or network/);
  });

  it('pulls from a mirror under the image’s own name, and falls back to the origin when the mirror lacks it', async () => {
    const engine = new ScriptedEngine();
    engine.failures.set('127.0.0.1:5000/t/b:latest', ['manifest unknown']);
    const creds = RegistryCredentials.parse(
      JSON.stringify({ auths: { '127.0.0.1:5000': { auth: Buffer.from('u:p').toString('base64') } } }),
      'c',
    );
    const pulls = manager(engine, { mirrors: [parseMirrorRule('reg.test=127.0.0.1:5000')], credentials: creds });
    await pulls.ensure('reg.test/t/a');
    expect(engine.pulls[0]).toEqual({
      reference: '127.0.0.1:5000/t/a:latest',
      auth: { username: 'u', password: 'p', serveraddress: '127.0.0.1:5000' },
    });
    expect(engine.present.has('reg.test/t/a')).toBe(true);
    expect(engine.present.has('127.0.0.1:5000/t/a:latest')).toBe(false);
    await pulls.ensure('reg.test/t/b');
    expect(engine.pulls.map((p) => p.reference).slice(1)).toEqual(['127.0.0.1:5000/t/b:latest', 'reg.test/t/b']);
  });

  it('a caller whose deadline passes stops waiting, says what the pull is doing, and a retry joins the same pull', async () => {
    const engine = new ScriptedEngine();
    engine.gated = true;
    const pulls = manager(engine);
    const controller = new AbortController();
    const first = pulls.ensure('reg.test/big', controller.signal);
    await tick();
    controller.abort(new DeadlineExceededError('the call deadline passed'));
    const error = await first.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeadlineExceededError);
    expect(String(error)).toMatch(
      /reg\.test\/big is not on this server yet \(pulling, 5\.0 MB of 10\.0 MB, 0\/1 layers, try 1\); the pull goes on/,
    );
    const retry = pulls.ensure('reg.test/big');
    engine.open();
    await retry;
    expect(engine.pulls).toHaveLength(1);
  });

  it('prefetch answers at once and remembers a failure for the next look', async () => {
    const engine = new ScriptedEngine();
    engine.present.add('reg.test/here');
    engine.failures.set('reg.test/gone', ['manifest unknown']);
    const pulls = manager(engine);
    expect(await pulls.prefetch('reg.test/here')).toMatchObject({ phase: 'present' });
    expect((await pulls.prefetch('reg.test/gone')).phase).toMatch(/queued|pulling/);
    for (let i = 0; i < 5; i++) await tick();
    expect(pulls.state('reg.test/gone')).toMatchObject({ phase: 'failed' });
  });
});
