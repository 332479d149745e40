import Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { ContainerEvents } from '../../src/sandbox/container-events.js';

// Event lines in the shape the engine's /events stream sends them.
const oom = (id: string) => JSON.stringify({ status: 'oom', id, Type: 'container', Action: 'oom', Actor: { ID: id, Attributes: {} } });
const die = (id: string, exitCode: number) =>
  JSON.stringify({ status: 'die', id, Type: 'container', Action: 'die', Actor: { ID: id, Attributes: { exitCode: String(exitCode) } } });

describe("what killed a sandbox, from the engine's events", () => {
  const events = (): ContainerEvents => new ContainerEvents(new Docker(), 'swe-env.server=x');

  it("an oom event just before the death: its own memory limit (the model's failure)", async () => {
    const e = events();
    e.record(oom('a'));
    e.record(die('a', 137));
    expect(await e.fate('a', 10)).toEqual({ ownOutOfMemory: true, exitCode: 137 });
  });

  it("a death without an oom event: not the sandbox's own memory (killed from outside: the environment's)", async () => {
    const e = events();
    e.record(die('b', 137));
    expect(await e.fate('b', 10)).toEqual({ ownOutOfMemory: false, exitCode: 137 });
  });

  it('waits for a death reported a moment after it is asked about; nothing reported: unknown', async () => {
    const e = events();
    const asked = e.fate('c', 5000);
    e.record(oom('c'));
    e.record(die('c', 137));
    expect((await asked)?.ownOutOfMemory).toBe(true);
    expect(await e.fate('d', 10)).toBeUndefined();
  });
});
