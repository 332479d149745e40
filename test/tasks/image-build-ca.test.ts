import { describe, expect, it } from 'vitest';
import { BUILD_CA_PATH, caBundleEnv, hostCaBundle, packageIndexEnv } from '../../src/tasks/image-build.js';

// A --network-install build behind an intercepting proxy needs the host's CA bundle: pip, npm, curl
// and git in the build container otherwise refuse the proxy's certificate (issue 29).
describe('--network-install CA bundle', () => {
  it("takes the first named bundle that exists, then Debian's", () => {
    const present = new Set(['/etc/custom/pip.pem', '/etc/ssl/certs/ca-certificates.crt']);
    const exists = (path: string) => present.has(path);
    expect(hostCaBundle({ SSL_CERT_FILE: '/nope.pem', PIP_CERT: '/etc/custom/pip.pem' }, exists)).toBe('/etc/custom/pip.pem');
    expect(hostCaBundle({}, exists)).toBe('/etc/ssl/certs/ca-certificates.crt');
    expect(hostCaBundle({}, () => false)).toBeUndefined();
  });

  it('points every client at the copy under /swe_env/build, which the build removes before its commit', () => {
    expect(BUILD_CA_PATH.startsWith('/swe_env/build/')).toBe(true);
    const env = caBundleEnv();
    for (const name of [
      'SSL_CERT_FILE',
      'PIP_CERT',
      'REQUESTS_CA_BUNDLE',
      'NODE_EXTRA_CA_CERTS',
      'npm_config_cafile',
      'GIT_SSL_CAINFO',
      'CURL_CA_BUNDLE',
    ]) {
      expect(env[name]).toBe(BUILD_CA_PATH);
    }
    // The host's own path is never passed (it does not exist in the container).
    expect(packageIndexEnv({ PIP_CERT: '/etc/ssl/certs/ca-certificates.crt' })).toEqual({});
  });
});
