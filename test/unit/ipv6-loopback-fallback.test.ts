/**
 * The IPv6 loopback sysctls on an engine that refuses them: the refusal is recognised from the
 * engine's own error (runc's, quoted from a kernel without the setting), remembered, and every later
 * create leaves them out, so sandboxes still start there (IPv4 loopback only). Any other start error
 * is not taken for it. test/sandbox/loopback.test.ts shows the sysctls taking effect on a real engine.
 */
import type Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { IPV6_LOOPBACK_SYSCTLS, sandboxCreateOptions } from '../../src/sandbox/container-options.js';
import { EngineDialect } from '../../src/sandbox/engines/engine-dialect.js';
import { testSpec } from '../helpers/docker.js';

const RUNC_REFUSAL =
  'Error: (HTTP code 500) server error - failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: error during container init: open /proc/sys/net/ipv6/conf/lo/disable_ipv6: no such file or directory: unknown';
const OTHER_FAILURE =
  'Error: (HTTP code 500) server error - failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: exec: "bash": executable file not found in $PATH: unknown';

describe('the IPv6 loopback sysctls', () => {
  it('are asked for every agent and grading sandbox, never for a build on the host network', () => {
    for (const role of ['episode', 'grader'] as const) {
      expect(sandboxCreateOptions(testSpec({ role }), 'srv', undefined).HostConfig?.Sysctls).toEqual(IPV6_LOOPBACK_SYSCTLS);
    }
    expect(sandboxCreateOptions(testSpec({ role: 'build', network: 'host' }), 'srv', undefined).HostConfig?.Sysctls).toBeUndefined();
  });

  it('are left out of every create after the engine refused them once, and only then', () => {
    const dialect = new EngineDialect({} as Docker);
    const options = sandboxCreateOptions(testSpec(), 'srv', undefined);
    expect(dialect.refusedIpv6Loopback(options, new Error(OTHER_FAILURE))).toBe(false);
    expect(dialect.withoutRefusedSysctls(options).HostConfig?.Sysctls).toEqual(IPV6_LOOPBACK_SYSCTLS);
    expect(dialect.refusedIpv6Loopback(options, new Error(RUNC_REFUSAL))).toBe(true);
    const after = dialect.withoutRefusedSysctls(sandboxCreateOptions(testSpec(), 'srv', undefined));
    expect(after.HostConfig?.Sysctls).toBeUndefined();
    expect(after.HostConfig?.NetworkMode).toBe('none');
  });

  it('are not blamed for a failure of a create that did not ask for them', () => {
    const dialect = new EngineDialect({} as Docker);
    const build = sandboxCreateOptions(testSpec({ role: 'build', network: 'host' }), 'srv', undefined);
    expect(dialect.refusedIpv6Loopback(build, new Error(RUNC_REFUSAL))).toBe(false);
  });
});
