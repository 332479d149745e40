/**
 * A removal the engine already has in hand (AutoRemove's, once the container ended by itself)
 * answers 409; the container is still listed until that removal is done. Taking the 409 for
 * "removed" let a server's stop return with its container still listed (seen in CI: the episode
 * container of capture-freeze's stuck-disk test, ended by itself just as the server stopped).
 */
import type Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { removeContainer } from '../../src/sandbox/docker-exec.js';

function engineError(statusCode: number): Error {
  return Object.assign(new Error(`(HTTP code ${statusCode})`), { statusCode });
}

/** A container whose removal answers `removeAnswer` and which the engine lists for `listedFor` more inspects. */
function container(removeAnswer: number, listedFor: number): { container: Docker.Container; inspects: () => number } {
  let inspects = 0;
  const fake = {
    id: 'c0ffee',
    remove: () => Promise.reject(engineError(removeAnswer)),
    inspect: () => (++inspects > listedFor ? Promise.reject(engineError(404)) : Promise.resolve({})),
  };
  return { container: fake as unknown as Docker.Container, inspects: () => inspects };
}

describe('removing a container', () => {
  it('already being removed (409): returns once the engine no longer lists it', async () => {
    const c = container(409, 3);
    await removeContainer(c.container);
    expect(c.inspects()).toBe(4);
  });

  it('already gone (404): returns at once', async () => {
    const c = container(404, 0);
    await removeContainer(c.container);
    expect(c.inspects()).toBe(0);
  });

  it('refused otherwise (500): throws, saying which container', async () => {
    await expect(removeContainer(container(500, 0).container)).rejects.toThrow(/cannot remove container c0ffee/);
  });
});
