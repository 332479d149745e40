/**
 * Finds an end-of-command marker in a byte stream that arrives in arbitrary chunks, passing the
 * bytes before it through untouched. The marker is `\x1e<prefix><payload>\x1f`.
 */
export const RECORD_START = 0x1e;
export const RECORD_END = 0x1f;

export interface MarkerHit {
  /** Bytes of the command's output that came before the marker in this chunk. */
  readonly before: Buffer;
  /** The text between the prefix and the terminator. */
  readonly payload: string;
}

export class MarkerScanner {
  private readonly prefix: Buffer;
  private carry: Buffer = Buffer.alloc(0);

  constructor(prefix: string) {
    this.prefix = Buffer.concat([Buffer.from([RECORD_START]), Buffer.from(prefix, 'utf8')]);
  }

  /**
   * Feeds a chunk. Returns the output bytes that are certainly not part of a marker, and the marker
   * when it is complete. Bytes after the marker are dropped (nothing may follow it).
   */
  feed(chunk: Buffer): { output: Buffer; hit?: MarkerHit } {
    const data = this.carry.length > 0 ? Buffer.concat([this.carry, chunk]) : chunk;
    const start = data.indexOf(this.prefix);
    if (start >= 0) {
      const end = data.indexOf(RECORD_END, start + this.prefix.length);
      if (end < 0) {
        // The marker has begun but not ended: hold it back until the rest arrives.
        this.carry = Buffer.from(data.subarray(start));
        return { output: data.subarray(0, start) };
      }
      this.carry = Buffer.alloc(0);
      const payload = data.subarray(start + this.prefix.length, end).toString('utf8');
      return { output: Buffer.alloc(0), hit: { before: data.subarray(0, start), payload } };
    }
    // Keep the longest tail that could still be the start of a marker.
    const keep = partialPrefixLength(data, this.prefix);
    this.carry = keep > 0 ? Buffer.from(data.subarray(data.length - keep)) : Buffer.alloc(0);
    return { output: data.subarray(0, data.length - keep) };
  }

  /** Whatever was held back, when the stream ends without a marker. */
  flush(): Buffer {
    const rest = this.carry;
    this.carry = Buffer.alloc(0);
    return rest;
  }
}

function partialPrefixLength(data: Buffer, prefix: Buffer): number {
  const max = Math.min(prefix.length - 1, data.length);
  for (let n = max; n > 0; n--) {
    if (data.subarray(data.length - n).equals(prefix.subarray(0, n))) return n;
  }
  return 0;
}
