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
  /** Bytes of this chunk after the marker. */
  readonly after: Buffer;
}

/**
 * The longest payload a real marker has (an exit code and a working directory, printed by one
 * printf): a "marker" whose terminator is further away is output that merely looks like one.
 */
export const MAX_PAYLOAD_BYTES = 8192;

/**
 * Linear in the bytes fed, whatever they hold: at most the prefix plus MAX_PAYLOAD_BYTES are held
 * back between chunks, and held bytes are never scanned again from the start.
 */
export class MarkerScanner {
  private readonly prefix: Buffer;
  private carry: Buffer = Buffer.alloc(0);

  constructor(prefix: string) {
    this.prefix = Buffer.concat([Buffer.from([RECORD_START]), Buffer.from(prefix, 'utf8')]);
  }

  /** Bytes held back waiting for the rest of a possible marker (bounded). */
  heldBytes(): number {
    return this.carry.length;
  }

  /**
   * Feeds a chunk. Returns the output bytes that are certainly not part of a marker, and the marker
   * when it is complete, with the bytes that followed it in the chunk.
   */
  feed(chunk: Buffer): { output: Buffer; hit?: MarkerHit } {
    const data = this.carry.length > 0 ? Buffer.concat([this.carry, chunk]) : chunk;
    const out: Buffer[] = [];
    let from = 0;
    for (;;) {
      const start = data.indexOf(this.prefix, from);
      if (start < 0) {
        // Keep the longest tail that could still be the start of a marker.
        const keep = partialPrefixLength(data.subarray(from), this.prefix);
        out.push(data.subarray(from, data.length - keep));
        this.carry = keep > 0 ? Buffer.from(data.subarray(data.length - keep)) : Buffer.alloc(0);
        return { output: concat(out) };
      }
      const payloadStart = start + this.prefix.length;
      const end = data.indexOf(RECORD_END, payloadStart);
      if (end >= 0 && end - payloadStart <= MAX_PAYLOAD_BYTES) {
        out.push(data.subarray(from, start));
        this.carry = Buffer.alloc(0);
        const hit = { before: concat(out), payload: data.subarray(payloadStart, end).toString('utf8'), after: data.subarray(end + 1) };
        return { output: Buffer.alloc(0), hit };
      }
      if (end < 0 && data.length - payloadStart <= MAX_PAYLOAD_BYTES) {
        // The marker has begun but not ended: hold it back until the rest arrives.
        out.push(data.subarray(from, start));
        this.carry = Buffer.from(data.subarray(start));
        return { output: concat(out) };
      }
      // Too long to be a marker: its first byte is output, and scanning goes on after it.
      out.push(data.subarray(from, start + 1));
      from = start + 1;
    }
  }

  /** Whatever was held back, when the stream ends without a marker. */
  flush(): Buffer {
    const rest = this.carry;
    this.carry = Buffer.alloc(0);
    return rest;
  }
}

function concat(parts: Buffer[]): Buffer {
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
}

function partialPrefixLength(data: Buffer, prefix: Buffer): number {
  const max = Math.min(prefix.length - 1, data.length);
  for (let n = max; n > 0; n--) {
    if (data.subarray(data.length - n).equals(prefix.subarray(0, n))) return n;
  }
  return 0;
}
