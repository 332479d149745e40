import { describe, expect, it } from 'vitest';
import { MarkerScanner } from '../../src/sandbox/marker-scanner.js';
import { CappedOutput } from '../../src/sandbox/output-buffer.js';

describe('CappedOutput', () => {
  it('keeps everything under the limit', () => {
    const c = new CappedOutput(100);
    c.push(Buffer.from('hello '));
    c.push(Buffer.from('world'));
    expect(c.render()).toBe('hello world');
    expect(c.omittedBytes).toBe(0);
  });

  it('keeps head and tail and counts what was left out, for any chunking', () => {
    const data = Buffer.from(Array.from({ length: 1000 }, (_, i) => String.fromCharCode(97 + (i % 26))).join(''));
    for (const chunk of [1, 7, 64, 1000]) {
      const c = new CappedOutput(100);
      for (let i = 0; i < data.length; i += chunk) c.push(data.subarray(i, i + chunk));
      expect(c.totalBytes).toBe(1000);
      expect(c.omittedBytes).toBe(900);
      expect(c.render()).toBe(
        `${data.subarray(0, 50).toString()}\n[... 900 bytes of output omitted ...]\n${data.subarray(950).toString()}`,
      );
    }
  });

  it('replaces invalid UTF-8', () => {
    const c = new CappedOutput(100);
    c.push(Buffer.from([0x61, 0xff, 0x62]));
    expect(c.render()).toBe('a\uFFFDb');
  });
});

describe('MarkerScanner', () => {
  const marker = Buffer.from('\x1eEND:abc:0:/x\x1f');

  it('finds a marker split across chunks, passing earlier bytes through', () => {
    const stream = Buffer.concat([Buffer.from('output\x1e partial'), marker]);
    for (let split = 1; split < stream.length; split++) {
      const s = new MarkerScanner('END:abc:');
      const out: Buffer[] = [];
      let payload: string | undefined;
      for (const part of [stream.subarray(0, split), stream.subarray(split)]) {
        const r = s.feed(part);
        out.push(r.output);
        if (r.hit) {
          out.push(r.hit.before);
          payload = r.hit.payload;
        }
      }
      expect(Buffer.concat(out).toString()).toBe('output\x1e partial');
      expect(payload).toBe('0:/x');
    }
  });

  it('ignores markers with another nonce', () => {
    const s = new MarkerScanner('END:abc:');
    const r = s.feed(Buffer.from('\x1eEND:zzz:0:/\x1f'));
    expect(r.hit).toBeUndefined();
  });
});

describe('MarkerScanner on adversarial output', () => {
  it('an unterminated marker followed by 64 MB: every byte comes out, held bytes stay bounded, the real marker is still found', async () => {
    const { MAX_PAYLOAD_BYTES } = await import('../../src/sandbox/marker-scanner.js');
    const s = new MarkerScanner('SWE_ENV_END:nonce:');
    const fake = Buffer.from('\x1eSWE_ENV_END:nonce:0:/tmp', 'utf8'); // a prefix, never terminated
    const filler = Buffer.alloc(64 * 1024, 0x61);
    let emitted = s.feed(fake).output.length;
    let mostHeld = s.heldBytes();
    const chunks = 1024; // 64 MB
    for (let i = 0; i < chunks; i++) {
      emitted += s.feed(filler).output.length;
      mostHeld = Math.max(mostHeld, s.heldBytes());
    }
    const last = s.feed(Buffer.from('tail\x1eSWE_ENV_END:nonce:0:/testbed\x1f', 'utf8'));
    expect(last.hit?.payload).toBe('0:/testbed');
    emitted += last.hit!.before.length;
    expect(emitted).toBe(fake.length + chunks * filler.length + 'tail'.length);
    expect(mostHeld).toBeLessThanOrEqual(fake.length + MAX_PAYLOAD_BYTES);
  });

  it('a prefix whose terminator comes too late is output, and a real marker right after it is found', () => {
    const s = new MarkerScanner('END:n:');
    const long = '\x1eEND:n:' + 'x'.repeat(9000) + '\x1f';
    const r = s.feed(Buffer.from(long + 'ok\x1eEND:n:7:/a\x1f', 'utf8'));
    expect(r.hit?.payload).toBe('7:/a');
    expect(r.hit!.before.toString('utf8')).toBe(long + 'ok');
  });
});
